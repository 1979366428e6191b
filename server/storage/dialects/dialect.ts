/**
 * What differs between SQLite and PostgreSQL beyond the schema (which the migrations hold): the
 * lexical search statement, the columns only one dialect indexes, row locks, the job claim's turn
 * and the vector index.
 * Repositories ask the database's dialect (chosen once, when it is opened) and never test its name.
 */
import type { Kysely } from 'kysely';
import type { VectorIndexPort } from '../../domain/knowledge/ports.js';
import type { Database } from '../tables.js';

/** A chunk row as a search returns it; `score`: higher is better. */
export interface ChunkRow {
  id: number;
  document_id: string;
  title: string;
  heading: string;
  text: string;
  location: string;
  score?: number | string;
}

/** The k best chunks of a chatbot for a question's words (`terms`, from search-terms.ts). */
export type ChunkSearch = (chatbotId: string, query: string, terms: string[], limit: number) => Promise<ChunkRow[]>;

export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** The lexical search over one kysely handle (it keeps that handle's planner caches). */
  chunkSearch(db: Kysely<Database>): ChunkSearch;
  /** Columns of a chunk row that only this dialect has (SQLite's `extra` index tokens). */
  chunkColumns(chunk: { title: string; headingPath: string[]; text: string }): { extra?: string };
  /** Serialises writers of one ingest job's items inside `trx` (PostgreSQL locks the job row; SQLite has one writer). */
  lockJob(trx: Kysely<Database>, jobId: string): Promise<void>;
  /**
   * Runs one job claim (`claim`, a conditional update) so claims take turns across instances:
   * PostgreSQL in a transaction under an advisory lock, so two instances cannot both take the last
   * free place of an account; SQLite as it is (writes are serialised).
   */
  serialiseJobClaims<T>(db: Kysely<Database>, claim: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in a transaction of its own all-or-nothing whose COMMIT concurrent small changes
   * may share: SQLite's group commit (sqlite/group-commit.ts, one writer), PostgreSQL a plain transaction.
   */
  groupedTransaction<T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /** Serialises writers of one account's upload leases inside `trx` (PostgreSQL locks the account row; SQLite has one writer). */
  lockAccount(trx: Kysely<Database>, accountId: string): Promise<void>;
  /** Whether `err` is this driver's refusal by a unique index (or primary key). */
  isUniqueViolation(err: unknown): boolean;
  /** The vector index of one embedding space (dimensions already checked). */
  vectorIndex(db: Kysely<Database>, model: string, dimensions: number): VectorIndexPort;
}
