/** The crawl policy end to end over a local site, through the in-memory loop of crawl-loop.ts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchPage } from '../../../../../server/domain/knowledge/crawl/page.js';
import { HostPacer } from '../../../../../server/domain/knowledge/crawl/pacing.js';
import { RobotsCache } from '../../../../../server/domain/knowledge/crawl/robots.js';
import type { CrawlScope } from '../../../../../server/domain/knowledge/crawl/url.js';
import { crawl, PNG, UA } from './crawl-loop.js';
import { html, httpFetcher, redirect, startSite, type TestSite } from './test-site.js';

let site: TestSite;
let other: TestSite;
let o: string;

beforeAll(async () => {
  other = await startSite({ '/landing': html('<p>another site</p>') });
  site = await startSite();
  o = site.origin;
  const routes = {
    '/robots.txt': {
      type: 'text/plain',
      body: 'User-agent: *\nDisallow: /\n\nUser-agent: parley\nDisallow: /secret\nAllow: /secret/public',
    },
    '/': html(
      [
        '<a href="/a">a</a>',
        '<a href="b?utm_source=nav">b</a>',
        '<a href="/b#section">b again</a>',
        '<a href="/secret/x">secret</a>',
        '<a href="/secret/public">public secret</a>',
        '<a href="/docs/manual.pdf">pdf by name</a>',
        '<a href="/download">pdf by content</a>',
        '<a href="/picture">image by content</a>',
        '<a href="/plain">text</a>',
        `<a href="${other.url('/landing')}">other port</a>`,
        '<a href="https://other.example/">other host</a>',
        '<a href="/redirect-out">leaves</a>',
        '<a href="/redirect-in">stays</a>',
        '<a href="/missing">gone</a>',
        '<a href="mailto:x@example.com">mail</a>',
        '<a href="/dup-1">dup</a>',
      ].join(''),
    ),
    '/a': html('<a href="/a/deep-1">deeper</a><a href="/">home</a>'),
    '/a/deep-1': html('<a href="/a/deep-2">deeper still</a>'),
    '/a/deep-2': html('never reached at maxDepth 2'),
    '/b': html('<p>b</p>', '<link rel="canonical" href="/b-canonical">'),
    '/b-canonical': html('<p>b</p>'),
    '/dup-1': html('<p>dup</p>', `<link rel="canonical" href="${o}/c">`),
    '/secret/x': html('never fetched'),
    '/secret/public': html('<p>allowed by a longer Allow</p>'),
    '/docs/manual.pdf': { type: 'application/pdf', body: '%PDF-1.4' },
    '/download': {
      type: 'application/pdf',
      headers: { 'content-disposition': 'attachment' },
      body: Buffer.from('%PDF-1.4\n...'),
    },
    '/picture': { type: 'application/octet-stream', body: PNG },
    '/plain': { type: 'text/plain', body: 'just text' },
    '/redirect-out': redirect(other.url('/landing')),
    '/redirect-in': redirect('/c?utm_medium=x', 301),
    '/c': html('<a href="/b-canonical">b</a>'),
  };
  for (const [path, route] of Object.entries(routes)) site.routes.set(path, route);
});
afterAll(async () => {
  await site.close();
  await other.close();
});

const paths = (urls: Iterable<string>) => [...urls].map((u) => u.replace(o, '')).sort();
const requested = () => site.hits.map((h) => h.path);
const scopeOf = (overrides: Partial<CrawlScope> = {}): CrawlScope => ({
  origin: o,
  maxDepth: 2,
  maxPages: 100,
  ...overrides,
});

describe('a crawl of the local site', () => {
  it('stores each in-scope HTML page once, under its canonical URL, and skips the rest with reasons', async () => {
    site.hits.length = 0;
    const { stored, skipped } = await crawl(o, scopeOf(), httpFetcher(UA));
    expect(paths(stored.keys())).toEqual(['/', '/a', '/a/deep-1', '/b-canonical', '/c', '/secret/public']);
    expect(stored.get(`${o}/b-canonical`)?.fetchedFrom).toBe(`${o}/b`);
    expect(stored.get(`${o}/c`)?.fetchedFrom).toBe(`${o}/c`);

    const reasons = Object.fromEntries(skipped.map((s) => [s.url.replace(o, ''), s.reason]));
    expect(reasons).toEqual({
      '/secret/x': 'robots',
      '/download': 'not-html',
      '/picture': 'not-html',
      '/plain': 'not-html',
      '/redirect-out': 'redirected-out-of-scope',
      '/missing': 'http-status',
      '/dup-1': 'duplicate',
    });
    expect(skipped.find((s) => s.url.endsWith('/download'))?.error).toBe('not an HTML page (application/pdf)');
    expect(skipped.find((s) => s.url.endsWith('/missing'))).toMatchObject({ error: 'HTTP 404' });

    const hits = requested();
    expect(hits.filter((p) => p === '/robots.txt')).toHaveLength(1);
    // Never requested: disallowed, non-HTML by name, beyond maxDepth, already stored as /b's canonical.
    for (const p of ['/secret/x', '/docs/manual.pdf', '/a/deep-2', '/b-canonical']) expect(hits).not.toContain(p);
    expect(other.hits.map((h) => h.path)).toEqual(['/landing']); // only via the redirect, then dropped
    expect(new Set(hits.filter((p) => p !== '/robots.txt')).size).toBe(hits.length - 1); // no URL fetched twice
  });

  it('stops at maxPages', async () => {
    site.hits.length = 0;
    const { stored, skipped } = await crawl(o, scopeOf({ maxPages: 3 }), httpFetcher(UA));
    expect(stored.size + skipped.length).toBe(3);
    expect(requested().filter((p) => p !== '/robots.txt')).toHaveLength(3);
  });

  it('stops at maxDepth 0: only the start page', async () => {
    const { stored } = await crawl(o, scopeOf({ maxDepth: 0 }), httpFetcher(UA));
    expect(paths(stored.keys())).toEqual(['/']);
  });

  it('stays under a path prefix', async () => {
    const { stored, skipped } = await crawl(`${o}/a`, scopeOf({ pathPrefix: '/a' }), httpFetcher(UA));
    expect(paths(stored.keys())).toEqual(['/a', '/a/deep-1', '/a/deep-2']);
    expect(skipped).toEqual([]);
  });

  it('is refused by robots.txt for another user agent', async () => {
    const fetcher = httpFetcher('OtherBot/1.0');
    const deps = {
      fetcher,
      robots: new RobotsCache(fetcher, 'OtherBot/1.0'),
      pacer: new HostPacer(),
      scope: scopeOf(),
    };
    expect(await fetchPage(o, deps)).toMatchObject({
      ok: false,
      reason: 'robots',
      error: 'disallowed by robots.txt',
      retryable: false,
    });
  });

  it('refuses a start URL out of scope or not crawlable', async () => {
    const fetcher = httpFetcher(UA);
    const deps = { fetcher, robots: new RobotsCache(fetcher, UA), pacer: new HostPacer(), scope: scopeOf() };
    expect(await fetchPage(other.url('/landing'), deps)).toMatchObject({ ok: false, reason: 'out-of-scope' });
    expect(await fetchPage('javascript:alert(1)', deps)).toMatchObject({ ok: false, reason: 'invalid-url' });
  });

  it('honours the crawl delay between requests to the site', async () => {
    const slow = await startSite({
      '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nCrawl-delay: 0.2' },
      '/': html('<a href="/1">1</a><a href="/2">2</a>'),
      '/1': html('one'),
      '/2': html('two'),
    });
    const times: number[] = [];
    slow.routes.set('/1', (_req, res) => {
      times.push(performance.now());
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>1</p>');
    });
    slow.routes.set('/2', (_req, res) => {
      times.push(performance.now());
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>2</p>');
    });
    try {
      const { stored } = await crawl(slow.origin, { origin: slow.origin, maxDepth: 1, maxPages: 10 }, httpFetcher(UA));
      expect(stored.size).toBe(3);
      expect(times[1] - times[0]).toBeGreaterThanOrEqual(190);
    } finally {
      await slow.close();
    }
  });

  it('reports a robots.txt that answers 500 as retryable, and fetches no page', async () => {
    const broken = await startSite({ '/robots.txt': { status: 500 }, '/': html('hi') });
    try {
      const fetcher = httpFetcher(UA);
      const deps = {
        fetcher,
        robots: new RobotsCache(fetcher, UA),
        pacer: new HostPacer(),
        scope: { origin: broken.origin, maxDepth: 1, maxPages: 5 },
      };
      expect(await fetchPage(broken.origin, deps)).toMatchObject({
        ok: false,
        reason: 'robots-unreachable',
        retryable: true,
      });
      expect(broken.hits.map((h) => h.path)).toEqual(['/robots.txt']);
    } finally {
      await broken.close();
    }
  });
});
