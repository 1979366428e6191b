/**
 * The guarded client end to end, with ALLOW_PRIVATE_FETCH unset (off, the default): every
 * internal address is refused with BLOCKED_ADDRESS in the job's error list, before anything is
 * sent. The local site exists only to prove it saw no request. No test here ever points at a
 * non-loopback address with private fetching on (this machine forbids such traffic).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { knowledgeApp, type KnowledgeApp } from '../../../helpers/knowledge-http.js';
import { page, serveSite, type TestSite } from '../../../helpers/site.js';

let k: KnowledgeApp;
let site: TestSite;
let port: string;

beforeAll(async () => {
  site = await serveSite({ '/': page('Local', '<p>a page on the loopback interface</p>'), '/robots.txt': 'User-agent: *\nAllow: /\n' });
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
  test.each(MATRIX().map((u, i) => [u.replace(port, '<port>'), i]))('POST /knowledge/links %s -> BLOCKED_ADDRESS in the job errors', async (_label, i) => {
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
  });

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
  });

  test('the local site saw no request at all', () => {
    expect(Object.fromEntries(site.hits)).toEqual({});
  });
});

// A public page that redirects to a private address cannot be staged here: with the guard on,
// the local site itself is refused, and no public address may be reached from this machine. The
// per-hop re-check is covered by test/server/outbound/guarded-client.test.ts.
