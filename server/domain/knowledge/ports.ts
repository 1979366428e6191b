/**
 * What knowledge needs from storage and from the job queue, in domain terms. `storage/`
 * implements the stores for SQLite and PostgreSQL; `server/queue/` implements JobQueue.
 */
import type { Page, PageRequest } from '../paging.js';

export type SourceType = 'links' | 'website' | 'sitemap' | 'youtube' | 'text' | 'files' | 'confluence';
export type SourceStatus = 'idle' | 'syncing' | 'ready' | 'error';

export interface SourceRecord {
  id: string;
  chatbotId: string;
  accountId: string;
  type: SourceType;
  /** Dedupe key within (chatbot, type): start URL, sitemap URL, Confluence base URL; '' for the singletons (links, text, files, youtube). */
  key: string;
  name: string;
  config: Record<string, unknown>;
  /** Encrypted credentials (never leave the server). */
  credentials: string | null;
  status: SourceStatus;
  lastError: string | null;
  lastSyncAt: string | null;
  syncIntervalMinutes: number | null;
  nextSyncAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type DocumentStatus = 'pending' | 'indexed' | 'failed' | 'skipped';

export interface DocumentRecord {
  id: string;
  chatbotId: string;
  sourceId: string;
  key: string;
  url: string | null;
  title: string;
  kind: string;
  status: DocumentStatus;
  contentHash: string | null;
  chars: number;
  chunkCount: number;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ChunkLocation {
  url: string | null;
  headingPath: string[];
  page?: number;
  startSeconds?: number;
  /** A short exact quote from the chunk's start, usable as `#:~:text=`. */
  textFragment: string;
}

export interface ChunkInput {
  index: number;
  title: string;
  headingPath: string[];
  text: string;
  location: ChunkLocation;
  tokenCount: number;
  /** Questions the chunk answers (chunk-questions.ts), offered as follow-ups. */
  questions?: string[];
}

export interface DocumentChunk {
  index: number;
  headingPath: string[];
  text: string;
  location: ChunkLocation;
  tokenCount: number;
}

export interface SearchHit {
  chunkId: number;
  documentId: string;
  title: string;
  url: string | null;
  headingPath: string[];
  text: string;
  location: ChunkLocation;
  /** Higher is better; comparable only within one result list. */
  score: number;
}

/** `partially_succeeded`: some items were indexed and some failed (the counts and error list say which). */
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'partially_succeeded' | 'failed' | 'cancelled';

export interface IngestError {
  url: string;
  error: string;
}

export interface IngestJobRecord {
  id: string;
  chatbotId: string;
  sourceId: string;
  trigger: 'add' | 'resync' | 'schedule';
  status: JobStatus;
  found: number;
  done: number;
  failed: number;
  skipped: number;
  options: Record<string, unknown>;
  error: string | null;
  cancelRequested: boolean;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export type ItemStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

export interface IngestItem {
  jobId: string;
  key: string;
  seq: number;
  depth: number;
  status: ItemStatus;
  payload: Record<string, unknown> | null;
  blobId: string | null;
  error: string | null;
}

export interface StoredBlob {
  id: string;
  name: string;
  size: number;
  pieces(): AsyncIterable<Buffer>;
}

export interface KnowledgeStore {
  sources: {
    insert(source: SourceRecord): Promise<void>;
    get(id: string): Promise<SourceRecord | null>;
    byKey(chatbotId: string, type: SourceType, key: string): Promise<SourceRecord | null>;
    list(chatbotId: string): Promise<SourceRecord[]>;
    update(
      id: string,
      patch: Partial<Omit<SourceRecord, 'id' | 'chatbotId' | 'accountId' | 'createdAt'>>,
    ): Promise<void>;
    /** Sources with a sync interval whose next sync time has passed. */
    due(now: string): Promise<SourceRecord[]>;
    delete(id: string): Promise<void>;
  };
  documents: {
    byKey(chatbotId: string, key: string): Promise<DocumentRecord | null>;
    insert(doc: DocumentRecord): Promise<void>;
    update(id: string, patch: Partial<Omit<DocumentRecord, 'id' | 'chatbotId' | 'createdAt'>>): Promise<void>;
    page(
      chatbotId: string,
      page: PageRequest,
      filter: { sourceId?: string; status?: DocumentStatus; text?: string },
    ): Promise<Page<DocumentRecord>>;
    /** Document counts per source of a chatbot. */
    countBySource(chatbotId: string): Promise<Map<string, number>>;
    many(chatbotId: string, ids: string[]): Promise<DocumentRecord[]>;
    delete(ids: string[]): Promise<void>;
    /** Documents that count against the page quota (indexed ones) across an account. */
    countIndexed(accountId: string): Promise<number>;
  };
  chunks: {
    /** Replaces a document's chunks (and their index entries) in one go; returns the new chunk ids. */
    replace(documentId: string, chatbotId: string, chunks: ChunkInput[]): Promise<number[]>;
    /** Lexical ranking: FTS5 bm25 on SQLite, ts_rank_cd on PostgreSQL. */
    searchLexical(chatbotId: string, query: string, k: number): Promise<SearchHit[]>;
    byIds(ids: number[]): Promise<SearchHit[]>;
    count(chatbotId: string): Promise<number>;
    /** A document's chunks in reading order, from index `fromIndex` on, at most `limit`. */
    ofDocument(documentId: string, fromIndex: number, limit: number): Promise<DocumentChunk[]>;
  };
  ingest: {
    insertJob(job: IngestJobRecord): Promise<void>;
    getJob(id: string): Promise<IngestJobRecord | null>;
    pageJobs(chatbotId: string, page: PageRequest): Promise<Page<IngestJobRecord>>;
    updateJob(
      id: string,
      patch: Partial<Pick<IngestJobRecord, 'status' | 'error' | 'startedAt' | 'finishedAt' | 'cancelRequested'>>,
    ): Promise<void>;
    /** Atomically adds to the job's counters. */
    addCounts(id: string, delta: Partial<Record<'found' | 'done' | 'failed' | 'skipped', number>>): Promise<void>;
    /** Adds items that are not in the job yet (by key); returns how many were new. */
    addItems(
      jobId: string,
      items: { key: string; depth: number; payload?: Record<string, unknown> | null; blobId?: string | null }[],
    ): Promise<number>;
    /** The next pending items in insertion order. */
    pending(jobId: string, limit: number): Promise<IngestItem[]>;
    setItem(jobId: string, key: string, status: ItemStatus, error?: string | null): Promise<void>;
    /**
     * Ends an item still pending or running with its outcome; false when it had ended already (a
     * second runner of the job after a lost lease), so its outcome is counted once.
     */
    finishItem(
      jobId: string,
      key: string,
      status: 'done' | 'failed' | 'skipped',
      error: string | null,
    ): Promise<boolean>;
    /** Items left `running` by a crashed worker go back to pending. */
    requeueRunning(jobId: string): Promise<void>;
    errors(jobId: string, limit: number): Promise<IngestError[]>;
    /** The job of a source that is queued or running, if any. */
    activeForSource(sourceId: string): Promise<IngestJobRecord | null>;
  };
  /**
   * Text added through the legacy custom-content route, kept under its document's key. `visible`
   * is the texts, oldest first, whose document exists or whose job has not finished yet.
   */
  customContents: {
    insert(row: {
      documentKey: string;
      chatbotId: string;
      sourceId: string;
      jobId: string;
      text: string;
      createdAt: string;
    }): Promise<void>;
    visible(chatbotId: string): Promise<string[]>;
  };
  /** Uploaded files, stored and read in pieces so a file is never held whole by storage. */
  blobs: {
    /** Stores a file's bytes as they come; all or nothing (a failed insert leaves no blob). */
    insert(
      blob: { id: string; chatbotId: string; name: string },
      bytes: AsyncIterable<Uint8Array>,
    ): Promise<{ size: number }>;
    /** The file's name and size, and its bytes one stored piece at a time (throws if a piece is missing). */
    get(id: string): Promise<StoredBlob | null>;
    delete(ids: string[]): Promise<void>;
    /** Deletes blobs stored before `before` that no ingest item refers to (their request died); returns how many. */
    deleteUnclaimed(before: string): Promise<number>;
  };
}

/** A durable background job queue (embedded: a polled table; scale-out: bullmq). */
export interface JobQueue {
  /**
   * `accountId`/`chatbotId`: whose work it is, for fair turns between accounts and their concurrency limits.
   * `within`: the Store (domain/ports.ts; not named here, it imports this file) of the transaction
   * that makes the change the job belongs to: the job exists exactly when that change committed
   * (written apart, a crash between the two writes loses the job and wedges what waits on it).
   */
  enqueue(
    name: string,
    payload: Record<string, unknown>,
    options?: {
      delayMs?: number;
      maxAttempts?: number;
      accountId?: string | null;
      chatbotId?: string | null;
      within?: object;
    },
  ): Promise<string>;
  /**
   * Registers the handler of a job name; a throw retries with backoff until maxAttempts. `signal`
   * aborts when the process stops: a handler that then throws is put back without using an attempt.
   * `stopping` aborts first, on a graceful stop: finish the step in hand, start no other, then throw.
   */
  handle(
    name: string,
    handler: (
      payload: Record<string, unknown>,
      job: { id: string; attempt: number; signal: AbortSignal; stopping?: AbortSignal },
    ) => Promise<void>,
    options?: {
      /**
       * Called once when the queue gives the job up (`error` says why): its last attempt threw, or
       * the process running it died during every attempt (then the handler does not run again).
       */
      onFailed?: (payload: Record<string, unknown>, error: string) => Promise<void>;
    },
  ): void;
  start(): void;
  /** Stops taking jobs and waits for running ones. */
  stop(): Promise<void>;
  /** Resolves when no job is queued or running (tests, CLI). */
  drain(timeoutMs?: number): Promise<void>;
}

/** Text -> vectors, from an OpenAI-compatible `/embeddings` endpoint (see embeddings.ts). */
export interface EmbeddingsPort {
  /** One vector per text, in order, each `dimensions` long. */
  embed(texts: string[]): Promise<number[][]>;
  dimensions: number;
  model: string;
}

/**
 * Chunk vectors of one embedding space (model + dimensions). Rows follow their chunk: replacing
 * or deleting chunks (a document, a chatbot) removes their vectors in the same statement.
 */
export interface VectorIndexPort {
  /** Stores (or replaces) the vectors of these chunks; the chunks must exist. */
  upsert(chunkIds: number[], vectors: number[][]): Promise<void>;
  delete(chunkIds: number[]): Promise<void>;
  /** The chatbot's `n` closest chunks, nearest first; distance is cosine distance (0 = same direction). */
  nearest(chatbotId: string, vector: number[], n: number): Promise<{ chunkId: number; distance: number }[]>;
  /** How many chunks of the chatbot have a vector in this space. */
  count(chatbotId: string): Promise<number>;
}
