/**
 * The two dialects. SQLite (better-sqlite3) is the embedded default; PostgreSQL (pg) is
 * selected by a postgres:// DATABASE_URL. Everything dialect-specific starts here.
 */
import { type Kysely, PostgresAdapter } from 'kysely';
import type { Database } from '../tables.js';
import type { Dialect } from './dialect.js';
import type { DatabaseHandle, DatabaseOptions } from './handle.js';
import { postgresDialect } from './postgres/dialect.js';
import { openPostgres } from './postgres/open.js';
import { sqliteDialect } from './sqlite/dialect.js';
import { openSqlite } from './sqlite/open.js';

export type { DatabaseHandle, DatabaseOptions, DialectName } from './handle.js';

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  return options.url ? openPostgres({ ...options, url: options.url }) : openSqlite(options);
}

/** The dialect a kysely handle (or transaction) speaks, read from the driver it was opened with. */
export const dialectOf = (db: Kysely<Database>): Dialect =>
  db.getExecutor().adapter instanceof PostgresAdapter ? postgresDialect : sqliteDialect;
