/**
 * The guarded client end to end, with ALLOW_PRIVATE_FETCH unset (off, the default): every
 * internal address is refused with BLOCKED_ADDRESS in the job's error list, before anything is
 * sent. The local site exists only to prove it saw no request. Then with ALLOW_PRIVATE_FETCH
 * set to a range (127.0.0.0/8): the local site is crawled, and its redirects into other internal
 * addresses are refused. No test here ever lets a request reach a non-loopback address (this
 * machine forbids such traffic).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../../../server/config.js';
import { knowledgeApp, para, type KnowledgeApp } from '../../../helpers/knowledge-http.js';
import { page, serveSite, type TestSite } from '../../../helpers/site.js';

let k: KnowledgeApp;
let site: TestSite;
let port: string;

beforeAll(async () => {
  site = await serveSite({
    '/': page('Local', '<p>a page on the loopback interface</p>'),
    '/robots.txt': 'User-agent: *\nAllow: /\n',
  });
  port = new URL(site.url).port;
  k = await knowledgeApp();
  expect(k.t.config.allowPrivateFetch).toBe(false);
});
afterAll(async () => {
  await k.t.close();
  await site.close();
});

const MATRIX = () => [
  `http://127.0.0.1:${port}/`,
  `http://[::1]:${port}/`,
  'http://169.254.169.254/',
  'http://10.0.0.1/',
  'http://172.16.0.1/',
  'http://192.168.1.1/',
  'http://100.64.0.1/',
  'http://[fc00::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://2130706433/',
  'http://0x7f.1/',
];

describe('ALLOW_PRIVATE_FETCH off', () => {
  test.each(MATRIX().map((u, i) => [u.replace(port, '<port>'), i]))(
    'POST /knowledge/links %s -> BLOCKED_ADDRESS in the job errors',
    async (_label, i) => {
      const url = MATRIX()[i as number];
      const res = await k.t.call('POST', `${k.base}/knowledge/links`, k.token, { urls: [url] });
      expect(res.status).toBe(202);
      await k.settle();
      const job = await k.job(res.body.data.job.id);
      expect(job.status).toBe('failed');
      expect(job.counts).toEqual({ found: 1, done: 0, failed: 1, skipped: 0 });
      expect(job.errors).toHaveLength(1);
      // The URL as the job knows it (WHATWG-normalised: 2130706433 and 0x7f.1 are 127.0.0.1).
      expect(job.errors[0].url).toBe(new URL(url).href);
      expect(job.errors[0].error).toMatch(/^BLOCKED_ADDRESS/);
    },
  );

  test('all of them in one request: one BLOCKED_ADDRESS error per distinct URL, no document', async () => {
    const urls = MATRIX();
    const res = await k.t.call('POST', `${k.base}/knowledge/links`, k.token, { urls });
    expect(res.status).toBe(202);
    await k.settle();
    const job = await k.job(res.body.data.job.id);
    const distinct = [...new Set(urls.map((u) => new URL(u).href))];
    expect(job.counts).toEqual({ found: distinct.length, done: 0, failed: distinct.length, skipped: 0 });
    expect(job.errors.map((e) => e.url).sort()).toEqual(distinct.sort());
    for (const e of job.errors) expect(e.error, e.url).toMatch(/^BLOCKED_ADDRESS/);
    expect((await k.documents()).filter((d) => d.status === 'indexed')).toEqual([]);
  });

  test('a website crawl and a sitemap of the local site are refused the same way', async () => {
    const crawl = await k.t.call('POST', `${k.base}/knowledge/website`, k.token, { url: `${site.url}/` });
    const sitemap = await k.t.call('POST', `${k.base}/knowledge/sitemap`, k.token, { url: `${site.url}/sitemap.xml` });
    expect([crawl.status, sitemap.status]).toEqual([202, 202]);
    await k.settle();
    for (const res of [crawl, sitemap]) {
      const job = await k.job(res.body.data.job.id);
      expect(job.status).toBe('failed');
      expect(job.errors.length).toBeGreaterThan(0);
      for (const e of job.errors) expect(e.error, e.url).toMatch(/BLOCKED_ADDRESS/);
    }
    // Said in the user's terms: the address they asked for (not only robots.txt) and the setting that opens it.
    const job = await k.job(crawl.body.data.job.id);
    expect(job.errors[0].error).toContain(`${site.url}/ was not fetched`);
    expect(job.errors[0].error).toContain('ALLOW_PRIVATE_FETCH');
    expect(job.error).toContain(`${site.url}/`);
    expect(job.error).toContain('ALLOW_PRIVATE_FETCH');
  });

  test('the local site saw no request at all', () => {
    expect(Object.fromEntries(site.hits)).toEqual({});
  });
});

// A page that redirects to a private address, end to end: ALLOW_PRIVATE_FETCH opens only
// 127.0.0.0/8 (the local site), so every other internal address stays refused, on every hop.
// The refusal happens before a connection is attempted: no traffic leaves for 10.0.0.1.
describe('ALLOW_PRIVATE_FETCH as address ranges', () => {
  let ranged: KnowledgeApp;
  let s: TestSite;
  beforeAll(async () => {
    const redirect = (to: string) => (_req: IncomingMessage, res: ServerResponse) =>
      void res.writeHead(302, { location: to }).end();
    s = await serveSite({
      '/': page('Home', para('the home page'), ['/fine', '/to-private', '/to-metadata']),
      '/fine': page('Fine', para('a fine page')),
      '/to-private': redirect('http://10.0.0.1/secret'),
      '/to-metadata': redirect('http://169.254.169.254/latest/meta-data/'),
      '/robots.txt': 'User-agent: *\nAllow: /\n',
    });
    ranged = await knowledgeApp({ env: { ALLOW_PRIVATE_FETCH: '127.0.0.0/8' } });
    expect(ranged.t.config.allowPrivateFetch).toBe(false);
    expect(ranged.t.config.privateFetchRanges).toEqual(['127.0.0.0/8']);
  });
  afterAll(async () => {
    await ranged.t.close();
    await s.close();
  });

  test('the crawl indexes the open range and refuses the redirects into other internal addresses', async () => {
    const res = await ranged.t.call('POST', `${ranged.base}/knowledge/website`, ranged.token, { url: `${s.url}/` });
    expect(res.status).toBe(202);
    await ranged.settle();
    const job = await ranged.job(res.body.data.job.id);
    expect(job.counts).toEqual({ found: 4, done: 2, failed: 2, skipped: 0 });
    const errors = Object.fromEntries(job.errors.map((e) => [e.url, e.error]));
    expect(errors[`${s.url}/to-private`]).toMatch(/^BLOCKED_ADDRESS.*10\.0\.0\.1/);
    expect(errors[`${s.url}/to-metadata`]).toMatch(/^BLOCKED_ADDRESS.*169\.254\.169\.254/);
    expect(
      (await ranged.documents())
        .filter((d) => d.status === 'indexed')
        .map((d) => d.title)
        .sort(),
    ).toEqual(['Fine', 'Home']);
    // The redirecting pages were asked once each; nothing was fetched past them.
    expect(s.hits.get('/to-private')).toBe(1);
    expect(s.hits.get('/to-metadata')).toBe(1);
  });

  test('an internal address outside the ranges is refused directly too ([::1] is not in 127.0.0.0/8)', async () => {
    const res = await ranged.t.call('POST', `${ranged.base}/knowledge/links`, ranged.token, {
      urls: [`http://[::1]:${new URL(s.url).port}/fine`],
    });
    await ranged.settle();
    const job = await ranged.job(res.body.data.job.id);
    expect(job.errors.map((e) => e.error)).toEqual([expect.stringMatching(/^BLOCKED_ADDRESS/)]);
  });

  test('a value that is neither 0, 1 nor address ranges stops the server at start, naming the entry', () => {
    expect(() => loadConfig({ DATA_DIR: ranged.t.dataDir, ALLOW_PRIVATE_FETCH: '10.0.0.0/8, intranet.local' })).toThrow(
      /ALLOW_PRIVATE_FETCH must be 1, 0 or a comma-separated list of address ranges: "intranet.local" is not an address/,
    );
  });
});
