/**
 * `parley backup` and `parley restore` for the embedded database: SQLite's online backup API
 * (better-sqlite3 `backup()`), which copies a consistent snapshot page by page while the server
 * keeps writing (WAL), so a backup never needs a stop. A restore copies a backup back the same
 * way, after checking it is a whole Parley database.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import SQLite from 'better-sqlite3';

export class BackupError extends Error {}

/** Copies the live database at `from` into a new file `to`; returns its size in pages. */
export async function backupSqlite(from: string, to: string): Promise<{ pages: number }> {
  if (!existsSync(from)) throw new BackupError(`No database at ${from}`);
  if (existsSync(to)) throw new BackupError(`${to} already exists: name a new file (backups are never overwritten)`);
  const source = new SQLite(from, { readonly: true, fileMustExist: true });
  try {
    // Into a temporary name first: a crash mid-copy never leaves a file that looks like a backup.
    const partial = `${to}.partial`;
    rmSync(partial, { force: true });
    const { totalPages } = await source.backup(partial);
    // A single file to keep: the copy's own journal mode is the plain one.
    const copy = new SQLite(partial);
    copy.pragma('journal_mode = DELETE');
    copy.close();
    renameSync(partial, to);
    return { pages: totalPages };
  } finally {
    source.close();
  }
}

/** The backup's own check: SQLite's integrity check, and Parley's migration table with its last migration. */
function checkBackup(file: string): { migrations: number } {
  if (!existsSync(file)) throw new BackupError(`No backup at ${file}`);
  let db: SQLite.Database;
  try {
    db = new SQLite(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new BackupError(`${file} is not a database: ${(err as Error).message}`);
  }
  try {
    const integrity = db.pragma('quick_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`${file} is damaged: ${String(integrity)}`);
    const table = db.prepare("select name from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    if (!table) throw new BackupError(`${file} is not a Parley database (no migration table)`);
    const { n } = db.prepare('select count(*) as n from kysely_migration').get() as { n: number };
    return { migrations: n };
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError(`${file} is not a database: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

/**
 * Replaces the database at `to` with the backup `from` (every Parley on it stopped first). The
 * database is replaced through SQLite, so its WAL is taken into account; the migrations a newer
 * build needs run at the next start.
 */
export async function restoreSqlite(from: string, to: string): Promise<{ pages: number; migrations: number }> {
  const { migrations } = checkBackup(from);
  const source = new SQLite(from, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await source.backup(to);
    return { pages: totalPages, migrations };
  } finally {
    source.close();
  }
}
