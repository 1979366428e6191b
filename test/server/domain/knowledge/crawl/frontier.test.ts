import { describe, expect, it } from 'vitest';
import {
  canonicalKey,
  isHtmlResponse,
  isNonHtmlUrl,
  nextLinks,
} from '../../../../../server/domain/knowledge/crawl/frontier.js';
import type { CrawlScope } from '../../../../../server/domain/knowledge/crawl/url.js';

const scope: CrawlScope = { origin: 'https://example.com', maxDepth: 2, maxPages: 100 };
const none = () => false;

describe('nextLinks', () => {
  it('normalises, keeps in-scope links once, drops the page itself and non-HTML files', () => {
    const links = nextLinks(
      {
        url: 'https://example.com/docs/intro',
        depth: 0,
        links: [
          'setup',
          '/docs/setup#install',
          'https://EXAMPLE.com/docs/setup?utm_campaign=x',
          'https://example.com/docs/intro#top',
          'https://other.example/page',
          'http://example.com/insecure',
          'https://example.com:8443/other-port',
          'mailto:hello@example.com',
          'javascript:void(0)',
          '/files/manual.pdf',
          '/img/logo.PNG',
          '/api?b=2&a=1',
          '/api?a=1&b=2',
        ],
      },
      scope,
      none,
    );
    expect(links).toEqual([
      { url: 'https://example.com/docs/setup', depth: 1 },
      { url: 'https://example.com/api?a=1&b=2', depth: 1 },
    ]);
  });

  it('skips what the frontier has seen', () => {
    const seen = new Set(['https://example.com/a']);
    const links = nextLinks({ url: 'https://example.com/', depth: 0, links: ['/a', '/b'] }, scope, (u) => seen.has(u));
    expect(links).toEqual([{ url: 'https://example.com/b', depth: 1 }]);
  });

  it('stops at maxDepth: a page at the last depth adds nothing', () => {
    const page = { url: 'https://example.com/x', links: ['/y'] };
    expect(nextLinks({ ...page, depth: 1 }, scope, none)).toEqual([{ url: 'https://example.com/y', depth: 2 }]);
    expect(nextLinks({ ...page, depth: 2 }, scope, none)).toEqual([]);
    expect(nextLinks({ ...page, depth: 0 }, { ...scope, maxDepth: 0 }, none)).toEqual([]);
  });

  it('admits no more than maxPages minus what the frontier already holds', () => {
    const page = { url: 'https://example.com/', depth: 0, links: Array.from({ length: 20 }, (_, i) => `/p${i}`) };
    expect(nextLinks(page, { ...scope, maxPages: 5 }, none)).toHaveLength(5);
    expect(nextLinks(page, { ...scope, maxPages: 5 }, none, 3).map((l) => l.url)).toEqual([
      'https://example.com/p0',
      'https://example.com/p1',
    ]);
    expect(nextLinks(page, { ...scope, maxPages: 5 }, none, 5)).toEqual([]);
  });

  it('honours a path prefix', () => {
    const links = nextLinks(
      { url: 'https://example.com/docs/', depth: 0, links: ['/docs/a', '/blog/b', '/docs-old/c', 'a/b'] },
      { ...scope, pathPrefix: '/docs/' },
      none,
    );
    expect(links.map((l) => l.url)).toEqual(['https://example.com/docs/a', 'https://example.com/docs/a/b']);
  });

  it('does not re-add the canonical URL of the page', () => {
    const links = nextLinks(
      { url: 'https://example.com/p?ref=home', canonicalUrl: '/p', depth: 0, links: ['/p', '/q'] },
      scope,
      none,
    );
    expect(links).toEqual([{ url: 'https://example.com/q', depth: 1 }]);
  });
});

describe('canonicalKey', () => {
  it('uses a differing in-scope canonical URL, resolved and normalised', () => {
    expect(canonicalKey({ url: 'https://example.com/p?sessionid=1', canonicalUrl: '/p' }, scope)).toBe(
      'https://example.com/p',
    );
    expect(canonicalKey({ url: 'https://example.com/a', canonicalUrl: 'HTTPS://Example.com/b#x' })).toBe(
      'https://example.com/b',
    );
  });

  it('keeps the page URL when there is no canonical, or it is out of scope or not a URL', () => {
    expect(canonicalKey({ url: 'https://EXAMPLE.com/a#frag' })).toBe('https://example.com/a');
    expect(canonicalKey({ url: 'https://example.com/a', canonicalUrl: 'https://other.example/a' }, scope)).toBe(
      'https://example.com/a',
    );
    expect(canonicalKey({ url: 'https://example.com/a', canonicalUrl: 'https://other.example/a' })).toBe(
      'https://example.com/a',
    );
    expect(
      canonicalKey({ url: 'https://example.com/docs/a', canonicalUrl: '/blog/a' }, { ...scope, pathPrefix: '/docs' }),
    ).toBe('https://example.com/docs/a');
    expect(canonicalKey({ url: 'https://example.com/a', canonicalUrl: 'javascript:x' }, scope)).toBe(
      'https://example.com/a',
    );
    expect(canonicalKey({ url: 'https://example.com/a', canonicalUrl: '' }, scope)).toBe('https://example.com/a');
  });
});

describe('isHtmlResponse', () => {
  const page = Buffer.from('<!DOCTYPE html><html><body>hi</body></html>');
  const pdf = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj', 'latin1');
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]);
  const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]);

  it.each([
    ['text/html; charset=utf-8', page, true],
    ['application/xhtml+xml', page, true],
    ['TEXT/HTML', Buffer.from('just text, still declared html'), true],
    [null, page, true],
    ['application/octet-stream', Buffer.from('\uFEFF  \n<html lang="en"><head>'), true],
    [null, Buffer.from('<!-- generated --><div>x</div>'), true],
    ['application/pdf', pdf, false],
    ['text/html', pdf, false],
    [null, pdf, false],
    ['image/png', png, false],
    ['text/html', png, false],
    ['image/jpeg', jpeg, false],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', zip, false],
    ['text/plain', Buffer.from('<html>looks like html but declared text</html>'), false],
    ['application/json', Buffer.from('{"a":1}'), false],
    [null, Buffer.from('plain words'), false],
    ['text/html', Buffer.from([0x3c, 0x68, 0x00, 0x01, 0x02]), false],
    [null, Buffer.alloc(0), false],
  ])('%s %#', (type, body, expected) => {
    expect(isHtmlResponse(type, body)).toBe(expected);
  });
});

describe('isNonHtmlUrl', () => {
  it('recognises file extensions only at the end of the path', () => {
    expect(isNonHtmlUrl('https://example.com/a/report.PDF')).toBe(true);
    expect(isNonHtmlUrl('https://example.com/a/photo.jpeg?w=100')).toBe(true);
    expect(isNonHtmlUrl('https://example.com/pdf/guide')).toBe(false);
    expect(isNonHtmlUrl('https://example.com/page.html')).toBe(false);
    expect(isNonHtmlUrl('https://example.com/?file=x.pdf')).toBe(false);
  });
});
