/** The start-up message's reading of a driver error (a leaf: it loads neither driver). */
import { refusedConnection } from './postgres/errors.js';
import { cannotOpen } from './sqlite/errors.js';

/**
 * PostgreSQL reached but refused us (login or database), or a SQLite file that cannot be opened;
 * null for anything else.
 */
export function openFailureOf(code: string | undefined, message: string): 'refused' | 'cannot-open' | null {
  if (refusedConnection(code)) return 'refused';
  return cannotOpen(code, message) ? 'cannot-open' : null;
}
