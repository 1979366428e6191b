/**
 * The writer connection of a SQLite database, run directly inside a group commit's transaction.
 * Through kysely each statement pays query plumbing (the connection mutex, promise hops, result
 * objects) costing more than SQLite's own work (bench/README.md, realtime); the group commit
 * holds kysely's one connection for its whole batch, so while that transaction is open nothing
 * else can run on the connection and the compiled-once statements (compile-once.ts) of its
 * handle go straight to better-sqlite3, synchronously, in the same transaction.
 */
import type { Statement } from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../../tables.js';

export interface SqliteWriter {
  /** The prepared statement of this SQL (kept by SQL text, shared with kysely's driver). */
  prepare(sql: string): Statement;
}

const writers = new WeakMap<Kysely<Database>, SqliteWriter>();
const openGroups = new WeakMap<Kysely<Database>, SqliteWriter>();

/** Registers the writer connection of a database handle (dialects/index.ts). */
export function attachWriter(db: Kysely<Database>, writer: SqliteWriter) {
  writers.set(db, writer);
}

export const writerOf = (db: Kysely<Database>) => writers.get(db);

/** Runs `fn` with `trx` (a group commit's transaction, holding the connection) bound to the writer. */
export async function withGroupWriter<T>(
  trx: Kysely<Database>,
  writer: SqliteWriter,
  fn: () => Promise<T>,
): Promise<T> {
  openGroups.set(trx, writer);
  try {
    return await fn();
  } finally {
    openGroups.delete(trx);
  }
}

/** The writer when `db` is an open group commit's transaction; undefined otherwise. */
export const groupWriterOf = (db: Kysely<Database>) => openGroups.get(db);
