/**
 * A second, read-only SQLite connection for the lookups every request makes (the token, the
 * chatbot), run synchronously, without kysely's connection mutex and promise hops (bench/README.md,
 * http). Under WAL a
 * reader sees exactly the data committed when its statement starts, never another request's
 * open transaction, so a revocation (by this process, the CLI or another instance) is seen by
 * the very next request, as without the reader.
 *
 * Rows are also remembered against the database's `data_version`, which changes whenever any
 * other connection commits (this process's writer, the CLI, another process) and never for
 * uncommitted or rolled-back work: while it is unchanged the row cannot have changed, and a
 * pragma replaces the read.
 */
import SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../../tables.js';

export interface SyncReader {
  /** The first row of a read-only query, or undefined. */
  get<R>(sql: string, parameters: readonly unknown[]): R | undefined;
  /** Every row of a read-only query (not remembered: lists change with every write). */
  all<R>(sql: string, parameters: readonly unknown[]): R[];
  close(): void;
}

const readers = new WeakMap<Kysely<Database>, SyncReader>();

/** The reader of a database handle's kysely instance; none inside a transaction or on PostgreSQL. */
export const readerOf = (db: Kysely<Database>) => readers.get(db);

/** Rows remembered per query of a reader; the per-request lookups touch a few tokens and chatbots. */
const MAX_CACHED = 2000;

export function attachReader(db: Kysely<Database>, path: string): SyncReader {
  const connection = new SQLite(path, { readonly: true, fileMustExist: true });
  connection.pragma('busy_timeout = 5000');
  const version = connection.prepare('pragma data_version').pluck();
  const statements = new Map<string, SQLite.Statement>();
  // By SQL text, then parameters: the SQL strings are the same few constants (their hash is
  // computed once), so a lookup hashes only the short parameter key, not SQL + parameters anew.
  const rows = new Map<string, Map<string, { version: unknown; row: unknown }>>();
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      // Only the handful of hot lookups come here: the map stays as small as their count.
      statement = connection.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const reader: SyncReader = {
    get<R>(sql: string, parameters: readonly unknown[]) {
      const now = version.get();
      let remembered = rows.get(sql);
      if (!remembered) rows.set(sql, (remembered = new Map()));
      const key = JSON.stringify(parameters);
      const cached = remembered.get(key);
      if (cached && cached.version === now) return cached.row as R | undefined;
      const row = prepared(sql).get(...parameters) as R | undefined;
      if (remembered.size >= MAX_CACHED) remembered.delete(remembered.keys().next().value!);
      remembered.set(key, { version: now, row });
      return row;
    },
    all: <R>(sql: string, parameters: readonly unknown[]) => prepared(sql).all(...parameters) as R[],
    close: () => connection.close(),
  };
  readers.set(db, reader);
  return reader;
}
