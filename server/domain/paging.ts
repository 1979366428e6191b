/**
 * Keyset pages: every list is paginated on (createdAt, id), newest first, so inserts between
 * requests never shift a page. A leaf every port imports.
 */

export interface Keyset {
  createdAt: string;
  id: string;
}

export interface PageRequest {
  limit: number;
  after: Keyset | null;
}

export interface Page<T> {
  items: T[];
  /** Key of the last item when more items follow, else null. */
  next: Keyset | null;
}
