/**
 * A second, read-only SQLite connection for the lookups every request makes (the token, the
 * chatbot). Through kysely a primary-key read costs ~16 µs, most of it the driver's connection
 * mutex and promise hops; run synchronously on its own connection it costs ~3 µs. Under WAL a
 * reader sees exactly the data committed when its statement starts, never another request's
 * open transaction, so a revocation (by this process, the CLI or another instance) is seen by
 * the very next request, as without the reader.
 */
import SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../tables.js';

export interface SyncReader {
  /** The first row of a read-only query, or undefined. */
  get<R>(sql: string, parameters: readonly unknown[]): R | undefined;
  close(): void;
}

const readers = new WeakMap<Kysely<Database>, SyncReader>();

/** The reader of a database handle's kysely instance; none inside a transaction or on PostgreSQL. */
export const readerOf = (db: Kysely<Database>) => readers.get(db);

export function attachReader(db: Kysely<Database>, path: string): SyncReader {
  const connection = new SQLite(path, { readonly: true, fileMustExist: true });
  connection.pragma('busy_timeout = 5000');
  const statements = new Map<string, SQLite.Statement>();
  const reader: SyncReader = {
    get<R>(sql: string, parameters: readonly unknown[]) {
      let statement = statements.get(sql);
      if (!statement) {
        // Only the handful of hot lookups come here: the map stays as small as their count.
        statement = connection.prepare(sql);
        statements.set(sql, statement);
      }
      return statement.get(...parameters) as R | undefined;
    },
    close: () => connection.close(),
  };
  readers.set(db, reader);
  return reader;
}
