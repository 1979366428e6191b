/** Knowledge: sources, documents, chunks, ingest jobs and items, blobs, upload leases, the queue's jobs, custom contents. */
import type { Generated } from 'kysely';

export interface SourcesTable {
  id: string;
  chatbot_id: string;
  account_id: string;
  type: string;
  /** Dedupe key within (chatbot, type): the start URL, sitemap URL, base URL; '' for singletons. */
  key: string;
  name: string;
  config: string; // JSON
  credentials: string | null; // encrypted (AES-256-GCM), never returned
  status: string;
  last_error: string | null;
  last_sync_at: string | null;
  sync_interval_minutes: number | null;
  next_sync_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DocumentsTable {
  id: string;
  chatbot_id: string;
  source_id: string;
  /** Dedupe key within the chatbot: normalised URL, `file:<sha256>`, `text:<id>`, `confluence:<page id>`. */
  key: string;
  url: string | null;
  title: string;
  kind: string;
  status: string;
  content_hash: string | null;
  chars: Generated<number>;
  chunk_count: Generated<number>;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface ChunksTable {
  id: Generated<number>;
  document_id: string;
  chatbot_id: string;
  idx: number;
  title: string;
  /** Heading path joined with ' > '. */
  heading: string;
  text: string;
  location: string; // JSON {page?, startSeconds?, textFragment, headingPath}
  token_count: number;
  /** SQLite only (migration 0011): the chunk's extra tokens for chunks_fts (word pairs, title/heading words). */
  extra: Generated<string>;
}

/** Questions a chunk answers (migration 0026), a JSON array: follow-up suggestions. */
export interface ChunkQuestionsTable {
  chunk_id: number;
  chatbot_id: string;
  questions: string;
}

export interface IngestJobsTable {
  id: string;
  chatbot_id: string;
  source_id: string;
  trigger: string;
  status: string;
  found: Generated<number>;
  done: Generated<number>;
  failed: Generated<number>;
  skipped: Generated<number>;
  options: string; // JSON
  error: string | null;
  cancel_requested: Generated<number>;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface IngestItemsTable {
  job_id: string;
  key: string;
  seq: number;
  depth: Generated<number>;
  status: string;
  payload: string | null;
  blob_id: string | null;
  error: string | null;
  updated_at: string;
}

/** An uploaded file's metadata; its bytes are `blob_parts`, in order of `seq` (migration 0017). */
export interface BlobsTable {
  id: string;
  chatbot_id: string;
  name: string;
  size: number;
  created_at: string;
}

export interface BlobPartsTable {
  blob_id: string;
  seq: number;
  bytes: Buffer;
}

/** One upload in progress of an account, on any instance; `expires_at` passes when its process died. */
export interface UploadLeasesTable {
  id: string;
  account_id: string;
  expires_at: string;
}

export interface JobsTable {
  id: string;
  name: string;
  payload: string;
  status: string;
  attempts: Generated<number>;
  max_attempts: number;
  run_at: string;
  lease_until: string | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
  /** Whose work it is (fair turns and per-account limits); null: no account's. */
  account_id: string | null;
  chatbot_id: string | null;
}

/** Text added through the legacy v0 custom-content route, kept for the v0 Chatbot (0025). */
export interface CustomContentsTable {
  document_key: string;
  chatbot_id: string;
  source_id: string;
  job_id: string;
  text: string;
  created_at: string;
}

export interface KnowledgeDatabase {
  sources: SourcesTable;
  custom_contents: CustomContentsTable;
  documents: DocumentsTable;
  chunks: ChunksTable;
  chunk_questions: ChunkQuestionsTable;
  ingest_jobs: IngestJobsTable;
  ingest_items: IngestItemsTable;
  blobs: BlobsTable;
  blob_parts: BlobPartsTable;
  upload_leases: UploadLeasesTable;
  jobs: JobsTable;
}
