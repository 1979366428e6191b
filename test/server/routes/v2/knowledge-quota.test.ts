/**
 * The plan's page quota through the real HTTP API: pages past it are skipped with
 * CHATBOT_PAGES_LIMIT_REACHED, the next add is refused with 429 and a hint, /usage counts the
 * indexed documents, and deleting documents frees the quota again.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { knowledgeApp, multipart, para, type KnowledgeApp } from '../../../helpers/knowledge-http.js';
import { page, serveSite, type TestSite } from '../../../helpers/site.js';

let k: KnowledgeApp;
let site: TestSite;
let accountId: string;

beforeAll(async () => {
  site = await serveSite({
    '/one': page('One', para('page one')),
    '/two': page('Two', para('page two')),
    '/three': page('Three', para('page three')),
    '/four': page('Four', para('page four')),
  });
  k = await knowledgeApp({ env: { ALLOW_PRIVATE_FETCH: '1' } });
  accountId = (await k.t.app.services.accounts.resolve()).id;
  await k.t.app.services.accounts.setPlan(accountId, { maxPages: 2 });
});
afterAll(async () => {
  await k.t.close();
  await site.close();
});

const usage = async () =>
  (await k.t.call('GET', '/api/v2/usage', k.token)).body.data.usage.contentPages as { used: number; limit: number };

describe('the page quota (plan maxPages 2)', () => {
  test('three pages added at once: two are indexed, the third is skipped with CHATBOT_PAGES_LIMIT_REACHED', async () => {
    expect(await usage()).toEqual({ used: 0, limit: 2 });
    const res = await k.t.call('POST', `${k.base}/knowledge/links`, k.token, {
      urls: ['/one', '/two', '/three'].map((p) => `${site.url}${p}`),
    });
    expect(res.status).toBe(202);
    await k.settle();
    const job = await k.job(res.body.data.job.id);
    expect(job.status).toBe('succeeded');
    expect(job.counts).toEqual({ found: 3, done: 2, failed: 0, skipped: 1 });

    const indexed = await k.documents({ status: 'indexed' });
    expect(indexed).toHaveLength(2);
    const skipped = await k.documents({ status: 'skipped' });
    expect(skipped).toHaveLength(1);
    expect(skipped[0].error).toMatch(/^CHATBOT_PAGES_LIMIT_REACHED/);
    expect(skipped[0].chunkCount).toBe(0);
    expect(await k.t.app.services.store.knowledge.chunks.searchLexical(k.chatbotId, skipped[0].title, 5)).toEqual([]);
    expect(await usage()).toEqual({ used: 2, limit: 2 });
  });

  test('the next add of any kind is 429 CHATBOT_PAGES_LIMIT_REACHED with a hint, and starts no job', async () => {
    const jobsBefore = (await k.t.call('GET', `${k.base}/ingest-jobs?limit=100`, k.token)).body.data.jobs.length;
    const upload = multipart([
      { name: 'more.txt', contentType: 'text/plain', bytes: Buffer.from('one page too many') },
    ]);
    const attempts = [
      await k.t.call('POST', `${k.base}/knowledge/links`, k.token, { urls: [`${site.url}/four`] }),
      await k.t.call('POST', `${k.base}/knowledge/website`, k.token, { url: `${site.url}/four` }),
      await k.t.call('POST', `${k.base}/knowledge/sitemap`, k.token, { url: `${site.url}/sitemap.xml` }),
      await k.t.call('POST', `${k.base}/knowledge/text`, k.token, { title: 'More', text: 'one page too many' }),
      await k.t.call('POST', `${k.base}/knowledge/youtube`, k.token, {
        urls: ['https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
      }),
      await k.t.call('POST', `${k.base}/knowledge/files`, k.token, upload.payload, upload.headers),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(429);
      expect(res.body.ok).toBe(false);
      expect(res.body.error.code).toBe('CHATBOT_PAGES_LIMIT_REACHED');
      expect(res.body.error.hint).toMatch(/delete|upgrade/i);
    }
    expect((await k.t.call('GET', `${k.base}/ingest-jobs?limit=100`, k.token)).body.data.jobs).toHaveLength(jobsBefore);
    expect(site.hits.get('/four')).toBeUndefined();
  });

  test('another chatbot of the same account shares the quota', async () => {
    const other = (await k.t.call('POST', '/api/v2/chatbots', k.token, { title: 'Second' })).body.data.chatbot.id;
    const res = await k.t.call('POST', `/api/v2/chatbots/${other}/knowledge/text`, k.token, {
      title: 'More',
      text: 'one page too many',
    });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('CHATBOT_PAGES_LIMIT_REACHED');
  });

  test('deleting a document frees a page: usage drops and adding works again', async () => {
    const [first] = await k.documents({ status: 'indexed' });
    const del = await k.t.call('POST', `${k.base}/documents/delete`, k.token, {
      documentIds: [first.id],
      confirm: true,
    });
    expect(del.status).toBe(200);
    expect(await usage()).toEqual({ used: 1, limit: 2 });
    const res = await k.t.call('POST', `${k.base}/knowledge/links`, k.token, { urls: [`${site.url}/four`] });
    expect(res.status).toBe(202);
    await k.settle();
    expect((await k.job(res.body.data.job.id)).counts).toMatchObject({ done: 1, skipped: 0 });
    expect(await usage()).toEqual({ used: 2, limit: 2 });
  });

  test('a re-sync after the plan grows indexes the page that was skipped, under the same document', async () => {
    await k.t.app.services.accounts.setPlan(accountId, { maxPages: 10 });
    const [skipped] = await k.documents({ status: 'skipped' });
    const res = await k.t.call('POST', `${k.base}/knowledge/sources/${skipped.sourceId}/sync`, k.token);
    expect(res.status).toBe(202);
    await k.settle();
    const now = (await k.documents()).find((d) => d.id === skipped.id);
    expect(now).toMatchObject({ status: 'indexed', error: null });
    expect(await k.documents({ status: 'skipped' })).toEqual([]);
    expect((await usage()).used).toBe((await k.documents({ status: 'indexed' })).length);
  });
});
