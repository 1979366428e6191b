import { describe, expect, it } from 'vitest';
import {
  inScope,
  normalizeUrl,
  pageKey,
  sameSite,
  type CrawlScope,
} from '../../../../../server/domain/knowledge/crawl/url.js';

describe('normalizeUrl', () => {
  const cases: [string, string | undefined, string | null][] = [
    // [raw, base, expected]
    ['HTTP://Example.COM/Path', undefined, 'http://example.com/Path'],
    ['https://example.com', undefined, 'https://example.com/'],
    ['http://example.com:80/a', undefined, 'http://example.com/a'],
    ['https://example.com:443/a', undefined, 'https://example.com/a'],
    ['http://example.com:443/a', undefined, 'http://example.com:443/a'],
    ['https://example.com:8443/a', undefined, 'https://example.com:8443/a'],
    ['https://example.com/a#section', undefined, 'https://example.com/a'],
    ['https://example.com/#', undefined, 'https://example.com/'],
    ['https://münchen.de/straße', undefined, 'https://xn--mnchen-3ya.de/stra%C3%9Fe'],
    ['https://BÜCHER.example/', undefined, 'https://xn--bcher-kva.example/'],
    ['https://example.com/a/./b/../c', undefined, 'https://example.com/a/c'],
    ['https://example.com/a/%2e%2E/b', undefined, 'https://example.com/b'],
    ['https://example.com/../../x', undefined, 'https://example.com/x'],
    ['https://example.com/docs/', undefined, 'https://example.com/docs/'],
    ['https://example.com/docs', undefined, 'https://example.com/docs'],
    ['https://example.com/?', undefined, 'https://example.com/'],
    ['https://example.com/p?utm_source=x&id=1&UTM_Medium=y', undefined, 'https://example.com/p?id=1'],
    ['https://example.com/p?gclid=1&fbclid=2', undefined, 'https://example.com/p'],
    ['https://example.com/p?b=2&a=1&c=3', undefined, 'https://example.com/p?a=1&b=2&c=3'],
    ['https://example.com/p?tag=z&tag=a&id=1', undefined, 'https://example.com/p?id=1&tag=z&tag=a'],
    ['https://example.com/p?a=1&&b=2&', undefined, 'https://example.com/p?a=1&b=2'],
    ['https://example.com/%7euser/%2fx', undefined, 'https://example.com/~user/%2Fx'],
    ['https://example.com./a', undefined, 'https://example.com/a'],
    ['http://0x7f.1/', undefined, 'http://127.0.0.1/'],
    ['http://[::1]:80/', undefined, 'http://[::1]/'],
    ['  https://example.com/a  ', undefined, 'https://example.com/a'],
    // relative links
    ['b', 'https://example.com/a/index.html', 'https://example.com/a/b'],
    ['../up?x=1#f', 'https://example.com/a/b/c', 'https://example.com/a/up?x=1'],
    ['/root', 'https://example.com/a/b', 'https://example.com/root'],
    ['//other.example/x', 'https://example.com/', 'https://other.example/x'],
    ['?q=2', 'https://example.com/search?q=1', 'https://example.com/search?q=2'],
    ['#top', 'https://example.com/page', 'https://example.com/page'],
    // not crawlable
    ['mailto:someone@example.com', undefined, null],
    ['javascript:alert(1)', 'https://example.com/', null],
    ['data:text/html,<p>x</p>', undefined, null],
    ['tel:+4930123', 'https://example.com/', null],
    ['ftp://example.com/file', undefined, null],
    ['file:///etc/passwd', undefined, null],
    ['https://user:pass@example.com/', undefined, null],
    ['/relative/without/base', undefined, null],
    ['', 'https://example.com/', null],
    ['http://', undefined, null],
    [`https://example.com/${'a'.repeat(3000)}`, undefined, null],
  ];

  it.each(cases)('%s (base %s) -> %s', (raw, base, expected) => {
    expect(normalizeUrl(raw, base)).toBe(expected);
  });

  it('is idempotent', () => {
    for (const [raw, base, expected] of cases) {
      if (expected) expect(normalizeUrl(expected), `${raw} ${base}`).toBe(expected);
    }
  });
});

describe('pageKey: one page however it is spelled', () => {
  it.each([
    ['https://example.com/', 'https://example.com/'],
    ['https://example.com/index.html', 'https://example.com/'],
    ['https://example.com/INDEX.HTM', 'https://example.com/'],
    ['https://example.com/docs/', 'https://example.com/docs'],
    ['https://example.com/docs', 'https://example.com/docs'],
    ['https://example.com/docs/index.html', 'https://example.com/docs'],
    ['https://example.com/docs/default.aspx', 'https://example.com/docs'],
    ['https://example.com/docs/index.php?page=2', 'https://example.com/docs?page=2'],
    ['https://example.com/docs//', 'https://example.com/docs'],
    ['https://example.com/reindex.html', 'https://example.com/reindex.html'],
    ['https://example.com/index.html/more', 'https://example.com/index.html/more'],
  ])('%s -> %s', (url, key) => {
    expect(pageKey(url)).toBe(key);
    expect(pageKey(key)).toBe(key);
  });

  it('after normalizeUrl, fragments and tracking parameters are gone too', () => {
    const spellings = [
      'https://example.com/a/',
      'https://example.com/a#x',
      'https://example.com/a/index.html?utm_source=n',
      'https://example.com/a?gclid=1#y',
    ];
    expect(new Set(spellings.map((u) => pageKey(normalizeUrl(u)!)))).toEqual(new Set(['https://example.com/a']));
  });
});

describe('inScope', () => {
  const scope: CrawlScope = { origin: 'https://example.com', maxDepth: 3, maxPages: 100 };

  it('accepts the same scheme, host and port only', () => {
    expect(inScope('https://example.com/any/page', scope)).toBe(true);
    expect(inScope('https://example.com:443/any', scope)).toBe(true);
    expect(inScope('http://example.com/any', scope)).toBe(false);
    expect(inScope('https://example.com:8443/any', scope)).toBe(false);
    expect(inScope('https://www.example.com/any', scope)).toBe(false);
    expect(inScope('https://other.example/any', scope)).toBe(false);
    expect(inScope('https://example.com.evil.test/', scope)).toBe(false);
    expect(inScope('not a url', scope)).toBe(false);
  });

  it('uses only the origin of a scope origin that has a path', () => {
    expect(inScope('https://example.com/x', { ...scope, origin: 'https://example.com/docs/start' })).toBe(true);
  });

  it('honours a path prefix on segment boundaries', () => {
    const docs = { ...scope, pathPrefix: '/docs' };
    expect(inScope('https://example.com/docs', docs)).toBe(true);
    expect(inScope('https://example.com/docs/', docs)).toBe(true);
    expect(inScope('https://example.com/docs/a/b?x=1', docs)).toBe(true);
    expect(inScope('https://example.com/docs-old/a', docs)).toBe(false);
    expect(inScope('https://example.com/blog', docs)).toBe(false);
    expect(inScope('https://example.com/Docs/a', docs)).toBe(false);
    const slash = { ...scope, pathPrefix: '/docs/' };
    expect(inScope('https://example.com/docs', slash)).toBe(true);
    expect(inScope('https://example.com/docs/x', slash)).toBe(true);
    expect(inScope('https://example.com/docsx', slash)).toBe(false);
    expect(inScope('https://example.com/anything', { ...scope, pathPrefix: '/' })).toBe(true);
  });

  it('compares the prefix in escaped form', () => {
    expect(inScope('https://example.com/d%C3%A9mo/a', { ...scope, pathPrefix: '/démo' })).toBe(true);
  });
});

describe('sameSite', () => {
  it('ignores the scheme and a leading www, not the host or an explicit port', () => {
    expect(sameSite('https://example.com/a', 'http://example.com/b')).toBe(true);
    expect(sameSite('https://www.example.com/a', 'https://example.com/')).toBe(true);
    expect(sameSite('http://example.com:80/', 'https://example.com:443/')).toBe(true);
    expect(sameSite('https://blog.example.com/', 'https://example.com/')).toBe(false);
    expect(sameSite('https://example.com:8080/', 'https://example.com/')).toBe(false);
    expect(sameSite('https://example.org/', 'https://example.com/')).toBe(false);
    expect(sameSite('ftp://example.com/', 'https://example.com/')).toBe(false);
  });
});
