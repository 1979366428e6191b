/** The KnowledgeStore's ingest jobs and their items: the durable crawl frontier. */
import { type Kysely, type Selectable, sql } from 'kysely';
import type { IngestItem, IngestJobRecord, ItemStatus, JobStatus, KnowledgeStore } from '../domain/knowledge/ports.js';
import type { Dialect } from './dialects/dialect.js';
import { keysetPage } from './keyset.js';
import { BATCH, columns, json, now } from './knowledge-rows.js';
import type { Database, IngestItemsTable, IngestJobsTable } from './tables.js';

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
      return keysetPage(
        db.selectFrom('ingest_jobs').selectAll().where('chatbot_id', '=', chatbotId),
        page,
        toJob,
        'ingest_jobs',
      );
    },
    async updateJob(id, patch) {
      const set = columns(
        patch,
        {
          status: 'status',
          error: 'error',
          startedAt: 'started_at',
          finishedAt: 'finished_at',
          cancelRequested: 'cancel_requested',
        },
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
            .where(
              'key',
              'in',
              batch.map((item) => item.key),
            )
            .execute();
          const skip = new Set(known.map((r) => r.key));
          const rows = batch
            .filter((item) => !skip.has(item.key))
            .map((item) => ({
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
    async finishItem(jobId, key, status, error) {
      const r = await db
        .updateTable('ingest_items')
        .set({ status, error, updated_at: now() })
        .where('job_id', '=', jobId)
        .where('key', '=', key)
        .where('status', 'in', ['pending', 'running'])
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
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
