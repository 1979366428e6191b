/**
 * Links, website crawls and sitemaps through the real HTTP API, against websites served by the
 * test on 127.0.0.1 (ALLOW_PRIVATE_FETCH=1 so the guarded client may reach them).
 */
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TestApp } from '../../../helpers/app.js';
import { attach, knowledgeApp, makeDocx, makePdf, para, type KnowledgeApp } from '../../../helpers/knowledge-http.js';
import { page, serveSite, type TestSite } from '../../../helpers/site.js';

let t: TestApp;
const sites: TestSite[] = [];

beforeAll(async () => {
  t = (await knowledgeApp({ env: { ALLOW_PRIVATE_FETCH: '1' } })).t;
});
afterAll(async () => {
  await t.close();
  await Promise.all(sites.map((s) => s.close()));
});

/** A fresh chatbot (its own sources and documents) on the shared app. */
const bot = () => attach(t);
const site = async (...args: Parameters<typeof serveSite>) => {
  const s = await serveSite(...args);
  sites.push(s);
  return s;
};
const binary = (bytes: Buffer, type: string) => (_req: unknown, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': type, 'content-length': bytes.length }).end(bytes);
};
const pageHits = (s: TestSite) =>
  [...s.hits.keys()].filter((p) => p !== '/robots.txt' && !p.endsWith('.xml') && !p.endsWith('.gz')).sort();

async function post(k: KnowledgeApp, path: string, body: unknown) {
  const res = await k.t.call('POST', `${k.base}/knowledge/${path}`, k.token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.data as { job: { id: string; status: string }; source: { id: string; type: string } };
}

async function chunkIds(documentId: string): Promise<number[]> {
  const rows = await t.database.db
    .selectFrom('chunks')
    .select('id')
    .where('document_id', '=', documentId)
    .orderBy('id')
    .execute();
  return rows.map((r) => Number(r.id));
}

describe('POST /knowledge/links', () => {
  test('HTML, PDF and DOCX URLs become documents of their kind; a 404 lands in the job error list with its URL', async () => {
    const k = await bot();
    // Pages long enough to be chunks of their own (nearly empty pages may join their neighbour).
    const filler = (topic: string) =>
      ` Read the ${topic} section in full before contacting support, because most questions about ${topic} are answered in the paragraphs of this page.`.repeat(
        4,
      );
    const pdf = await makePdf(
      [
        {
          heading: 'Warranty',
          text: `The warranty covers manufacturing defects for two years from the date of purchase.${filler('warranty')}`,
        },
        {
          heading: 'Returns',
          text: `Returns are accepted within thirty days when the parcel is unopened and complete.${filler('returns')}`,
        },
      ],
      'Handbook',
    );
    const docx = await makeDocx([
      { heading: true, text: 'Travel policy' },
      { text: 'Employees book economy class for flights shorter than six hours and keep every receipt.' },
      { heading: true, text: 'Expenses' },
      { text: 'Meals abroad are reimbursed up to the daily allowance published by the finance team.' },
    ]);
    const s = await site({
      '/guide': page('Setup guide', para('the setup guide')),
      '/files/handbook.pdf': binary(pdf, 'application/pdf'),
      // Served as a generic type: the bytes, not the header, make it a DOCX.
      '/files/policy': binary(docx, 'application/octet-stream'),
    });
    const { job, source } = await post(k, 'links', {
      urls: [`${s.url}/guide`, `${s.url}/files/handbook.pdf`, `${s.url}/files/policy`, `${s.url}/gone`],
    });
    expect(job.status).toBe('queued');
    expect(source.type).toBe('links');
    await k.settle();

    const done = await k.job(job.id);
    expect(done.status).toBe('partially_succeeded'); // some items failed;
    expect(done.counts).toEqual({ found: 4, done: 3, failed: 1, skipped: 0 });
    expect(done.errors).toEqual([{ url: `${s.url}/gone`, error: expect.stringContaining('404') }]);

    const docs = await k.documents();
    const byUrl = Object.fromEntries(docs.map((d) => [d.url, d]));
    expect(byUrl[`${s.url}/guide`]).toMatchObject({ kind: 'html', status: 'indexed', title: 'Setup guide' });
    expect(byUrl[`${s.url}/files/handbook.pdf`]).toMatchObject({ kind: 'pdf', status: 'indexed' });
    expect(byUrl[`${s.url}/files/policy`]).toMatchObject({ kind: 'docx', status: 'indexed' });
    for (const d of docs.filter((d) => d.status === 'indexed')) expect(d.chunkCount, d.url ?? '').toBeGreaterThan(0);

    // Their text is searchable, with the place it came from: the PDF page, the DOCX headings.
    const store = t.app.services.store.knowledge.chunks;
    const [returns] = await store.searchLexical(k.chatbotId, 'returns accepted within thirty days unopened parcel', 1);
    expect(returns.url).toBe(`${s.url}/files/handbook.pdf`);
    expect(returns.location.page).toBe(2);
    const [meals] = await store.searchLexical(k.chatbotId, 'meals abroad reimbursed daily allowance', 1);
    expect(meals.url).toBe(`${s.url}/files/policy`);
    // Heading1 paragraphs came through as headings (short sections may share one chunk).
    expect(meals.text).toMatch(/Travel policy[\s\S]*Expenses[\s\S]*Meals abroad/);
  });

  test('a URL already known updates its document: unchanged content keeps hash and chunks, changed content gets new chunks', async () => {
    const k = await bot();
    const s = await site({ '/faq': page('FAQ', para('the original shipping answer')) });
    const url = `${s.url}/faq`;
    await post(k, 'links', { urls: [url] });
    await k.settle();
    const [first] = await k.documents();
    const stored = async () => (await t.app.services.store.knowledge.documents.byKey(k.chatbotId, url))!;
    const before = await stored();
    const chunksBefore = await chunkIds(first.id);
    expect(before.contentHash).toBeTruthy();
    expect(chunksBefore.length).toBeGreaterThan(0);

    // Same content again, this time spelled with a fragment and a tracking parameter: same document, untouched.
    const again = await post(k, 'links', { urls: [`${url}?utm_source=newsletter#top`] });
    await k.settle();
    expect((await k.job(again.job.id)).counts).toMatchObject({ found: 1, done: 1, failed: 0 });
    const unchanged = await stored();
    expect((await k.documents()).map((d) => d.id)).toEqual([first.id]);
    expect(unchanged.contentHash).toBe(before.contentHash);
    expect(await chunkIds(first.id)).toEqual(chunksBefore);

    // Changed content: same id, a new hash, new chunks, and search sees the new text only.
    s.set('/faq', page('FAQ', para('the revised refund answer')));
    await post(k, 'links', { urls: [url] });
    await k.settle();
    const changed = await stored();
    const docs = await k.documents();
    expect(docs.map((d) => d.id)).toEqual([first.id]);
    expect(changed.contentHash).not.toBe(before.contentHash);
    const chunksAfter = await chunkIds(first.id);
    expect(chunksAfter.length).toBeGreaterThan(0);
    expect(chunksAfter.some((id) => chunksBefore.includes(id))).toBe(false);
    const hits = await t.app.services.store.knowledge.chunks.searchLexical(k.chatbotId, 'revised refund', 5);
    expect(hits.map((h) => h.documentId)).toEqual([first.id]);
    expect(await t.app.services.store.knowledge.chunks.searchLexical(k.chatbotId, 'original shipping', 5)).toEqual([]);
    // The links source is one source however many times links are added.
    const sources = (await t.call('GET', `${k.base}/knowledge/sources`, k.token)).body.data.sources;
    expect(sources).toEqual([expect.objectContaining({ type: 'links', documentCount: 1 })]);
  });

  test('two URLs of one page fetched at the same moment make one document, cited under its canonical URL', async () => {
    const k = await bot();
    const html = page('Shared', para('one page under two addresses')).replace(
      '<head>',
      '<head><link rel="canonical" href="/shared">',
    );
    // Both answers leave together, so both items extract and index at once.
    const waiting: ServerResponse[] = [];
    const barrier = (_req: unknown, res: ServerResponse) => {
      waiting.push(res);
      if (waiting.length === 2) for (const r of waiting) r.writeHead(200, { 'content-type': 'text/html' }).end(html);
    };
    const s = await site({ '/shared': barrier, '/shared?from=mail': barrier });
    const { job } = await post(k, 'links', { urls: [`${s.url}/shared`, `${s.url}/shared?from=mail`] });
    await k.settle();
    expect((await k.job(job.id)).counts).toEqual({ found: 2, done: 2, failed: 0, skipped: 0 });
    expect((await k.documents()).map((d) => d.url)).toEqual([`${s.url}/shared`]);
  });
});

describe('POST /knowledge/website', () => {
  test('robots.txt disallow is honoured: the disallowed page is never requested and counts as skipped', async () => {
    const k = await bot();
    const s = await site({
      '/robots.txt': 'User-agent: *\nDisallow: /private\n',
      '/': page('Home', para('the home page'), ['/open', '/private/plans']),
      '/open': page('Open', para('an open page')),
      '/private/plans': page('Plans', para('secret plans')),
    });
    const { job } = await post(k, 'website', { url: `${s.url}/` });
    await k.settle();
    const done = await k.job(job.id);
    expect(done).toMatchObject({ status: 'succeeded', counts: { found: 3, done: 2, failed: 0, skipped: 1 } });
    expect(s.hits.get('/private/plans')).toBeUndefined();
    expect((await k.documents()).map((d) => d.title).sort()).toEqual(['Home', 'Open']);
  });

  /** home -> /a /b /c, each -> three children: 13 pages over three levels. */
  const tree = () => {
    const routes: Record<string, string> = { '/': page('Home', para('the home page'), ['/a', '/b', '/c']) };
    for (const x of ['a', 'b', 'c']) {
      routes[`/${x}`] = page(
        `Section ${x}`,
        para(`section ${x}`),
        [1, 2, 3].map((n) => `/${x}/${n}`),
      );
      for (const n of [1, 2, 3]) routes[`/${x}/${n}`] = page(`Page ${x}${n}`, para(`page ${x}${n}`));
    }
    return routes;
  };

  test('maxPages caps the pages fetched and indexed, however many links the pages of one batch find', async () => {
    const k = await bot();
    const s = await site(tree());
    const { job } = await post(k, 'website', { url: `${s.url}/`, maxPages: 6 });
    await k.settle();
    const done = await k.job(job.id);
    expect(done.status).toBe('succeeded');
    expect(done.counts.found).toBe(6);
    expect(done.counts.done).toBe(6);
    expect(await k.documents()).toHaveLength(6);
    expect(pageHits(s)).toHaveLength(6);
  });

  test('maxDepth stops the crawl that many links away from the start page', async () => {
    const k = await bot();
    const s = await site(tree());
    const { job } = await post(k, 'website', { url: `${s.url}/`, maxDepth: 1 });
    await k.settle();
    expect((await k.job(job.id)).counts).toEqual({ found: 4, done: 4, failed: 0, skipped: 0 });
    expect(pageHits(s)).toEqual(['/', '/a', '/b', '/c']);
  });

  test('pathPrefix keeps the crawl under that path', async () => {
    const k = await bot();
    const s = await site({
      '/docs/': page('Docs', para('the documentation'), ['/docs/start', '/blog/news', '/']),
      '/docs/start': page('Start', para('getting started'), ['/docs/deep/more', '/pricing']),
      '/docs/deep/more': page('More', para('more details')),
      '/blog/news': page('News', para('company news')),
      '/': page('Home', para('the home page')),
      '/pricing': page('Pricing', para('the prices')),
    });
    const { job, source } = await post(k, 'website', { url: `${s.url}/docs/`, pathPrefix: '/docs/' });
    await k.settle();
    expect((await k.job(job.id)).counts).toMatchObject({ found: 3, done: 3, failed: 0 });
    expect(pageHits(s)).toEqual(['/docs/', '/docs/deep/more', '/docs/start']);
    const got = (await t.call('GET', `${k.base}/knowledge/sources/${source.id}`, k.token)).body.data.source;
    expect(got).toMatchObject({
      type: 'website',
      documentCount: 3,
      config: expect.objectContaining({ pathPrefix: '/docs/' }),
    });
  });

  test('URLs of one page (canonical link, query variants) make one document; non-HTML is skipped, file links not even fetched', async () => {
    const k = await bot();
    const article = (canonical: string) =>
      page('Article', para('the canonical article')).replace(
        '<head>',
        `<head><link rel="canonical" href="${canonical}">`,
      );
    const s = await site(
      {
        '/': page('Home', para('the home page'), [
          '/article',
          '/article?ref=nav',
          '/print/article',
          '/report.pdf',
          '/feed',
        ]),
        '/article': article('/article'),
        '/article?ref=nav': article('/article'),
        '/print/article': article('/article'),
        '/feed': '{"items":[]}',
      },
      { '/feed': 'application/json' },
    );
    const { job } = await post(k, 'website', { url: `${s.url}/` });
    await k.settle();
    const done = await k.job(job.id);
    expect(done.status).toBe('succeeded');
    expect(done.counts).toEqual({ found: 5, done: 4, failed: 0, skipped: 1 });
    const docs = await k.documents();
    expect(docs.map((d) => d.url).sort()).toEqual([`${s.url}/`, `${s.url}/article`]);
    expect(s.hits.get('/report.pdf')).toBeUndefined();
    expect(s.hits.get('/feed')).toBe(1);
  });

  test('/ and /index.html, a trailing slash, #fragments and tracking parameters are one page: fetched once, stored once, not counted twice', async () => {
    const k = await bot();
    const links = [
      '/index.html',
      '/#top',
      '/?utm_source=mail',
      '/guide/',
      '/guide',
      '/guide/index.html#install',
      '/guide/?fbclid=x',
    ];
    const s = await site({
      '/': page('Home', para('the home page'), links),
      '/index.html': page('Home', para('the home page'), links),
      '/guide/': page('Guide', para('the guide')),
      '/guide': page('Guide', para('the guide')),
      '/guide/index.html': page('Guide', para('the guide')),
    });
    const { job } = await post(k, 'website', { url: `${s.url}/` });
    await k.settle();
    const done = await k.job(job.id);
    expect(done.status).toBe('succeeded');
    expect(done.counts).toEqual({ found: 2, done: 2, failed: 0, skipped: 0 });
    expect(pageHits(s)).toEqual(['/', '/guide/']);
    const docs = await k.documents();
    expect(docs.map((d) => d.url).sort()).toEqual([`${s.url}/`, `${s.url}/guide/`]);
    // A re-sync starting from another spelling of the home page updates the same documents.
    const again = await post(k, 'website', { url: `${s.url}/index.html#start` });
    await k.settle();
    expect((await k.job(again.job.id)).counts).toEqual({ found: 2, done: 2, failed: 0, skipped: 0 });
    expect((await k.documents()).length).toBe(2);
  });

  test('a redirect loop and a 50 MB page fail on their own (TOO_MANY_REDIRECTS, TOO_LARGE) while the rest of the crawl succeeds and the server keeps answering', async () => {
    const k = await bot();
    let streamed = 0;
    const s = await site({
      '/': page('Home', para('the home page'), ['/loop-a', '/huge', '/fine']),
      '/fine': page('Fine', para('a fine page')),
      '/loop-a': (_req, res) => void res.writeHead(302, { location: '/loop-b' }).end(),
      '/loop-b': (_req, res) => void res.writeHead(302, { location: '/loop-a' }).end(),
      // 50 MB of HTML, streamed without a Content-Length so only a mid-stream cut stops it.
      '/huge': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let closed = false;
        res.on('close', () => (closed = true));
        const pump = () => {
          while (!closed && streamed < 50 * 1024 * 1024) {
            streamed += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.write('<!doctype html><html><body><p>');
        pump();
      },
    });
    const { job } = await post(k, 'website', { url: `${s.url}/` });
    expect((await t.call('GET', '/api/v2/health')).status).toBe(200);
    await k.settle();
    expect((await t.call('GET', '/api/v2/health')).status).toBe(200);

    const done = await k.job(job.id);
    expect(done.status).toBe('partially_succeeded'); // some items failed;
    expect(done.counts).toEqual({ found: 4, done: 2, failed: 2, skipped: 0 });
    const errors = Object.fromEntries(done.errors.map((e) => [e.url, e.error]));
    expect(errors[`${s.url}/loop-a`]).toMatch(/^TOO_MANY_REDIRECTS/);
    expect(errors[`${s.url}/huge`]).toMatch(/^TOO_LARGE/);
    // The body was cut near the page limit, far from its 50 MB.
    expect(streamed).toBeLessThan(30 * 1024 * 1024);
    expect(
      (await k.documents())
        .filter((d) => d.status === 'indexed')
        .map((d) => d.title)
        .sort(),
    ).toEqual(['Fine', 'Home']);
  });

  test('a slow-drip page fails with TIMEOUT (OUTBOUND_TIMEOUT_MS) while the rest of the crawl succeeds', async () => {
    const k = await knowledgeApp({ env: { ALLOW_PRIVATE_FETCH: '1', OUTBOUND_TIMEOUT_MS: '800' } });
    try {
      let timer: NodeJS.Timeout | undefined;
      const s = await site({
        '/': page('Home', para('the home page'), ['/drip']),
        // Headers at once, then one byte every 200 ms: only a deadline on the whole body stops it.
        '/drip': (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html' });
          timer = setInterval(() => res.write('a'), 200);
          res.on('close', () => clearInterval(timer));
        },
      });
      const { job } = await post(k, 'website', { url: `${s.url}/` });
      await k.settle();
      clearInterval(timer);
      const done = await k.job(job.id);
      expect(done.counts).toMatchObject({ done: 1, failed: 1 });
      expect(done.errors).toEqual([{ url: `${s.url}/drip`, error: expect.stringMatching(/^TIMEOUT/) }]);
    } finally {
      await k.t.close();
    }
  });
});

describe('POST /knowledge/sitemap', () => {
  test('a sitemap index of two urlsets, one gzipped, imports the pages they list (and only those)', async () => {
    const k = await bot();
    const urlset = (paths: string[], origin: string) =>
      `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
        .map((p) => `<url><loc>${origin}${p}</loc></url>`)
        .join('')}</urlset>`;
    const s = await site({
      '/p/one': page('One', para('page one'), ['/p/unlisted']),
      '/p/two': page('Two', para('page two')),
      '/p/three': page('Three', para('page three')),
      '/p/unlisted': page('Unlisted', para('an unlisted page')),
    });
    s.set(
      '/sitemap_index.xml',
      `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
        `<sitemap><loc>${s.url}/sitemap-a.xml</loc></sitemap><sitemap><loc>${s.url}/sitemap-b.xml.gz</loc></sitemap></sitemapindex>`,
    );
    s.set('/sitemap-a.xml', urlset(['/p/one', '/p/two'], s.url));
    s.set('/sitemap-b.xml.gz', binary(gzipSync(urlset(['/p/three'], s.url)), 'application/gzip'));

    const { job, source } = await post(k, 'sitemap', { url: `${s.url}/sitemap_index.xml` });
    expect(source.type).toBe('sitemap');
    await k.settle();
    const done = await k.job(job.id);
    expect(done.status).toBe('succeeded');
    expect(done.errors).toEqual([]);
    expect(done.counts).toMatchObject({ found: 4, done: 4, failed: 0 }); // the index itself + three pages
    expect((await k.documents()).map((d) => d.title).sort()).toEqual(['One', 'Three', 'Two']);
    expect(s.hits.get('/p/unlisted')).toBeUndefined();
  });

  test('the Sitemap: lines of robots.txt feed a website crawl with pages no link reaches', async () => {
    const k = await bot();
    const s = await site({
      '/': page('Home', para('the home page')),
      '/hidden/one': page('Hidden one', para('the first hidden page')),
      '/hidden/two': page('Hidden two', para('the second hidden page')),
    });
    s.set(
      '/robots.txt',
      `User-agent: *\nAllow: /\nSitemap: ${s.url}/sitemap.xml\nSitemap: https://other.example/sitemap.xml\n`,
    );
    s.set(
      '/sitemap.xml',
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
        `<url><loc>${s.url}/hidden/one</loc></url><url><loc>${s.url}/hidden/two</loc></url></urlset>`,
    );
    const { job } = await post(k, 'website', { url: `${s.url}/` });
    await k.settle();
    expect((await k.job(job.id)).counts).toEqual({ found: 3, done: 3, failed: 0, skipped: 0 });
    expect((await k.documents()).map((d) => d.title).sort()).toEqual(['Hidden one', 'Hidden two', 'Home']);
  });
});
