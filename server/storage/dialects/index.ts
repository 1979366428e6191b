/**
 * The two dialects. SQLite (better-sqlite3) is the embedded default; PostgreSQL (pg) is
 * selected by a postgres:// DATABASE_URL. Everything dialect-specific starts here.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import * as sqliteVec from 'sqlite-vec';
import { loadRankExtension } from '../sqlite-rank/index.js';
import { migrateToLatest, pendingMigrations } from '../migrations/index.js';
import type { Database } from '../tables.js';
import type { Dialect } from './dialect.js';
import { postgresDialect } from './postgres.js';
import { sqliteDialect } from './sqlite.js';
import { attachReader } from './sqlite-reader.js';
import { withStatementCache } from './sqlite-statements.js';
import { attachWriter } from './sqlite-writer.js';

export type DialectName = 'sqlite' | 'postgres';

/**
 * An open database. Which dialect it speaks is storage's business: the Store (store.ts) and the
 * migrations find it from the handle; callers never pass or test it.
 */
export interface DatabaseHandle {
  db: Kysely<Database>;
  /** The PostgreSQL schema in use, when not the default. */
  schema?: string;
  /** Applies the migrations not yet applied, in order; returns their names, `onMigration` hears each as it starts. */
  migrate(onMigration?: (name: string) => void): Promise<string[]>;
  /** The migrations of this build not applied yet (none once `migrate` ran). */
  pendingMigrations(): Promise<string[]>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent, SQLite at `sqlitePath`. */
  url?: string | null;
  sqlitePath?: string;
  /** PostgreSQL schema to work in (tests run each in their own). */
  schema?: string;
  poolSize?: number;
  /** PostgreSQL: hears an idle connection's failure (default: one line on stderr). */
  onPoolError?: (err: Error) => void;
  /** SQLite: load parley_bm25 (default true); false ranks with FTS5's bm25(), for tests of that path. */
  rankExtension?: boolean;
  /**
   * SQLite file: the hot reads on a second, read-only connection (sqlite-reader.ts; default true).
   * false reads through kysely like every other query: `npm run bench -- http` weighs the two.
   */
  readFastPath?: boolean;
}

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  if (options.url) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      ...(options.schema ? { options: `-c search_path=${quoteIdent(options.schema)}` } : {}),
    });
    // A dropped idle connection must not crash the process (the pool replaces it), but it is said.
    pool.on('error', options.onPoolError ?? ((err) => console.error(`PostgreSQL: an idle connection failed and is replaced: ${err.message}`)));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      schema: options.schema,
      migrate: (onMigration) => migrateToLatest(db, 'postgres', options.schema, onMigration),
      pendingMigrations: () => pendingMigrations(db, 'postgres', options.schema),
      close: () => db.destroy(),
    };
  }
  const path = options.sqlitePath ?? ':memory:';
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true });
    // Readable by the server's user only, like the secret key; SQLite gives its -wal and -shm files the same mode.
    closeSync(openSync(path, 'a', 0o600));
    try {
      chmodSync(path, 0o600);
    } catch {
      /* a file of another user: opening it says more than this would */
    }
  }
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  // sqlite-vec's vec0 tables hold chunk vectors for hybrid retrieval (storage/vectors.repository.ts).
  // Loaded on every connection: a chunk delete fires the trigger that deletes from vec0. Without
  // the extension (an unsupported platform) lexical search still works; vectors refuse to start.
  try {
    sqliteVec.load(sqlite);
  } catch {
    /* vectors.repository.ts reports it when an embeddings endpoint is configured */
  }
  // parley_bm25 for lexical search (sqlite-rank/); without it search uses bm25(), slower.
  if (options.rankExtension !== false) loadRankExtension(sqlite);
  const statements = withStatementCache(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  attachWriter(db, { prepare: (text) => statements.prepare(text) as unknown as SQLite.Statement });
  // A file database gets a read-only connection for the per-request lookups (sqlite-reader.ts).
  const reader = path === ':memory:' || options.readFastPath === false ? null : attachReader(db, path);
  return {
    db,
    migrate: (onMigration) => migrateToLatest(db, 'sqlite', undefined, onMigration),
    pendingMigrations: () => pendingMigrations(db, 'sqlite'),
    close: async () => {
      reader?.close();
      await db.destroy();
    },
  };
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/i.test(name)) throw new Error(`Invalid schema name "${name}"`);
  return name;
}

/** The dialect a kysely handle (or transaction) speaks, read from the driver it was opened with. */
export const dialectOf = (db: Kysely<Database>): Dialect =>
  db.getExecutor().adapter instanceof PostgresAdapter ? postgresDialect : sqliteDialect;
