/** The crawl policy over the real guarded HTTP client, adapted to the Fetcher port. */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedHttpClient } from '../../../../../server/outbound/guarded-client.js';
import { guardedFetcher } from '../../../../../server/adapters/crawl-fetcher.js';
import { fetchPage } from '../../../../../server/domain/knowledge/crawl/page.js';
import { HostPacer } from '../../../../../server/domain/knowledge/crawl/pacing.js';
import { RobotsCache } from '../../../../../server/domain/knowledge/crawl/robots.js';
import { collectSitemapUrls } from '../../../../../server/domain/knowledge/crawl/sitemap.js';
import { crawl, PNG, UA } from './crawl-loop.js';
import { html, redirect, startSite, type TestSite } from './test-site.js';

const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
let site: TestSite;
let open: GuardedHttpClient;
let guarded: GuardedHttpClient;

beforeAll(async () => {
  site = await startSite();
  const u = site.url;
  const urlset = `<urlset xmlns="${NS}"><url><loc>${u('/a')}</loc></url><url><loc>${u('/b')}</loc></url></urlset>`;
  const routes = {
    '/robots.txt': { type: 'text/plain', body: `User-agent: parley\nDisallow: /private\nSitemap: ${u('/index.xml')}` },
    '/': html(
      '<a href="/a">a</a><a href="/private/x">p</a><a href="/image">i</a><a href="/loop">loop</a><a href="/moved">m</a>',
    ),
    '/a': html('<a href="/b">b</a>', '<link rel="canonical" href="/a">'),
    '/b': html('<p>b</p>'),
    '/image': { type: 'image/png', body: PNG },
    '/loop': redirect('/loop'),
    '/moved': redirect('/b', 301),
    '/index.xml': {
      type: 'application/xml',
      body: `<sitemapindex xmlns="${NS}"><sitemap><loc>${u('/pages.xml.gz')}</loc></sitemap><sitemap><loc>${u('/encoded.xml')}</loc></sitemap></sitemapindex>`,
    },
    '/pages.xml.gz': { type: 'application/gzip', body: gzipSync(urlset) },
    // Transport-level gzip: the client decodes it, so the sitemap arrives as plain XML.
    '/encoded.xml': {
      type: 'application/xml',
      headers: { 'content-encoding': 'gzip' },
      body: gzipSync(urlset.replace('/a<', '/c<')),
    },
  };
  for (const [path, route] of Object.entries(routes)) site.routes.set(path, route);
  open = new GuardedHttpClient({ allowPrivate: true, userAgent: UA, defaults: { timeoutMs: 5000 } });
  guarded = new GuardedHttpClient({ allowPrivate: false, userAgent: UA, defaults: { timeoutMs: 5000 } });
});
afterAll(async () => {
  await open.close();
  await guarded.close();
  await site.close();
});

describe('crawling through GuardedHttpClient', () => {
  it('crawls the local site when private addresses are allowed', async () => {
    site.hits.length = 0;
    const { stored, skipped } = await crawl(
      site.origin,
      { origin: site.origin, maxDepth: 3, maxPages: 50 },
      guardedFetcher(open),
    );
    expect([...stored.keys()].map((k) => k.replace(site.origin, '')).sort()).toEqual(['/', '/a', '/b']);
    expect(
      Object.fromEntries(skipped.map((s) => [s.url.replace(site.origin, ''), [s.reason, s.error.split(':')[0]]])),
    ).toEqual({
      '/private/x': ['robots', 'disallowed by robots.txt'],
      '/image': ['not-html', 'not an HTML page (image/png)'],
      '/loop': ['fetch-failed', 'TOO_MANY_REDIRECTS'],
      // /moved redirected to /b and stored it first; /b itself, queued from /a, is then a duplicate.
      '/b': ['duplicate', 'same page as http'],
    });
    expect(skipped.find((s) => s.url.endsWith('/loop'))?.retryable).toBe(false);
    expect(site.hits.every((h) => h.userAgent === UA)).toBe(true);
  });

  it('collects sitemaps named in robots.txt, gzip by magic bytes and by Content-Encoding', async () => {
    const fetcher = guardedFetcher(open);
    const [sitemap] = await new RobotsCache(fetcher, UA).sitemaps(site.origin);
    expect(sitemap).toBe(site.url('/index.xml'));
    expect(await collectSitemapUrls(fetcher, sitemap, { maxUrls: 100, sameSiteAs: site.origin })).toEqual({
      urls: [site.url('/a'), site.url('/b'), site.url('/c')],
      errors: [],
    });
  });

  it('reports the refused address, not robots.txt, when private addresses are not allowed', async () => {
    const fetcher = guardedFetcher(guarded);
    const deps = {
      fetcher,
      robots: new RobotsCache(fetcher, UA),
      pacer: new HostPacer(),
      scope: { origin: site.origin, maxDepth: 1, maxPages: 5 },
    };
    const res = await fetchPage(site.origin, deps);
    expect(res).toMatchObject({ ok: false, reason: 'fetch-failed', retryable: false });
    expect(!res.ok && res.error).toMatch(/^BLOCKED_ADDRESS: /);
    const sm = await collectSitemapUrls(fetcher, site.url('/index.xml'), { maxUrls: 10 });
    expect(sm.urls).toEqual([]);
    expect(sm.errors[0].error).toMatch(/^BLOCKED_ADDRESS: /);
  });

  it('passes the size limit to the client', async () => {
    site.routes.set('/big', html('x'.repeat(200_000)));
    const fetcher = guardedFetcher(open);
    const deps = {
      fetcher,
      robots: new RobotsCache(fetcher, UA),
      pacer: new HostPacer(),
      scope: { origin: site.origin, maxDepth: 1, maxPages: 5 },
      maxBytes: 100_000,
    };
    const res = await fetchPage(site.url('/big'), deps);
    expect(res).toMatchObject({ ok: false, reason: 'fetch-failed', retryable: false });
    expect(!res.ok && res.error).toMatch(/^TOO_LARGE: /);
  });
});
