/**
 * The KnowledgeStore port: sources, documents, ingest jobs with their items (the durable crawl
 * frontier) and uploaded blobs. Chunks and their full-text index live in chunks.repository.ts.
 * Every function works on `db` as given, so a Store built on a transaction stays inside it.
 */
import { type Kysely, type Selectable, sql } from 'kysely';
import type {
  DocumentRecord,
  DocumentStatus,
  IngestItem,
  IngestJobRecord,
  ItemStatus,
  JobStatus,
  KnowledgeStore,
  SourceRecord,
  SourceStatus,
  SourceType,
} from '../domain/knowledge/ports.js';
import { chunksRepository } from './chunks.repository.js';
import type { Dialect } from './dialects/dialect.js';
import { keysetPage } from './keyset.js';
import type { Database, DocumentsTable, IngestItemsTable, IngestJobsTable, SourcesTable } from './tables.js';

/** Rows per multi-row insert: far below SQLite's 32,766 bound variables and PostgreSQL's 65,535. */
const BATCH = 500;

const now = () => new Date().toISOString();
const json = (value: string | null) => (value === null ? null : (JSON.parse(value) as Record<string, unknown>));

/** Patch keys in the domain's terms -> column names; undefined keys are left out of the update. */
function columns<T extends object>(patch: T, names: { [K in keyof T]?: string }, encode: { [K in keyof T]?: (v: T[K]) => unknown } = {}) {
  const set: Record<string, unknown> = {};
  for (const key of Object.keys(patch) as (keyof T)[]) {
    const column = names[key];
    if (column === undefined || patch[key] === undefined) continue;
    const fn = encode[key];
    set[column] = fn ? fn(patch[key]) : patch[key];
  }
  return set;
}

const toSource = (r: Selectable<SourcesTable>): SourceRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  accountId: r.account_id,
  type: r.type as SourceType,
  key: r.key,
  name: r.name,
  config: JSON.parse(r.config) as Record<string, unknown>,
  credentials: r.credentials,
  status: r.status as SourceStatus,
  lastError: r.last_error,
  lastSyncAt: r.last_sync_at,
  syncIntervalMinutes: r.sync_interval_minutes,
  nextSyncAt: r.next_sync_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const SOURCE_COLUMNS = {
  type: 'type',
  key: 'key',
  name: 'name',
  config: 'config',
  credentials: 'credentials',
  status: 'status',
  lastError: 'last_error',
  lastSyncAt: 'last_sync_at',
  syncIntervalMinutes: 'sync_interval_minutes',
  nextSyncAt: 'next_sync_at',
  updatedAt: 'updated_at',
} as const;

export const sourcesRepository = (db: Kysely<Database>): KnowledgeStore['sources'] => ({
  async insert(s) {
    await db
      .insertInto('sources')
      .values({
        id: s.id,
        chatbot_id: s.chatbotId,
        account_id: s.accountId,
        type: s.type,
        key: s.key,
        name: s.name,
        config: JSON.stringify(s.config),
        credentials: s.credentials,
        status: s.status,
        last_error: s.lastError,
        last_sync_at: s.lastSyncAt,
        sync_interval_minutes: s.syncIntervalMinutes,
        next_sync_at: s.nextSyncAt,
        created_at: s.createdAt,
        updated_at: s.updatedAt,
      })
      .execute();
  },
  async get(id) {
    const row = await db.selectFrom('sources').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toSource(row) : null;
  },
  async byKey(chatbotId, type, key) {
    const row = await db
      .selectFrom('sources')
      .selectAll()
      .where('chatbot_id', '=', chatbotId)
      .where('type', '=', type)
      .where('key', '=', key)
      .executeTakeFirst();
    return row ? toSource(row) : null;
  },
  async list(chatbotId) {
    const rows = await db.selectFrom('sources').selectAll().where('chatbot_id', '=', chatbotId).orderBy('created_at').orderBy('id').execute();
    return rows.map(toSource);
  },
  async update(id, patch) {
    const set = columns(patch, SOURCE_COLUMNS, { config: (c) => JSON.stringify(c) });
    if (Object.keys(set).length) await db.updateTable('sources').set(set).where('id', '=', id).execute();
  },
  async due(at) {
    const rows = await db
      .selectFrom('sources')
      .selectAll()
      .where('next_sync_at', 'is not', null)
      .where('next_sync_at', '<=', at)
      .where('sync_interval_minutes', 'is not', null)
      .orderBy('next_sync_at')
      .execute();
    return rows.map(toSource);
  },
  async delete(id) {
    await db.deleteFrom('sources').where('id', '=', id).execute();
  },
});

const toDocument = (r: Selectable<DocumentsTable>): DocumentRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  sourceId: r.source_id,
  key: r.key,
  url: r.url,
  title: r.title,
  kind: r.kind,
  status: r.status as DocumentStatus,
  contentHash: r.content_hash,
  chars: Number(r.chars),
  chunkCount: Number(r.chunk_count),
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const DOCUMENT_COLUMNS = {
  sourceId: 'source_id',
  key: 'key',
  url: 'url',
  title: 'title',
  kind: 'kind',
  status: 'status',
  contentHash: 'content_hash',
  chars: 'chars',
  chunkCount: 'chunk_count',
  error: 'error',
  updatedAt: 'updated_at',
} as const;

export const documentsRepository = (db: Kysely<Database>): KnowledgeStore['documents'] => ({
  async byKey(chatbotId, key) {
    const row = await db.selectFrom('documents').selectAll().where('chatbot_id', '=', chatbotId).where('key', '=', key).executeTakeFirst();
    return row ? toDocument(row) : null;
  },
  async insert(d) {
    await db
      .insertInto('documents')
      .values({
        id: d.id,
        chatbot_id: d.chatbotId,
        source_id: d.sourceId,
        key: d.key,
        url: d.url,
        title: d.title,
        kind: d.kind,
        status: d.status,
        content_hash: d.contentHash,
        chars: d.chars,
        chunk_count: d.chunkCount,
        error: d.error,
        created_at: d.createdAt,
        updated_at: d.updatedAt,
      })
      .execute();
  },
  async update(id, patch) {
    const set = columns(patch, DOCUMENT_COLUMNS);
    if (Object.keys(set).length) await db.updateTable('documents').set(set).where('id', '=', id).execute();
  },
  page(chatbotId, page, filter) {
    let q = db.selectFrom('documents').selectAll().where('chatbot_id', '=', chatbotId);
    if (filter.sourceId !== undefined) q = q.where('source_id', '=', filter.sourceId);
    if (filter.status !== undefined) q = q.where('status', '=', filter.status);
    return keysetPage(q, page, toDocument, 'documents');
  },
  async countBySource(chatbotId) {
    const rows = await db
      .selectFrom('documents')
      .select(['source_id', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('chatbot_id', '=', chatbotId)
      .groupBy('source_id')
      .execute();
    return new Map(rows.map((r) => [r.source_id, Number(r.n)]));
  },
  async many(chatbotId, ids) {
    if (!ids.length) return [];
    const rows: Selectable<DocumentsTable>[] = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      const part = ids.slice(i, i + BATCH);
      rows.push(...(await db.selectFrom('documents').selectAll().where('chatbot_id', '=', chatbotId).where('id', 'in', part).execute()));
    }
    return rows.map(toDocument);
  },
  async delete(ids) {
    // Chunks go by ON DELETE CASCADE; their full-text entries (SQLite trigger, PostgreSQL
    // column) and vectors (trigger / cascade) go with them. Kept custom content has no foreign
    // key to its document (it is kept before the document exists), so it goes here.
    for (let i = 0; i < ids.length; i += BATCH) {
      const keys = db.selectFrom('documents').select('key').where('id', 'in', ids.slice(i, i + BATCH));
      await db.deleteFrom('custom_contents').where('document_key', 'in', keys).execute();
      await db.deleteFrom('documents').where('id', 'in', ids.slice(i, i + BATCH)).execute();
    }
  },
  async countIndexed(accountId) {
    const row = await db
      .selectFrom('documents')
      .innerJoin('chatbots', 'chatbots.id', 'documents.chatbot_id')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('chatbots.account_id', '=', accountId)
      .where('documents.status', '=', 'indexed')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
});

const toJob = (r: Selectable<IngestJobsTable>): IngestJobRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  sourceId: r.source_id,
  trigger: r.trigger as IngestJobRecord['trigger'],
  status: r.status as JobStatus,
  found: Number(r.found),
  done: Number(r.done),
  failed: Number(r.failed),
  skipped: Number(r.skipped),
  options: JSON.parse(r.options) as Record<string, unknown>,
  error: r.error,
  cancelRequested: !!r.cancel_requested,
  createdAt: r.created_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

const toItem = (r: Selectable<IngestItemsTable>): IngestItem => ({
  jobId: r.job_id,
  key: r.key,
  seq: Number(r.seq),
  depth: Number(r.depth),
  status: r.status as ItemStatus,
  payload: json(r.payload),
  blobId: r.blob_id,
  error: r.error,
});

const COUNTERS = ['found', 'done', 'failed', 'skipped'] as const;

export const ingestRepository = (db: Kysely<Database>, dialect: Dialect): KnowledgeStore['ingest'] => {
  /** Runs `fn` in a transaction (or in the caller's, when the store is already on one). */
  const atomically = <T>(fn: (trx: Kysely<Database>) => Promise<T>) =>
    db.isTransaction ? fn(db) : db.transaction().execute(fn);

  return {
    async insertJob(j) {
      await db
        .insertInto('ingest_jobs')
        .values({
          id: j.id,
          chatbot_id: j.chatbotId,
          source_id: j.sourceId,
          trigger: j.trigger,
          status: j.status,
          found: j.found,
          done: j.done,
          failed: j.failed,
          skipped: j.skipped,
          options: JSON.stringify(j.options),
          error: j.error,
          cancel_requested: +j.cancelRequested,
          created_at: j.createdAt,
          started_at: j.startedAt,
          finished_at: j.finishedAt,
        })
        .execute();
    },
    async getJob(id) {
      const row = await db.selectFrom('ingest_jobs').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toJob(row) : null;
    },
    pageJobs(chatbotId, page) {
      return keysetPage(db.selectFrom('ingest_jobs').selectAll().where('chatbot_id', '=', chatbotId), page, toJob, 'ingest_jobs');
    },
    async updateJob(id, patch) {
      const set = columns(
        patch,
        { status: 'status', error: 'error', startedAt: 'started_at', finishedAt: 'finished_at', cancelRequested: 'cancel_requested' },
        { cancelRequested: (v) => +!!v },
      );
      if (Object.keys(set).length) await db.updateTable('ingest_jobs').set(set).where('id', '=', id).execute();
    },
    async addCounts(id, delta) {
      // `found = found + n` in the statement itself: concurrent workers never lose an increment.
      const set: Record<string, unknown> = {};
      for (const name of COUNTERS) {
        const n = delta[name];
        if (n) set[name] = sql`${sql.ref(name)} + ${Math.trunc(n)}`;
      }
      if (Object.keys(set).length) await db.updateTable('ingest_jobs').set(set).where('id', '=', id).execute();
    },
    async addItems(jobId, items) {
      const seen = new Set<string>();
      const fresh = items.filter((i) => !seen.has(i.key) && (seen.add(i.key), true));
      if (!fresh.length) return 0;
      return atomically(async (trx) => {
        // The job row lock serialises concurrent adders on PostgreSQL, so seq stays increasing
        // without gaps from a race; SQLite has one writer at a time anyway.
        await dialect.lockJob(trx, jobId);
        const top = await trx
          .selectFrom('ingest_items')
          .select((eb) => eb.fn.max('seq').as('seq'))
          .where('job_id', '=', jobId)
          .executeTakeFirst();
        let seq = Number(top?.seq ?? 0);
        let inserted = 0;
        const at = now();
        for (let i = 0; i < fresh.length; i += BATCH) {
          // Keys the job already has are left out before numbering, so seq has no gaps.
          const batch = fresh.slice(i, i + BATCH);
          const known = await trx
            .selectFrom('ingest_items')
            .select('key')
            .where('job_id', '=', jobId)
            .where('key', 'in', batch.map((item) => item.key))
            .execute();
          const skip = new Set(known.map((r) => r.key));
          const rows = batch.filter((item) => !skip.has(item.key)).map((item) => ({
            job_id: jobId,
            key: item.key,
            seq: ++seq,
            depth: item.depth,
            status: 'pending',
            payload: item.payload ? JSON.stringify(item.payload) : null,
            blob_id: item.blobId ?? null,
            error: null,
            updated_at: at,
          }));
          if (!rows.length) continue;
          const result = await trx
            .insertInto('ingest_items')
            .values(rows)
            .onConflict((oc) => oc.columns(['job_id', 'key']).doNothing())
            .executeTakeFirst();
          inserted += Number(result.numInsertedOrUpdatedRows ?? 0);
        }
        return inserted;
      });
    },
    async pending(jobId, limit) {
      const rows = await db
        .selectFrom('ingest_items')
        .selectAll()
        .where('job_id', '=', jobId)
        .where('status', '=', 'pending')
        .orderBy('seq')
        .orderBy('key')
        .limit(limit)
        .execute();
      return rows.map(toItem);
    },
    async setItem(jobId, key, status, error) {
      await db
        .updateTable('ingest_items')
        .set({ status, error: error ?? null, updated_at: now() })
        .where('job_id', '=', jobId)
        .where('key', '=', key)
        .execute();
    },
    async requeueRunning(jobId) {
      await db
        .updateTable('ingest_items')
        .set({ status: 'pending', updated_at: now() })
        .where('job_id', '=', jobId)
        .where('status', '=', 'running')
        .execute();
    },
    async errors(jobId, limit) {
      const rows = await db
        .selectFrom('ingest_items')
        .select(['key', 'payload', 'error'])
        .where('job_id', '=', jobId)
        .where('status', '=', 'failed')
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map((r) => {
        const url = json(r.payload)?.url;
        return { url: typeof url === 'string' ? url : r.key, error: r.error ?? 'failed' };
      });
    },
    async activeForSource(sourceId) {
      const row = await db
        .selectFrom('ingest_jobs')
        .selectAll()
        .where('source_id', '=', sourceId)
        .where('status', 'in', ['queued', 'running'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return row ? toJob(row) : null;
    },
  };
};

/** Bytes per stored piece of an upload: what storing or reading a file holds at once. */
export const BLOB_PIECE_BYTES = 1_048_576;

/**
 * Uploaded files in pieces (`blob_parts`, migration 0017): written as the bytes come and read one
 * piece per query, so storing or reading a file never holds more than a piece. No transaction
 * spans the pieces (SQLite's one writer is not held while a file streams in): a blob is only
 * referenced once `insert` has returned, a failed insert deletes what it wrote, and blobs left by
 * a process that died in between are unreferenced and go with `deleteUnclaimed`.
 */
export const blobsRepository = (db: Kysely<Database>): KnowledgeStore['blobs'] => ({
  async insert(b, bytes) {
    await db.insertInto('blobs').values({ id: b.id, chatbot_id: b.chatbotId, name: b.name, size: 0, created_at: now() }).execute();
    let size = 0;
    let seq = 0;
    let held: Buffer[] = [];
    let heldBytes = 0;
    const write = async (piece: Buffer) => {
      await db.insertInto('blob_parts').values({ blob_id: b.id, seq: seq++, bytes: piece }).execute();
    };
    try {
      for await (const chunk of bytes) {
        let rest = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        size += rest.length;
        while (heldBytes + rest.length >= BLOB_PIECE_BYTES) {
          const take = BLOB_PIECE_BYTES - heldBytes;
          await write(Buffer.concat([...held, rest.subarray(0, take)]));
          rest = rest.subarray(take);
          held = [];
          heldBytes = 0;
        }
        if (rest.length) {
          // A copy: the source may reuse its buffer for the next chunk.
          held.push(Buffer.from(rest));
          heldBytes += rest.length;
        }
      }
      if (heldBytes) await write(Buffer.concat(held));
      await db.updateTable('blobs').set({ size }).where('id', '=', b.id).execute();
    } catch (err) {
      await db.deleteFrom('blobs').where('id', '=', b.id).execute().catch(() => undefined);
      throw err;
    }
    return { size };
  },
  async get(id) {
    const row = await db.selectFrom('blobs').select(['id', 'name', 'size']).where('id', '=', id).executeTakeFirst();
    if (!row) return null;
    const size = Number(row.size);
    return {
      id: row.id,
      name: row.name,
      size,
      async *pieces() {
        let read = 0;
        for (let seq = 0; ; seq++) {
          const part = await db.selectFrom('blob_parts').select('bytes').where('blob_id', '=', id).where('seq', '=', seq).executeTakeFirst();
          if (!part) break;
          const piece = Buffer.from(part.bytes);
          read += piece.length;
          yield piece;
        }
        if (read !== size) throw new Error(`The stored file ${id} holds ${read} of its ${size} bytes`);
      },
    };
  },
  async delete(ids) {
    for (let i = 0; i < ids.length; i += BATCH) {
      await db.deleteFrom('blobs').where('id', 'in', ids.slice(i, i + BATCH)).execute();
    }
  },
  async deleteUnclaimed(before) {
    const gone = await db
      .deleteFrom('blobs')
      .where('created_at', '<', before)
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('ingest_items').select('blob_id').whereRef('ingest_items.blob_id', '=', 'blobs.id'))))
      .executeTakeFirst();
    return Number(gone.numDeletedRows);
  },
});

/** The whole KnowledgeStore over one kysely handle (the database or a transaction). */
export function createKnowledgeStore(db: Kysely<Database>, dialect: Dialect): KnowledgeStore {
  return {
    sources: sourcesRepository(db),
    documents: documentsRepository(db),
    chunks: chunksRepository(db, dialect),
    ingest: ingestRepository(db, dialect),
    blobs: blobsRepository(db),
    customContents: customContentsRepository(db),
  };
}

const customContentsRepository = (db: Kysely<Database>): KnowledgeStore['customContents'] => ({
  async insert(row) {
    await db
      .insertInto('custom_contents')
      .values({ document_key: row.documentKey, chatbot_id: row.chatbotId, source_id: row.sourceId, job_id: row.jobId, text: row.text, created_at: row.createdAt })
      .execute();
  },
  async visible(chatbotId) {
    const rows = await db
      .selectFrom('custom_contents as c')
      .leftJoin('documents as d', (j) => j.onRef('d.chatbot_id', '=', 'c.chatbot_id').onRef('d.key', '=', 'c.document_key'))
      .leftJoin('ingest_jobs as j', 'j.id', 'c.job_id')
      .select('c.text')
      .where('c.chatbot_id', '=', chatbotId)
      .where((eb) => eb.or([eb('d.id', 'is not', null), eb('j.status', 'in', ['queued', 'running'])]))
      .orderBy('c.created_at')
      .orderBy('c.document_key')
      .execute();
    return rows.map((r) => r.text);
  },
});
