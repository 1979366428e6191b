/**
 * A crawl survives its process: stopped mid-job (graceful close: the queue puts the job back)
 * or killed (the queue row left running under a lease nobody renews, items left running), a new
 * app on the same DATA_DIR and database finishes the job, fetching no page twice once it was done.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openDatabase } from '../../../../server/storage/dialects/index.js';
import { knowledgeApp, para, waitFor, type KnowledgeApp } from '../../../helpers/knowledge-http.js';
import { page, serveSite, type TestSite } from '../../../helpers/site.js';

const PAGES = Array.from({ length: 16 }, (_, i) => `/p/${i}`);
const ENV = { ALLOW_PRIVATE_FETCH: '1' };

let dataDir: string;
let site: TestSite;
const apps: KnowledgeApp[] = [];

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'parley-restart-'));
  site = await serveSite();
  site.set('/', page('Home', para('the home page'), PAGES));
  // Staggered answers (150 ms, 175 ms, ...) so the pages of one batch finish one by one.
  PAGES.forEach((p, i) =>
    site.set(p, (_req: IncomingMessage, res: ServerResponse) => {
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'text/html' }).end(page(`Page ${i}`, para(`slow page number ${i}`))),
        150 + i * 25,
      );
    }),
  );
});
afterEach(async () => {
  for (const k of apps.splice(0)) await k.t.close().catch(() => undefined);
  await site.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startCrawl() {
  const first = await knowledgeApp({ dataDir, env: ENV });
  apps.push(first);
  const res = await first.t.call('POST', `${first.base}/knowledge/website`, first.token, { url: `${site.url}/` });
  expect(res.status).toBe(202);
  const jobId = res.body.data.job.id as string;
  await waitFor(async () => (await first.job(jobId)).counts.done >= 4, 20_000, 'a few pages done');
  return { first, jobId };
}

/** The database file as the stopped app left it, read (and changed) by hand. */
async function withDatabase<T>(fn: (db: ReturnType<typeof openDatabase>['db']) => Promise<T>): Promise<T> {
  const database = openDatabase({ sqlitePath: join(dataDir, 'test.db') });
  try {
    return await fn(database.db);
  } finally {
    await database.close();
  }
}

const pathOf = (url: string) => new URL(url).pathname;

async function finishAndCheck(
  chatbotId: string,
  jobId: string,
  doneBefore: string[],
  env: Record<string, string> = {},
) {
  const second = await knowledgeApp({ dataDir, chatbotId, env: { ...ENV, ...env } });
  apps.push(second);
  await second.settle();
  const job = await second.job(jobId);
  expect(job.status).toBe('succeeded');
  expect(job.counts).toEqual({ found: PAGES.length + 1, done: PAGES.length + 1, failed: 0, skipped: 0 });
  expect(job.errors).toEqual([]);
  // Every page once, as one document.
  const docs = await second.documents();
  expect(docs.map((d) => pathOf(d.url!)).sort()).toEqual(['/', ...PAGES].sort());
  // No page that was done before the stop was fetched again; every page was fetched.
  for (const p of doneBefore) expect(site.hits.get(p), p).toBe(1);
  for (const p of ['/', ...PAGES]) expect(site.hits.get(p), p).toBeGreaterThanOrEqual(1);
  const source = (await second.t.call('GET', `${second.base}/knowledge/sources/${job.sourceId}`, second.token)).body
    .data.source;
  expect(source).toMatchObject({ status: 'ready', documentCount: PAGES.length + 1 });
  return second;
}

describe('a crawl across a restart', () => {
  test('graceful stop mid-job: the job goes back to the queue and a new app finishes it, no done page fetched twice', async () => {
    const { first, jobId } = await startCrawl();
    await first.t.close();

    const { doneBefore, queueRow, jobRow, left } = await withDatabase(async (db) => ({
      doneBefore: (
        await db
          .selectFrom('ingest_items')
          .select('key')
          .where('job_id', '=', jobId)
          .where('status', '=', 'done')
          .execute()
      ).map((r) => pathOf(r.key)),
      left: (
        await db
          .selectFrom('ingest_items')
          .select('key')
          .where('job_id', '=', jobId)
          .where('status', '!=', 'done')
          .execute()
      ).length,
      queueRow: await db
        .selectFrom('jobs')
        .selectAll()
        .where('name', '=', 'knowledge.ingest')
        .executeTakeFirstOrThrow(),
      jobRow: await db
        .selectFrom('ingest_jobs')
        .select(['status', 'found', 'done', 'failed'])
        .where('id', '=', jobId)
        .executeTakeFirstOrThrow(),
    }));
    expect(doneBefore.length).toBeGreaterThanOrEqual(4);
    expect(left).toBeGreaterThan(0);
    // Put back, not failed: queued again, the interrupted attempt not counted, nothing marked failed.
    expect(queueRow).toMatchObject({ status: 'queued', lease_until: null });
    expect(Number(queueRow.attempts)).toBe(0);
    expect(jobRow).toMatchObject({ status: 'running', failed: 0 });

    await finishAndCheck(first.chatbotId, jobId, doneBefore);
  });

  test('killed mid-job (queue row running under a lease nobody renews, items running): a new app takes it over once the lease expires', async () => {
    const { first, jobId } = await startCrawl();
    await first.t.close();

    // Turn the graceful stop into what a killed process leaves behind.
    const doneBefore = await withDatabase(async (db) => {
      const done = (
        await db
          .selectFrom('ingest_items')
          .select('key')
          .where('job_id', '=', jobId)
          .where('status', '=', 'done')
          .execute()
      ).map((r) => pathOf(r.key));
      const pending = await db
        .selectFrom('ingest_items')
        .select('key')
        .where('job_id', '=', jobId)
        .where('status', 'in', ['pending', 'running'])
        .orderBy('seq')
        .execute();
      expect(pending.length).toBeGreaterThan(2);
      await db
        .updateTable('ingest_items')
        .set({ status: 'running' })
        .where('job_id', '=', jobId)
        .where(
          'key',
          'in',
          pending.slice(0, 2).map((r) => r.key),
        )
        .execute();
      const claimed = await db
        .updateTable('jobs')
        .set({
          status: 'running',
          locked_by: 'killed-worker',
          attempts: 1,
          lease_until: new Date(Date.now() + 300).toISOString(),
        })
        .where('name', '=', 'knowledge.ingest')
        .executeTakeFirst();
      expect(Number(claimed.numUpdatedRows)).toBe(1);
      await db.updateTable('ingest_jobs').set({ status: 'running' }).where('id', '=', jobId).execute();
      return done;
    });

    // The dead worker's lease (300 ms, above) lapses by itself; the new app's own lease must outlast
    // an event-loop stall of a loaded machine, or its second worker would take the job over again.
    await finishAndCheck(first.chatbotId, jobId, doneBefore, { QUEUE_LEASE_MS: '3000' });
    const row = await withDatabase((db) =>
      db
        .selectFrom('jobs')
        .select(['status', 'locked_by', 'attempts'])
        .where('name', '=', 'knowledge.ingest')
        .executeTakeFirstOrThrow(),
    );
    expect(row.status).toBe('done');
    expect(row.locked_by).not.toBe('killed-worker');
    expect(Number(row.attempts)).toBe(2);
  });
});
