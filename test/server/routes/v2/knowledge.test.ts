import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { page, serveSite, type TestSite } from '../../../helpers/site.js';

let t: TestApp;
let site: TestSite;
let token: string;
let chatbotId: string;

const para = (topic: string) =>
  `<p>${topic} is explained here in enough words for the extractor to treat this as the main content of the page. ` +
  `It covers how ${topic} works, when to use ${topic}, and what to avoid when configuring ${topic} in production.</p>`;

beforeAll(async () => {
  site = await serveSite({
    '/robots.txt': 'User-agent: *\nDisallow: /private\n',
    '/': page('Home', para('the home page'), [
      '/docs/install',
      '/docs/routing',
      '/private/secret',
      'https://elsewhere.example/x',
    ]),
    '/docs/install': page('Install', para('installation'), ['/docs/routing']),
    '/docs/routing': page('Routing', para('routing'), ['/docs/hooks']),
    '/docs/hooks': page('Hooks', para('lifecycle hooks')),
    '/private/secret': page('Secret', para('a secret')),
  });
  t = await buildTestApp({ env: { ALLOW_PRIVATE_FETCH: '1', QUEUE_POLL_MS: '20' } });
  token = (await t.token()).token;
  chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Docs' })).body.data.chatbot.id;
});
afterAll(async () => {
  await t.close();
  await site.close();
});

const base = () => `/api/v2/chatbots/${chatbotId}`;
const settle = () => t.app.services.queue.drain(30_000);

describe('knowledge ingestion over HTTP', () => {
  test('crawling a website follows same-origin links, honours robots.txt and records each page', async () => {
    const res = await t.call('POST', `${base()}/knowledge/website`, token, { url: `${site.url}/` });
    expect(res.status).toBe(202);
    expect(res.body.data.job.status).toBe('queued');
    await settle();
    const job = (await t.call('GET', `${base()}/ingest-jobs/${res.body.data.job.id}`, token)).body.data.job;
    expect(job.status).toBe('succeeded');
    expect(job.counts).toMatchObject({ done: 4, failed: 0 });
    expect(job.counts.skipped).toBe(1); // /private/secret, disallowed
    expect(site.hits.get('/private/secret')).toBeUndefined();
    const docs = (await t.call('GET', `${base()}/documents`, token)).body.data.documents;
    expect(docs.map((d: { title: string }) => d.title).sort()).toEqual(['Home', 'Hooks', 'Install', 'Routing']);
    const sources = (await t.call('GET', `${base()}/knowledge/sources`, token)).body.data.sources;
    expect(sources).toHaveLength(1);
    expect(sources[0]).toMatchObject({ type: 'website', status: 'ready', documentCount: 4 });
    expect(sources[0].lastSyncAt).toBeTruthy();
  });

  test('text becomes a searchable document', async () => {
    const res = await t.call('POST', `${base()}/knowledge/text`, token, {
      title: 'Refunds',
      text: '# Refund policy\n\nRefunds are paid within 14 days of a return.',
    });
    expect(res.status).toBe(202);
    await settle();
    const hits = await t.app.services.store.knowledge.chunks.searchLexical(
      chatbotId,
      'how long until refunds are paid',
      3,
    );
    expect(hits[0].title).toBe('Refunds');
  });
});

describe('one crawl per site at a time', () => {
  test('adding a website that is being crawled hands back the running job', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = await serveSite({
      '/': (_req, res) =>
        void gate.then(() =>
          res.writeHead(200, { 'content-type': 'text/html' }).end(page('Slow', para('a slow page'))),
        ),
    });
    try {
      const first = await t.call('POST', `${base()}/knowledge/website`, token, { url: `${slow.url}/` });
      const second = await t.call('POST', `${base()}/knowledge/website`, token, { url: `${slow.url}/` });
      expect(second.status).toBe(202);
      expect(second.body.data.job.id).toBe(first.body.data.job.id);
      expect(second.body.data.alreadyRunning).toBe(true);
      release();
      await settle();
      expect(slow.hits.get('/')).toBe(1);
    } finally {
      release();
      await slow.close();
    }
  });
});
