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
import { BackupError, backupSqlite, restoreSqlite } from './sqlite/backup.js';
import { openSqlite } from './sqlite/open.js';

export type { DatabaseHandle, DatabaseOptions, DialectName } from './handle.js';

export { BackupError } from './sqlite/backup.js';

/**
 * `parley backup` / `parley restore`: SQLite's online backup API for the embedded database. A
 * PostgreSQL install is backed up with PostgreSQL's own tools (pg_dump / pg_restore).
 */
export async function backupDatabase(
  location: { databaseUrl: string | null; sqlitePath: string },
  file: string,
  direction: 'backup' | 'restore',
): Promise<{ pages: number; migrations?: number }> {
  if (location.databaseUrl) {
    throw new BackupError(
      direction === 'backup'
        ? 'DATABASE_URL is PostgreSQL: back it up with pg_dump (docs/deploy.md, Backups)'
        : 'DATABASE_URL is PostgreSQL: restore a pg_dump archive with pg_restore (docs/deploy.md, Backups)',
    );
  }
  return direction === 'backup' ? backupSqlite(location.sqlitePath, file) : restoreSqlite(file, location.sqlitePath);
}

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  return options.url ? openPostgres({ ...options, url: options.url }) : openSqlite(options);
}

/** The dialect a kysely handle (or transaction) speaks, read from the driver it was opened with. */
export const dialectOf = (db: Kysely<Database>): Dialect =>
  db.getExecutor().adapter instanceof PostgresAdapter ? postgresDialect : sqliteDialect;
