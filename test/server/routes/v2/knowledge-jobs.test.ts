/**
 * Ingest jobs, sources and documents through the real HTTP API: pagination and its limits,
 * counts that add up, cancelling a running crawl, re-syncing a source, deleting documents (with
 * and without confirmation), list filters, and ids of another chatbot or account.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TestApp } from '../../../helpers/app.js';
import { attach, knowledgeApp, para, waitFor, type KnowledgeApp } from '../../../helpers/knowledge-http.js';
import { page, serveSite, type TestSite } from '../../../helpers/site.js';

let t: TestApp;
let site: TestSite;

beforeAll(async () => {
  site = await serveSite({
    '/a': page('Alpha', para('alpha particles')),
    '/b': page('Beta', para('beta decay')),
    '/gone-later': page('Ephemeral', para('an ephemeral page')),
  });
  t = (await knowledgeApp({ env: { ALLOW_PRIVATE_FETCH: '1' } })).t;
});
afterAll(async () => {
  await t.close();
  await site.close();
});

const bot = () => attach(t);
const count = async (table: 'documents' | 'chunks', chatbotId: string) =>
  Number(
    (
      await t.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('chatbot_id', '=', chatbotId)
        .executeTakeFirstOrThrow()
    ).n,
  );
const addText = async (k: KnowledgeApp, title: string, text: string) => {
  const res = await t.call('POST', `${k.base}/knowledge/text`, k.token, { title, text });
  expect(res.status).toBe(202);
  return res.body.data as { job: { id: string }; source: { id: string } };
};

describe('GET /ingest-jobs', () => {
  test("pages newest first: 50 by default, up to 100; limit 0 or 101 is 400; every job's counts add up", async () => {
    const k = await bot();
    const ids: string[] = [];
    for (let i = 0; i < 52; i++) ids.push((await addText(k, `Note ${i}`, `Note number ${i} about topic${i}.`)).job.id);
    await k.settle();

    const first = await t.call('GET', `${k.base}/ingest-jobs`, k.token);
    expect(first.status).toBe(200);
    expect(first.body.data.jobs).toHaveLength(50);
    expect(first.body.data.pagination.nextCursor).toBeTruthy();
    expect(first.body.data.jobs[0].id).toBe(ids[51]);
    const rest = await t.call(
      'GET',
      `${k.base}/ingest-jobs?cursor=${encodeURIComponent(first.body.data.pagination.nextCursor)}`,
      k.token,
    );
    expect(rest.body.data.jobs.map((j: { id: string }) => j.id)).toEqual([ids[1], ids[0]]);
    expect(rest.body.data.pagination.nextCursor).toBeNull();

    const all = await t.call('GET', `${k.base}/ingest-jobs?limit=100`, k.token);
    expect(all.body.data.jobs).toHaveLength(52);
    for (const job of all.body.data.jobs) {
      expect(job.status).toBe('succeeded');
      expect(job.counts.found).toBe(job.counts.done + job.counts.failed + job.counts.skipped);
    }
    for (const limit of ['0', '101', '-1', 'ten']) {
      const bad = await t.call('GET', `${k.base}/ingest-jobs?limit=${limit}`, k.token);
      expect(bad.status, limit).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  test('counts and the per-URL error list of a job with done, failed and skipped items', async () => {
    const k = await bot();
    site.set('/robots.txt', 'User-agent: *\nDisallow: /blocked\n');
    const res = await t.call('POST', `${k.base}/knowledge/links`, k.token, {
      urls: [`${site.url}/a`, `${site.url}/missing`, `${site.url}/blocked`, 'http://127.0.0.1:1/refused'],
    });
    expect(res.status).toBe(202);
    await k.settle();
    const job = await k.job(res.body.data.job.id);
    expect(job.counts).toEqual({ found: 4, done: 1, failed: 2, skipped: 1 });
    expect(job.errors.map((e) => e.url).sort()).toEqual([`${site.url}/missing`, 'http://127.0.0.1:1/refused'].sort());
    expect(job.errors.find((e) => e.url === `${site.url}/missing`)!.error).toMatch(/404/);
    // Nothing listens on port 1: the connection is refused (robots.txt first, so the page is not tried).
    expect(job.errors.find((e) => e.url === 'http://127.0.0.1:1/refused')!.error).toMatch(/^NETWORK: /);
    expect(site.hits.get('/blocked')).toBeUndefined();
    site.set('/robots.txt', 'User-agent: *\nAllow: /\n');
  });
});

describe('cancelling a job', () => {
  test('a running crawl of a slow site stops: status cancelled, and no page is fetched after', async () => {
    const k = await bot();
    const slow = await serveSite();
    try {
      const paths = Array.from({ length: 30 }, (_, i) => `/p/${i}`);
      slow.set('/', page('Home', para('a slow home page'), paths));
      const delayed = (html: string) => (_req: IncomingMessage, res: ServerResponse) => {
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(html), 150);
      };
      for (const p of paths) slow.set(p, delayed(page(`Page ${p}`, para(`slow page ${p}`))));
      const res = await t.call('POST', `${k.base}/knowledge/website`, k.token, { url: `${slow.url}/` });
      const jobId = res.body.data.job.id as string;
      await waitFor(async () => (await k.job(jobId)).counts.done >= 3, 20_000, 'a few pages done');
      // A re-sync while the source's job runs returns that job rather than starting another.
      const again = await t.call('POST', `${k.base}/knowledge/sources/${res.body.data.source.id}/sync`, k.token);
      expect(again.status).toBe(202);
      expect(again.body.data).toMatchObject({ alreadyRunning: true, job: { id: jobId, status: 'running' } });

      const cancel = await t.call('POST', `${k.base}/ingest-jobs/${jobId}/cancel`, k.token);
      expect(cancel.status).toBe(200);
      expect(cancel.body.data.job).toMatchObject({ id: jobId, cancelRequested: true });
      expect(['running', 'cancelled']).toContain(cancel.body.data.job.status);
      await k.settle();

      const job = await k.job(jobId);
      expect(job.status).toBe('cancelled');
      const fetched = paths.filter((p) => slow.hits.has(p)).length;
      expect(fetched).toBeLessThan(paths.length);
      expect(job.counts.done + job.counts.failed + job.counts.skipped).toBeLessThan(job.counts.found);
      // Nothing more arrives once the job says cancelled (longer than one page takes).
      const snapshot = JSON.stringify([...slow.hits]);
      await new Promise((r) => setTimeout(r, 500));
      expect(JSON.stringify([...slow.hits])).toBe(snapshot);
      expect((await k.job(jobId)).counts).toEqual(job.counts);
      // The documents already indexed stay; the source is ready again.
      expect((await k.documents()).length).toBe(job.counts.done);
      const source = (await t.call('GET', `${k.base}/knowledge/sources/${job.sourceId}`, k.token)).body.data.source;
      expect(source.status).toBe('ready');
    } finally {
      await slow.close();
    }
  });

  test('cancelling a finished job changes nothing', async () => {
    const k = await bot();
    const { job } = await addText(k, 'Done', 'Already finished.');
    await k.settle();
    const res = await t.call('POST', `${k.base}/ingest-jobs/${job.id}/cancel`, k.token);
    expect(res.status).toBe(200);
    expect(res.body.data.job).toMatchObject({ status: 'succeeded', cancelRequested: false });
  });
});

describe('re-syncing a source', () => {
  test('links: a new job re-fetches every document; unchanged pages keep their documents', async () => {
    const k = await bot();
    const first = await t.call('POST', `${k.base}/knowledge/links`, k.token, {
      urls: [`${site.url}/a`, `${site.url}/b`],
    });
    await k.settle();
    const before = await k.documents();
    const hitsA = site.hits.get('/a')!;

    const sync = await t.call('POST', `${k.base}/knowledge/sources/${first.body.data.source.id}/sync`, k.token);
    expect(sync.status).toBe(202);
    const job = sync.body.data.job;
    expect(job.id).not.toBe(first.body.data.job.id);
    expect(job).toMatchObject({ trigger: 'resync', sourceId: first.body.data.source.id, counts: { found: 2 } });
    await k.settle();
    expect((await k.job(job.id)).counts).toEqual({ found: 2, done: 2, failed: 0, skipped: 0 });
    expect(site.hits.get('/a')).toBe(hitsA + 1);
    expect((await k.documents()).map((d) => d.id).sort()).toEqual(before.map((d) => d.id).sort());
    const jobs = (await t.call('GET', `${k.base}/ingest-jobs`, k.token)).body.data.jobs.map(
      (j: { id: string }) => j.id,
    );
    expect(jobs).toEqual([job.id, first.body.data.job.id]);
  });

  test('website: re-sync crawls again from the start URL as a new job', async () => {
    const k = await bot();
    const s = await serveSite({
      '/': page('Root', para('the root'), ['/leaf']),
      '/leaf': page('Leaf', para('a leaf')),
    });
    try {
      const first = await t.call('POST', `${k.base}/knowledge/website`, k.token, { url: `${s.url}/` });
      await k.settle();
      s.set('/new', page('New', para('a new page')));
      s.set('/', page('Root', para('the root'), ['/leaf', '/new']));
      const sync = await t.call('POST', `${k.base}/knowledge/sources/${first.body.data.source.id}/sync`, k.token);
      expect(sync.status).toBe(202);
      await k.settle();
      expect((await k.job(sync.body.data.job.id)).counts).toEqual({ found: 3, done: 3, failed: 0, skipped: 0 });
      expect((await k.documents()).map((d) => d.title).sort()).toEqual(['Leaf', 'New', 'Root']);
    } finally {
      await s.close();
    }
  });

  test('text and file sources have nothing to re-sync from: 400', async () => {
    const k = await bot();
    const { source } = await addText(k, 'Memo', 'A memo.');
    await k.settle();
    const res = await t.call('POST', `${k.base}/knowledge/sources/${source.id}/sync`, k.token);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('documents', () => {
  test('POST /documents/delete needs confirm: without it 400 CONFIRMATION_REQUIRED and nothing removed; body or query confirm removes documents and their chunks', async () => {
    const k = await bot();
    const texts = ['zebra crossings', 'quokka habitats', 'narwhal tusks'];
    for (const x of texts) await addText(k, x, `# ${x}\n\nEverything about ${x} in one short note.`);
    await k.settle();
    const docs = await k.documents();
    const byTitle = Object.fromEntries(docs.map((d) => [d.title, d.id]));
    const rowCounts = async () => [await count('documents', k.chatbotId), await count('chunks', k.chatbotId)];
    const before = await rowCounts();
    expect(before[0]).toBe(3);
    expect(before[1]).toBeGreaterThanOrEqual(3);

    for (const body of [
      { documentIds: [byTitle['zebra crossings']] },
      { documentIds: [byTitle['zebra crossings']], confirm: false },
    ]) {
      const refused = await t.call('POST', `${k.base}/documents/delete`, k.token, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('CONFIRMATION_REQUIRED');
    }
    const falseQuery = await t.call('POST', `${k.base}/documents/delete?confirm=false`, k.token, {
      documentIds: [byTitle['zebra crossings']],
    });
    expect(falseQuery.status).toBe(400);
    expect(await rowCounts()).toEqual(before);

    const search = (q: string) => t.app.services.store.knowledge.chunks.searchLexical(k.chatbotId, q, 5);
    expect(await search('zebra')).toHaveLength(1);
    const viaBody = await t.call('POST', `${k.base}/documents/delete`, k.token, {
      documentIds: [byTitle['zebra crossings'], 'no-such-document'],
      confirm: true,
    });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.data.deletedDocuments.map((d: { id: string }) => d.id)).toEqual([byTitle['zebra crossings']]);
    expect(viaBody.body.data.notFound).toEqual(['no-such-document']);
    expect(await search('zebra')).toEqual([]);

    const viaQuery = await t.call('POST', `${k.base}/documents/delete?confirm=true`, k.token, {
      documentIds: [byTitle['quokka habitats']],
    });
    expect(viaQuery.status).toBe(200);
    expect(await search('quokka')).toEqual([]);
    expect(await search('narwhal')).toHaveLength(1);
    const after = await rowCounts();
    expect(after[0]).toBe(1);
    expect(after[1]).toBe(await count('chunks', k.chatbotId));
    expect((await k.documents()).map((d) => d.title)).toEqual(['narwhal tusks']);
  });

  test('GET /documents filters by sourceId and status; GET /knowledge/sources/{id} and its documents', async () => {
    const k = await bot();
    const links = await t.call('POST', `${k.base}/knowledge/links`, k.token, {
      urls: [`${site.url}/a`, `${site.url}/b`],
    });
    const text = await addText(k, 'Standalone', 'A note of its own.');
    await k.settle();
    const linksSource = links.body.data.source.id as string;

    expect((await k.documents({ sourceId: linksSource })).map((d) => d.title).sort()).toEqual(['Alpha', 'Beta']);
    expect((await k.documents({ sourceId: text.source.id })).map((d) => d.title)).toEqual(['Standalone']);
    expect(await k.documents({ sourceId: 'no-such-source' })).toEqual([]);
    expect(await k.documents({ status: 'indexed' })).toHaveLength(3);
    expect(await k.documents({ status: 'failed' })).toEqual([]);
    expect(await k.documents({ sourceId: linksSource, status: 'indexed' })).toHaveLength(2);
    const bad = await t.call('GET', `${k.base}/documents?status=bogus`, k.token);
    expect(bad.status).toBe(400);
    for (const limit of ['0', '101'])
      expect((await t.call('GET', `${k.base}/documents?limit=${limit}`, k.token)).status).toBe(400);

    // Paging with a filter.
    const one = await t.call('GET', `${k.base}/documents?sourceId=${linksSource}&limit=1`, k.token);
    expect(one.body.data.documents).toHaveLength(1);
    const two = await t.call(
      'GET',
      `${k.base}/documents?sourceId=${linksSource}&limit=1&cursor=${encodeURIComponent(one.body.data.pagination.nextCursor)}`,
      k.token,
    );
    expect(two.body.data.documents).toHaveLength(1);
    expect(two.body.data.documents[0].id).not.toBe(one.body.data.documents[0].id);

    const source = await t.call('GET', `${k.base}/knowledge/sources/${linksSource}`, k.token);
    expect(source.status).toBe(200);
    expect(source.body.data.source).toMatchObject({
      id: linksSource,
      type: 'links',
      status: 'ready',
      documentCount: 2,
      hasCredentials: false,
    });
    expect(source.body.data.source.lastSyncAt).toBeTruthy();
    expect(source.body.data.source).not.toHaveProperty('credentials');
    const sourceDocs = await t.call('GET', `${k.base}/knowledge/sources/${linksSource}/documents`, k.token);
    expect(sourceDocs.body.data.documents.map((d: { title: string }) => d.title).sort()).toEqual(['Alpha', 'Beta']);
    for (const limit of ['0', '101']) {
      expect(
        (await t.call('GET', `${k.base}/knowledge/sources/${linksSource}/documents?limit=${limit}`, k.token)).status,
      ).toBe(400);
    }
    const sources = (await t.call('GET', `${k.base}/knowledge/sources`, k.token)).body.data.sources;
    expect(sources.map((s: { type: string; documentCount: number }) => [s.type, s.documentCount]).sort()).toEqual([
      ['links', 2],
      ['text', 1],
    ]);
  });
});

describe('DELETE /knowledge/sources/{id}', () => {
  test('needs ?confirm=true; then the source, its documents and their chunks are gone', async () => {
    const k = await bot();
    const res = await t.call('POST', `${k.base}/knowledge/links`, k.token, {
      urls: [`${site.url}/a`, `${site.url}/b`],
    });
    await k.settle();
    const sourceId = res.body.data.source.id as string;
    const refused = await t.call('DELETE', `${k.base}/knowledge/sources/${sourceId}`, k.token);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('CONFIRMATION_REQUIRED');
    expect(await count('documents', k.chatbotId)).toBe(2);
    const deleted = await t.call('DELETE', `${k.base}/knowledge/sources/${sourceId}?confirm=true`, k.token);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.deletedSource).toMatchObject({ id: sourceId, documentCount: 2 });
    expect([await count('documents', k.chatbotId), await count('chunks', k.chatbotId)]).toEqual([0, 0]);
    expect((await t.call('GET', `${k.base}/knowledge/sources/${sourceId}`, k.token)).status).toBe(404);
    expect((await t.call('GET', `${k.base}/knowledge/sources`, k.token)).body.data.sources).toEqual([]);
  });
});

describe("another chatbot's or account's ids", () => {
  test('are 404 on every knowledge route, and change nothing', async () => {
    const mine = await bot();
    const neighbour = await bot(); // same account, other chatbot
    const res = await t.call('POST', `${mine.base}/knowledge/links`, mine.token, { urls: [`${site.url}/a`] });
    await mine.settle();
    const { job, source } = res.body.data as { job: { id: string }; source: { id: string } };
    const [doc] = await mine.documents();

    const { account } = await t.app.services.accounts.create('stranger@example.com', 'Stranger');
    const stranger = (await t.token({}, account.id)).token;

    const n = neighbour.base;
    const crossChatbot: [string, string, unknown?][] = [
      ['GET', `${n}/knowledge/sources/${source.id}`],
      ['GET', `${n}/knowledge/sources/${source.id}/documents`],
      ['POST', `${n}/knowledge/sources/${source.id}/sync`],
      ['DELETE', `${n}/knowledge/sources/${source.id}?confirm=true`],
      ['GET', `${n}/ingest-jobs/${job.id}`],
      ['POST', `${n}/ingest-jobs/${job.id}/cancel`],
    ];
    for (const [method, url] of crossChatbot) {
      const r = await t.call(method as 'GET', url, neighbour.token);
      expect(r.status, `${method} ${url}`).toBe(404);
    }
    // Documents of another chatbot are not found there either, and stay.
    const del = await t.call('POST', `${n}/documents/delete`, neighbour.token, {
      documentIds: [doc.id],
      confirm: true,
    });
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ deletedDocuments: [], notFound: [doc.id] });
    expect(await neighbour.documents()).toEqual([]);

    const m = mine.base;
    const crossAccount: [string, string, unknown?][] = [
      ['GET', `${m}/knowledge/sources`],
      ['GET', `${m}/knowledge/sources/${source.id}`],
      ['GET', `${m}/knowledge/sources/${source.id}/documents`],
      ['POST', `${m}/knowledge/sources/${source.id}/sync`],
      ['GET', `${m}/documents`],
      ['POST', `${m}/documents/delete`, { documentIds: [doc.id], confirm: true }],
      ['GET', `${m}/ingest-jobs`],
      ['GET', `${m}/ingest-jobs/${job.id}`],
      ['POST', `${m}/ingest-jobs/${job.id}/cancel`],
      ['POST', `${m}/knowledge/links`, { urls: [`${site.url}/b`] }],
      ['POST', `${m}/knowledge/text`, { title: 'x', text: 'y' }],
    ];
    for (const [method, url, body] of crossAccount) {
      const r = await t.call(method as 'GET', url, stranger, body);
      expect(r.status, `${method} ${url}`).toBe(404);
      expect(r.body.error.code, `${method} ${url}`).toBe('CHATBOT_NOT_FOUND');
    }
    expect((await mine.documents()).map((d) => d.id)).toEqual([doc.id]);
    expect((await mine.job(job.id)).status).toBe('succeeded');
  });
});
