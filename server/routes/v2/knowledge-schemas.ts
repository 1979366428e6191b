/** The shapes of knowledge in `data`: sources, documents, ingest jobs, Confluence spaces and pages. */
import Type from 'typebox';
import { nullable } from './resource-schemas.js';
import { Time } from './schemas.js';

export const SourceSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.String({ description: 'links, website, sitemap, youtube, text, files or confluence' }),
    name: Type.String(),
    status: Type.String({ description: 'idle, syncing, ready or error' }),
    documentCount: Type.Integer(),
    lastSyncAt: nullable(Time),
    nextSyncAt: nullable(Time),
    syncIntervalMinutes: nullable(Type.Integer()),
    lastError: nullable(Type.String()),
    config: Type.Record(Type.String(), Type.Unknown(), {
      description: 'What the source was added with (start URL, limits, selection); never credentials',
    }),
    hasCredentials: Type.Boolean({ description: 'Credentials are stored (they are never returned)' }),
    createdAt: Time,
    updatedAt: Time,
  },
  { title: 'Source' },
);

export const DocumentSchema = Type.Object(
  {
    id: Type.String(),
    sourceId: Type.String(),
    title: Type.String(),
    url: nullable(Type.String()),
    kind: Type.String(),
    status: Type.String({ description: 'pending, indexed, failed or skipped' }),
    chars: Type.Integer(),
    chunkCount: Type.Integer(),
    error: nullable(Type.String()),
    createdAt: Time,
    updatedAt: Time,
  },
  { title: 'Document' },
);

export const PassageSchema = Type.Object(
  {
    documentId: Type.String(),
    title: Type.String({ description: "The document's title" }),
    url: nullable(Type.String({ description: 'The page the passage comes from, when it has one' })),
    headingPath: Type.Array(Type.String(), { description: 'The headings above the passage, outermost first' }),
    text: Type.String(),
    score: Type.Number({ description: 'Higher is better; comparable only within one result list' }),
  },
  { title: 'Passage' },
);

export const ChunkSchema = Type.Object(
  {
    index: Type.Integer({ description: 'Position in the document, from 0' }),
    headingPath: Type.Array(Type.String(), { description: 'The headings the chunk sits under' }),
    text: Type.String(),
    tokenCount: Type.Integer(),
    location: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Where it is in the source: url, headingPath, page (PDF), startSeconds (video), textFragment',
    }),
  },
  { title: 'Chunk' },
);

export const UploadLimitsSchema = Type.Object(
  {
    maxFiles: Type.Integer({ description: 'Files in one upload' }),
    maxFileBytes: Type.Integer({ description: 'Size of each file (FILE_MAX_BYTES)' }),
    maxTotalBytes: Type.Integer({ description: 'All files of one upload together (UPLOAD_MAX_TOTAL_BYTES)' }),
    types: Type.Array(Type.String(), { description: 'Accepted kinds, decided by content' }),
  },
  { title: 'UploadLimits' },
);

export const JobSchema = Type.Object(
  {
    id: Type.String(),
    sourceId: Type.String(),
    trigger: Type.String({ description: 'add, resync or schedule' }),
    status: Type.String(),
    counts: Type.Object({
      found: Type.Integer(),
      done: Type.Integer(),
      failed: Type.Integer(),
      skipped: Type.Integer(),
    }),
    errors: Type.Array(Type.Object({ url: Type.String(), error: Type.String() }), {
      description: 'Per-URL failures (at most 100)',
    }),
    error: nullable(Type.String()),
    cancelRequested: Type.Boolean(),
    createdAt: Time,
    startedAt: nullable(Time),
    finishedAt: nullable(Time),
  },
  { title: 'Job' },
);

/** `data` of a request that starts (or hands back) an ingest job. */
export const StartedJob = Type.Object({
  job: JobSchema,
  source: SourceSchema,
  alreadyRunning: Type.Optional(
    Type.Boolean({ description: 'true: a job of this source was already queued or running, and this is it' }),
  ),
});

export const ConfluenceSpaceSchema = Type.Object(
  {
    key: Type.String(),
    name: Type.String(),
    type: Type.String(),
    url: nullable(Type.String()),
    imported: Type.Boolean(),
  },
  { title: 'ConfluenceSpace' },
);

export const ConfluencePageSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    spaceKey: nullable(Type.String()),
    url: nullable(Type.String()),
    version: nullable(Type.Integer()),
    updatedAt: nullable(Type.String({ description: "Confluence's own last-modified time, as it gives it" })),
    imported: Type.Boolean(),
  },
  { title: 'ConfluencePage' },
);
