/** The knowledge shapes the v2 API returns (server/routes/v2/knowledge-schemas.ts). */
export interface Source {
  id: string;
  type: 'links' | 'website' | 'sitemap' | 'youtube' | 'text' | 'files' | 'confluence';
  name: string;
  status: 'idle' | 'syncing' | 'ready' | 'error';
  documentCount: number;
  lastSyncAt: string | null;
  nextSyncAt: string | null;
  syncIntervalMinutes: number | null;
  lastError: string | null;
}

export interface Job {
  id: string;
  sourceId: string;
  trigger: 'add' | 'resync' | 'schedule';
  status: 'queued' | 'running' | 'succeeded' | 'partially_succeeded' | 'failed' | 'cancelled';
  counts: { found: number; done: number; failed: number; skipped: number };
  errors: { url: string; error: string }[];
  error: string | null;
  cancelRequested: boolean;
  createdAt: string;
  finishedAt: string | null;
}

export interface Doc {
  id: string;
  sourceId: string;
  title: string;
  url: string | null;
  kind: string;
  status: 'pending' | 'indexed' | 'failed' | 'skipped';
  chars: number;
  chunkCount: number;
  error: string | null;
  updatedAt: string;
}

export interface Chunk {
  index: number;
  headingPath: string[];
  text: string;
  tokenCount: number;
  location: { page?: number; startSeconds?: number; url?: string | null };
}

export interface UploadLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
  types: string[];
}

export interface Started {
  job: Job;
  source: Source;
  alreadyRunning?: boolean;
}

export const isActive = (j: Job) => j.status === 'queued' || j.status === 'running';
