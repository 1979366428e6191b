/** Opens SQLite (better-sqlite3) at a file or in memory, with sqlite-vec, parley_bm25 and the read fast path. */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import * as sqliteVec from 'sqlite-vec';
import { migrateToLatest, pendingMigrations } from '../../migrations/index.js';
import type { Database } from '../../tables.js';
import type { DatabaseHandle, DatabaseOptions } from '../handle.js';
import { loadRankExtension } from './rank/index.js';
import { attachReader } from './reader.js';
import { withStatementCache } from './statements.js';
import { attachWriter } from './writer.js';

export function openSqlite(options: DatabaseOptions): DatabaseHandle {
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
  // sqlite-vec's vec0 tables hold chunk vectors for hybrid retrieval (vector-index.ts).
  // Loaded on every connection: a chunk delete fires the trigger that deletes from vec0. Without
  // the extension (an unsupported platform) lexical search still works; vectors refuse to start.
  try {
    sqliteVec.load(sqlite);
  } catch {
    /* vector-index.ts reports it when an embeddings endpoint is configured */
  }
  // parley_bm25 for lexical search (rank/); without it search uses bm25(), slower.
  if (options.rankExtension !== false) loadRankExtension(sqlite);
  const statements = withStatementCache(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  attachWriter(db, { prepare: (text) => statements.prepare(text) as unknown as SQLite.Statement });
  // A file database gets a read-only connection for the per-request lookups (reader.ts).
  const reader = path === ':memory:' || options.readFastPath === false ? null : attachReader(db, path);
  return {
    db,
    migrate: (onMigration) => migrateToLatest(db, 'sqlite', undefined, onMigration),
    pendingMigrations: () => pendingMigrations(db, 'sqlite'),
    exclusively: (fn) => fn(),
    close: async () => {
      reader?.close();
      await db.destroy();
    },
  };
}
