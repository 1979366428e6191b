import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSitemapUrls, parseSitemap } from '../../../../../server/domain/knowledge/crawl/sitemap.js';
import { httpFetcher, startSite, type TestSite } from './test-site.js';

const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const urlset = (locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${NS}">${locs.map((l) => `<url><loc>${l}</loc><lastmod>2024-01-01</lastmod></url>`).join('')}</urlset>`;
const index = (locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="${NS}">${locs.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join('')}</sitemapindex>`;
const xml = (body: string) => ({ type: 'application/xml', body });

let site: TestSite;
let u: (path: string) => string;

beforeAll(async () => {
  site = await startSite();
  u = site.url;
  const routes: Record<string, ReturnType<typeof xml> | { type: string; body: Buffer } | { status: number }> = {
    '/simple.xml': xml(
      urlset([u('/a'), u('/b?utm_source=news&amp;x=1'), u('/b?x=1#frag'), u('/c?p=1&amp;q=2'), '  ' + u('/d') + '  ']),
    ),
    // index (1) -> index (2) -> urlset (3): the deepest nesting allowed
    '/index.xml': xml(index([u('/index-2.xml'), u('/pages-b.xml')])),
    '/index-2.xml': xml(index([u('/pages-a.xml')])),
    '/pages-a.xml': xml(urlset([u('/a1'), u('/a2')])),
    '/pages-b.xml': xml(urlset([u('/b1'), u('/a1')])),
    // index (1) -> (2) -> (3) -> urlset (4): refused
    '/deep-1.xml': xml(index([u('/deep-2.xml')])),
    '/deep-2.xml': xml(index([u('/deep-3.xml'), u('/shallow.xml')])),
    '/deep-3.xml': xml(index([u('/deep-4.xml')])),
    '/deep-4.xml': xml(urlset([u('/too-deep')])),
    '/shallow.xml': xml(urlset([u('/fine')])),
    '/sitemap.xml.gz': { type: 'application/gzip', body: gzipSync(urlset([u('/gz1'), u('/gz2')])) },
    '/gz-index.xml': xml(index([u('/sitemap.xml.gz')])),
    '/bomb.xml.gz': { type: 'application/gzip', body: gzipSync(Buffer.alloc(5 * 1024 * 1024, 0x20)) },
    // cycles: an index listing itself, and two indexes listing each other
    '/self.xml': xml(index([u('/self.xml'), u('/pages-a.xml')])),
    '/ping.xml': xml(index([u('/pong.xml')])),
    '/pong.xml': xml(index([u('/ping.xml'), u('/pages-b.xml')])),
    '/malformed.xml': xml(`<?xml version="1.0"?><urlset xmlns="${NS}"><url><loc>${u('/m')}</loc></url>`),
    '/mixed-index.xml': xml(
      index([u('/malformed.xml'), u('/missing.xml'), u('/not-a-sitemap.html'), u('/pages-a.xml')]),
    ),
    '/not-a-sitemap.html': {
      type: 'text/html',
      body: Buffer.from('<!doctype html><html><body><p>hello</p></body></html>'),
    },
    '/offsite.xml': xml(urlset([u('/mine'), 'https://other.example/theirs', u('/mine2')])),
    '/offsite-index.xml': xml(index(['https://other.example/sitemap.xml', u('/pages-a.xml')])),
    '/bare-amp.xml': xml(urlset([u('/q?a=1&b=2'), u('/r?x=&amp;')])),
    '/many.xml': xml(urlset(Array.from({ length: 100 }, (_, i) => u(`/p${i}`)))),
    '/prefixed.xml': xml(`<sm:urlset xmlns:sm="${NS}"><sm:url><sm:loc>${u('/ns')}</sm:loc></sm:url></sm:urlset>`),
    '/list.txt': { type: 'text/plain', body: Buffer.from(`${u('/t1')}\n\n${u('/t2')}\r\nnot a url\n`) },
    '/entities.xml': xml(
      `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>` +
        `<urlset xmlns="${NS}"><url><loc>${u('/e')}?a=&lol2;</loc></url><url><loc>${u('/caf&#233;')}</loc></url></urlset>`,
    ),
  };
  for (const [path, route] of Object.entries(routes)) site.routes.set(path, route);
});
afterAll(async () => {
  await site.close();
});

const collect = (path: string, opts: Partial<Parameters<typeof collectSitemapUrls>[2]> = {}) =>
  collectSitemapUrls(httpFetcher(), u(path), { maxUrls: 1000, ...opts });

describe('collectSitemapUrls', () => {
  it('reads a urlset: normalised, entity-decoded, deduplicated, in order', async () => {
    expect(await collect('/simple.xml')).toEqual({
      urls: [u('/a'), u('/b?x=1'), u('/c?p=1&q=2'), u('/d')],
      errors: [],
    });
  });

  it('follows a sitemap index nested 2 levels', async () => {
    const res = await collect('/index.xml');
    expect(res.errors).toEqual([]);
    expect(res.urls.sort()).toEqual([u('/a1'), u('/a2'), u('/b1')].sort());
  });

  it('refuses a 4th level, reporting it, and keeps the rest', async () => {
    const res = await collect('/deep-1.xml');
    expect(res.urls).toEqual([u('/fine')]);
    expect(res.errors).toEqual([{ url: u('/deep-4.xml'), error: 'nested more than 3 levels deep; not read' }]);
    expect(site.hits.some((h) => h.path === '/deep-4.xml')).toBe(false);
  });

  it('inflates a gzip sitemap by its magic bytes, also inside an index', async () => {
    expect(await collect('/sitemap.xml.gz')).toEqual({ urls: [u('/gz1'), u('/gz2')], errors: [] });
    expect((await collect('/gz-index.xml')).urls).toEqual([u('/gz1'), u('/gz2')]);
  });

  it('stops inflating at the decompressed-size limit', async () => {
    const res = await collect('/bomb.xml.gz', { maxDecompressedBytes: 1024 * 1024 });
    expect(res.urls).toEqual([]);
    expect(res.errors).toEqual([{ url: u('/bomb.xml.gz'), error: 'larger than 1048576 bytes once decompressed' }]);
  });

  it('terminates on an index that lists itself, and on two that list each other', async () => {
    const self = await collect('/self.xml');
    expect(self).toEqual({ urls: [u('/a1'), u('/a2')], errors: [] });
    const ping = await collect('/ping.xml');
    expect(ping).toEqual({ urls: [u('/b1'), u('/a1')], errors: [] });
    expect(site.hits.filter((h) => h.path === '/ping.xml')).toHaveLength(1);
  });

  it('reports malformed XML, a missing sitemap and an HTML page as errors, not crashes', async () => {
    const bad = await collect('/malformed.xml');
    expect(bad.urls).toEqual([]);
    expect(bad.errors).toHaveLength(1);
    expect(bad.errors[0].error).toMatch(/^malformed XML at line \d+: /);

    const mixed = await collect('/mixed-index.xml');
    expect(mixed.urls).toEqual([u('/a1'), u('/a2')]);
    expect(mixed.errors.map((e) => [e.url, e.error.split(':')[0]])).toEqual([
      [u('/malformed.xml'), 'malformed XML at line 1'],
      [u('/missing.xml'), 'HTTP 404'],
      [u('/not-a-sitemap.html'), 'not a sitemap'],
    ]);
  });

  it('reports a sitemap that cannot be fetched', async () => {
    const res = await collectSitemapUrls(httpFetcher(), 'http://127.0.0.1:1/sitemap.xml', { maxUrls: 10 });
    expect(res.urls).toEqual([]);
    expect(res.errors[0].error).toMatch(/^NETWORK: /);
    expect(await collectSitemapUrls(httpFetcher(), 'ftp://example.com/s.xml', { maxUrls: 10 })).toEqual({
      urls: [],
      errors: [{ url: 'ftp://example.com/s.xml', error: 'not an absolute http(s) URL' }],
    });
  });

  it('keeps only same-site URLs and sitemaps when asked', async () => {
    expect((await collect('/offsite.xml', { sameSiteAs: site.origin })).urls).toEqual([u('/mine'), u('/mine2')]);
    expect((await collect('/offsite.xml')).urls).toEqual([u('/mine'), 'https://other.example/theirs', u('/mine2')]);
    const idx = await collect('/offsite-index.xml', { sameSiteAs: site.origin });
    expect(idx.urls).toEqual([u('/a1'), u('/a2')]);
    expect(idx.errors).toEqual([
      { url: 'https://other.example/sitemap.xml', error: 'sitemap on another site; not read' },
    ]);
  });

  it('tolerates a bare & in a URL', async () => {
    expect(await collect('/bare-amp.xml')).toEqual({ urls: [u('/q?a=1&b=2'), u('/r?x=')], errors: [] });
  });

  it('stops at maxUrls', async () => {
    const res = await collect('/many.xml', { maxUrls: 10 });
    expect(res.urls).toHaveLength(10);
    expect(res.urls[9]).toBe(u('/p9'));
  });

  it('reads namespace-prefixed XML and plain-text sitemaps', async () => {
    expect((await collect('/prefixed.xml')).urls).toEqual([u('/ns')]);
    expect((await collect('/list.txt')).urls).toEqual([u('/t1'), u('/t2')]);
  });

  it('never expands DOCTYPE entities', async () => {
    const res = await collect('/entities.xml');
    expect(res.urls).toEqual([`${u('/e')}?a=&lol2;`, u('/caf%C3%A9')]);
  });
});

describe('parseSitemap', () => {
  it('recognises both document types and an empty urlset', () => {
    expect(parseSitemap(urlset(['https://x.example/1']))).toEqual({ type: 'urlset', locs: ['https://x.example/1'] });
    expect(parseSitemap(index(['https://x.example/s.xml']))).toEqual({
      type: 'sitemapindex',
      locs: ['https://x.example/s.xml'],
    });
    expect(parseSitemap(`<urlset xmlns="${NS}"/>`)).toEqual({ type: 'urlset', locs: [] });
    expect(
      parseSitemap(`\uFEFF<urlset xmlns="${NS}"><url><loc><![CDATA[https://x.example/c]]></loc></url></urlset>`),
    ).toEqual({
      type: 'urlset',
      locs: ['https://x.example/c'],
    });
  });

  it('says what is wrong', () => {
    expect(() => parseSitemap('<rss><channel/></rss>')).toThrow('not a sitemap: the root element is <rss>');
    expect(() => parseSitemap('<urlset><url>')).toThrow(/^malformed XML/);
    expect(() => parseSitemap('hello world')).toThrow('not a sitemap: neither XML nor a list of URLs');
  });
});
