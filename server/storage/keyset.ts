import type { SelectQueryBuilder } from 'kysely';
import type { Keyset, Page, PageRequest } from '../domain/ports.js';

/**
 * Newest-first keyset page over (created_at, id): rows strictly after the cursor's key, one
 * extra row fetched to know whether another page follows.
 */
export async function keysetPage<DB, TB extends keyof DB, O extends { created_at: string; id: string }, T>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  map: (row: O) => T,
  table: string,
): Promise<Page<T>> {
  const created = `${table}.created_at`;
  const id = `${table}.id`;
  // The columns are named at run time (`${table}.id`), which kysely's typed builder cannot check.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let q = query as unknown as SelectQueryBuilder<any, any, O>;
  if (page.after) {
    const { createdAt, id: afterId } = page.after;
    q = q.where((eb) =>
      eb.or([eb(created, '<', createdAt), eb.and([eb(created, '=', createdAt), eb(id, '<', afterId)])]),
    );
  }
  const rows = await q
    .orderBy(created, 'desc')
    .orderBy(id, 'desc')
    .limit(page.limit + 1)
    .execute();
  const more = rows.length > page.limit;
  const items = rows.slice(0, page.limit);
  const last = items.at(-1);
  const next: Keyset | null = more && last ? { createdAt: last.created_at, id: last.id } : null;
  return { items: items.map(map), next };
}
