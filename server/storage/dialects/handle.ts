/** An open database and the options that open one, whichever the dialect. */
import type { Kysely } from 'kysely';
import type { Database } from '../tables.js';

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
  /**
   * Runs `fn` while no other process preparing this database runs its own (PostgreSQL: a session
   * advisory lock on a connection of its own; SQLite: one process owns the file, `fn` runs as is).
   */
  exclusively<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** PostgreSQL: the connection pool now (open, idle, and queries waiting for a connection); absent on SQLite. */
  poolState?(): { total: number; idle: number; waiting: number; max: number };
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
   * SQLite file: the hot reads on a second, read-only connection (sqlite/reader.ts; default true).
   * false reads through kysely like every other query: `npm run bench -- http` weighs the two.
   */
  readFastPath?: boolean;
}
