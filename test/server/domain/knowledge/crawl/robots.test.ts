import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RobotsCache, robotsToken } from '../../../../../server/domain/knowledge/crawl/robots.js';
import { httpFetcher, startSite, type TestSite } from './test-site.js';

const UA = 'Parley/0.1 (+https://github.com/parley-chat/parley)';

const robotsTxt = (origin: string) => `# comments are ignored
User-agent: *
Disallow: /private/
Allow: /private/open.html
Crawl-delay: 2

User-agent: parley
Disallow: /no-parley/
Allow: /no-parley/but-this
Disallow: /*.pdf$
Crawl-delay: 1.5

User-agent: OtherBot
Disallow: /

Sitemap: /sitemap.xml
Sitemap: ${origin}/sitemap-b.xml
Sitemap: http://other.example/sitemap.xml
Sitemap: http://127.0.0.1:1/sitemap.xml
Sitemap: ${origin}/sitemap-b.xml
`;

let site: TestSite;
beforeEach(async () => {
  site = await startSite();
});
afterEach(async () => {
  await site.close();
});

const robotsHits = () => site.hits.filter((h) => h.path === '/robots.txt').length;

describe('RobotsCache with a robots.txt', () => {
  beforeEach(() => {
    site.routes.set('/robots.txt', { type: 'text/plain', body: robotsTxt(site.origin) });
  });

  it('applies the group for our user agent, with Allow overriding a shorter Disallow', async () => {
    const robots = new RobotsCache(httpFetcher(UA), UA);
    expect(await robots.allowed(site.url('/no-parley/page'))).toBe(false);
    expect(await robots.allowed(site.url('/no-parley/but-this'))).toBe(true);
    expect(await robots.allowed(site.url('/no-parley/but-this/and-below'))).toBe(true);
    // Our own group replaces `*`: its /private/ rule does not apply to us.
    expect(await robots.allowed(site.url('/private/page'))).toBe(true);
    expect(await robots.allowed(site.url('/docs/page.html'))).toBe(true);
    expect(await robots.check(site.url('/no-parley/x'))).toEqual({ allowed: false, reason: 'rules' });
  });

  it('supports wildcards and end anchors', async () => {
    const robots = new RobotsCache(httpFetcher(UA), UA);
    expect(await robots.allowed(site.url('/files/report.pdf'))).toBe(false);
    expect(await robots.allowed(site.url('/files/report.pdf?download=1'))).toBe(true);
  });

  it('falls back to `*` for an agent without its own group', async () => {
    const robots = new RobotsCache(httpFetcher(), 'SomeBot/2.0');
    expect(await robots.allowed(site.url('/private/page'))).toBe(false);
    expect(await robots.allowed(site.url('/private/open.html'))).toBe(true);
    expect(await robots.allowed(site.url('/no-parley/page'))).toBe(true);
    expect(await robots.crawlDelayMs(site.origin)).toBe(2000);
  });

  it('disallows everything for an agent whose group says Disallow: /', async () => {
    const robots = new RobotsCache(httpFetcher(), 'OtherBot');
    expect(await robots.allowed(site.url('/'))).toBe(false);
    expect(await robots.allowed(site.url('/robots.txt'))).toBe(true);
  });

  it('reads the crawl delay of our group, in ms, and caps it', async () => {
    expect(await new RobotsCache(httpFetcher(UA), UA).crawlDelayMs(site.origin)).toBe(1500);
    expect(await new RobotsCache(httpFetcher(UA), UA, { maxCrawlDelayMs: 1000 }).crawlDelayMs(site.url('/any'))).toBe(
      1000,
    );
  });

  it('lists Sitemap: lines on the same site only, resolved and deduplicated', async () => {
    const robots = new RobotsCache(httpFetcher(UA), UA);
    expect(await robots.sitemaps(site.origin)).toEqual([site.url('/sitemap.xml'), site.url('/sitemap-b.xml')]);
  });

  it('fetches robots.txt once per origin, also for concurrent callers', async () => {
    const robots = new RobotsCache(httpFetcher(UA), UA);
    await Promise.all([
      robots.allowed(site.url('/a')),
      robots.allowed(site.url('/b')),
      robots.crawlDelayMs(site.origin),
      robots.sitemaps(site.origin),
    ]);
    await robots.allowed(site.url('/c'));
    expect(robotsHits()).toBe(1);
    expect(site.hits[0].userAgent).toBe(UA);
  });

  it('refetches after the cache lifetime', async () => {
    let now = 0;
    const robots = new RobotsCache(httpFetcher(UA), UA, { ttlMs: 1000, now: () => now });
    await robots.allowed(site.url('/a'));
    now = 999;
    await robots.allowed(site.url('/a'));
    expect(robotsHits()).toBe(1);
    now = 1001;
    site.routes.set('/robots.txt', { type: 'text/plain', body: 'User-agent: *\nDisallow: /a' });
    expect(await robots.allowed(site.url('/a'))).toBe(false);
    expect(robotsHits()).toBe(2);
  });
});

describe('RobotsCache when robots.txt is missing or broken (RFC 9309)', () => {
  it('404: everything allowed, no delay, no sitemaps', async () => {
    const robots = new RobotsCache(httpFetcher(UA), UA);
    expect(await robots.check(site.url('/anything'))).toEqual({ allowed: true, reason: 'no-robots' });
    expect(await robots.crawlDelayMs(site.origin)).toBe(0);
    expect(await robots.sitemaps(site.origin)).toEqual([]);
  });

  it('other 4xx (403, 410): everything allowed', async () => {
    site.routes.set('/robots.txt', { status: 403 });
    expect(await new RobotsCache(httpFetcher(UA), UA).allowed(site.url('/a'))).toBe(true);
    site.routes.set('/robots.txt', { status: 410 });
    expect(await new RobotsCache(httpFetcher(UA), UA).allowed(site.url('/a'))).toBe(true);
  });

  it('500: everything disallowed, as unreachable (retryable), cached for the error lifetime', async () => {
    site.routes.set('/robots.txt', { status: 500, body: 'oops' });
    let now = 0;
    const robots = new RobotsCache(httpFetcher(UA), UA, { errorTtlMs: 60_000, now: () => now });
    expect(await robots.check(site.url('/'))).toEqual({
      allowed: false,
      reason: 'unreachable',
      error: { code: 'HTTP_STATUS', message: `${site.url('/robots.txt')} answered HTTP 500` },
    });
    expect(await robots.allowed(site.url('/page'))).toBe(false);
    expect(robotsHits()).toBe(1);
    site.routes.set('/robots.txt', { type: 'text/plain', body: 'User-agent: *\nAllow: /' });
    now = 60_001;
    expect(await robots.allowed(site.url('/page'))).toBe(true);
    expect(robotsHits()).toBe(2);
  });

  it('503 and 429: everything disallowed', async () => {
    site.routes.set('/robots.txt', { status: 503 });
    expect(await new RobotsCache(httpFetcher(UA), UA).allowed(site.url('/a'))).toBe(false);
    site.routes.set('/robots.txt', { status: 429 });
    expect(await new RobotsCache(httpFetcher(UA), UA).allowed(site.url('/a'))).toBe(false);
  });

  it('network failure: everything disallowed for that origin', async () => {
    const port = site.port;
    await site.close();
    const robots = new RobotsCache(httpFetcher(UA), UA);
    expect(await robots.check(`http://127.0.0.1:${port}/a`)).toMatchObject({
      allowed: false,
      reason: 'unreachable',
      error: { code: 'NETWORK' },
    });
    site = await startSite(); // for afterEach
  });

  it('follows a redirect to the robots.txt and keys its rules to the asked origin', async () => {
    site.routes.set('/robots.txt', { status: 301, headers: { location: '/real-robots.txt' } });
    site.routes.set('/real-robots.txt', { type: 'text/plain', body: 'User-agent: *\nDisallow: /secret' });
    const robots = new RobotsCache(httpFetcher(UA), UA);
    expect(await robots.allowed(site.url('/secret/x'))).toBe(false);
    expect(await robots.allowed(site.url('/public'))).toBe(true);
  });

  it('keeps origins apart', async () => {
    const other = await startSite({ '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /' } });
    try {
      const robots = new RobotsCache(httpFetcher(UA), UA);
      expect(await robots.allowed(other.url('/a'))).toBe(false);
      expect(await robots.allowed(site.url('/a'))).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('refuses what is not an http(s) URL', async () => {
    expect(await new RobotsCache(httpFetcher(UA), UA).check('mailto:x@example.com')).toEqual({
      allowed: false,
      reason: 'invalid-url',
    });
  });
});

describe('robotsToken', () => {
  it.each([
    ['Parley/0.1 (+https://github.com/parley-chat/parley)', 'parley'],
    ['ParleyBot', 'parleybot'],
    ['Mozilla/5.0 (compatible; ParleyBot/1.0; +https://x.example)', 'parleybot'],
    ['', '*'],
  ])('%s -> %s', (ua, token) => expect(robotsToken(ua)).toBe(token));
});
