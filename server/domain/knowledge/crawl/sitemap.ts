/**
 * Sitemaps (sitemaps.org): `urlset`, `sitemapindex` nested at most `maxDepth` levels (the given
 * sitemap is level 1), gzip detected by its magic bytes and inflated under a size limit, plain
 * text sitemaps (one URL a line). Every sitemap is read at most once, so an index that lists
 * itself or its parent ends; a broken sitemap becomes an entry in `errors`, the rest go on.
 */
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describeFetchError, fetchFailure, type Fetcher } from './fetcher.js';
import { normalizeUrl, sameSite } from './url.js';

const gunzipAsync = promisify(gunzip);

export interface SitemapOptions {
  /** Stop once this many page URLs are collected. */
  maxUrls: number;
  /** Keep only URLs (pages and child sitemaps) on the same site as this URL. */
  sameSiteAs?: string;
  /** Levels of sitemap documents, the given one being level 1. Default 3. */
  maxDepth?: number;
  /** Most sitemap documents fetched in one call. Default 500. */
  maxSitemaps?: number;
  /** Bytes fetched per sitemap, compressed or not. Default 50 MiB. */
  maxBytes?: number;
  /** Bytes of one sitemap after gunzip. Default 50 MiB, the protocol's own limit. */
  maxDecompressedBytes?: number;
}

export interface SitemapError {
  url: string;
  error: string;
}

export interface SitemapResult {
  urls: string[];
  errors: SitemapError[];
}

export interface ParsedSitemap {
  type: 'urlset' | 'sitemapindex';
  /** `<loc>` values as written (entities decoded), not yet normalised. */
  locs: string[];
}

const MIB = 1024 * 1024;

const parser = new XMLParser({
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: true,
  parseTagValue: false,
  // DOCTYPE entities are never expanded (no entity bombs); the five XML ones are decoded below.
  processEntities: false,
  isArray: (name) => name === 'url' || name === 'sitemap',
});

function decodeXmlEntities(s: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (whole, ref: string) => {
    if (ref[0] !== '#') return named[ref];
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function locsOf(entries: unknown): string[] {
  if (!Array.isArray(entries)) return [];
  return entries
    .map((e) => (e && typeof e === 'object' ? (e as { loc?: unknown }).loc : undefined))
    .filter((loc): loc is string => typeof loc === 'string' && loc.trim() !== '')
    .map((loc) => decodeXmlEntities(loc.trim()));
}

/** Parses one sitemap document; throws an Error whose message says what is wrong with it. */
export function parseSitemap(text: string): ParsedSitemap {
  const body = text.replace(/^\uFEFF/, '');
  if (!body.trimStart().startsWith('<')) {
    const locs = body
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => /^https?:\/\//i.test(l));
    if (locs.length === 0) throw new Error('not a sitemap: neither XML nor a list of URLs');
    return { type: 'urlset', locs };
  }
  if (/^\s*<(?:!doctype\s+html|html)[\s>]/i.test(body)) throw new Error('not a sitemap: an HTML page');
  // A bare `&` in a URL is the commonest sitemap mistake; escape it rather than lose the whole file.
  const escaped = body.replace(/&(?!(?:#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z][\w.-]*);)/g, '&amp;');
  const valid = XMLValidator.validate(escaped);
  if (valid !== true) throw new Error(`malformed XML at line ${valid.err.line}: ${valid.err.msg}`);
  const doc = parser.parse(escaped) as Record<string, unknown>;
  if ('urlset' in doc) return { type: 'urlset', locs: locsOf((doc.urlset as { url?: unknown } | null)?.url) };
  if ('sitemapindex' in doc) {
    return { type: 'sitemapindex', locs: locsOf((doc.sitemapindex as { sitemap?: unknown } | null)?.sitemap) };
  }
  const root = Object.keys(doc).find((k) => !k.startsWith('#')) ?? '(none)';
  throw new Error(`not a sitemap: the root element is <${root}>, expected <urlset> or <sitemapindex>`);
}

async function inflate(bytes: Buffer, limit: number): Promise<Buffer> {
  try {
    return await gunzipAsync(bytes, { maxOutputLength: limit });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
      throw new Error(`larger than ${limit} bytes once decompressed`);
    }
    throw new Error(`not a valid gzip file: ${(err as Error).message}`);
  }
}

async function loadSitemap(
  fetcher: Fetcher,
  url: string,
  limits: { maxBytes: number; maxDecompressedBytes: number },
): Promise<ParsedSitemap & { url: string }> {
  let res;
  try {
    res = await fetcher.get(url, { accept: 'application/xml, text/xml;q=0.9, */*;q=0.5', maxBytes: limits.maxBytes });
  } catch (err) {
    const { code, message } = describeFetchError(err);
    throw new Error(fetchFailure(url, code, message));
  }
  if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
  let bytes = res.body;
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    bytes = await inflate(bytes, limits.maxDecompressedBytes);
  } else if (bytes.length > limits.maxDecompressedBytes) {
    throw new Error(`larger than ${limits.maxDecompressedBytes} bytes`);
  }
  return { ...parseSitemap(bytes.toString('utf8')), url: res.url };
}

/** Page URLs listed by a sitemap or sitemap index, normalised, deduplicated, in document order. */
export async function collectSitemapUrls(
  fetcher: Fetcher,
  sitemapUrl: string,
  opts: SitemapOptions,
): Promise<SitemapResult> {
  const maxDepth = opts.maxDepth ?? 3;
  const maxSitemaps = opts.maxSitemaps ?? 500;
  const limits = { maxBytes: opts.maxBytes ?? 50 * MIB, maxDecompressedBytes: opts.maxDecompressedBytes ?? 50 * MIB };
  const urls = new Set<string>();
  const errors: SitemapError[] = [];
  const root = normalizeUrl(sitemapUrl);
  if (!root) return { urls: [], errors: [{ url: sitemapUrl, error: 'not an absolute http(s) URL' }] };

  const onSite = (u: string) => !opts.sameSiteAs || sameSite(u, opts.sameSiteAs);
  const visited = new Set<string>([root]);
  const queue: { url: string; level: number }[] = [{ url: root, level: 1 }];
  let fetched = 0;

  while (queue.length > 0 && urls.size < opts.maxUrls) {
    const { url, level } = queue.shift()!;
    if (fetched >= maxSitemaps) {
      errors.push({ url, error: `more than ${maxSitemaps} sitemaps; this one and the rest were not read` });
      break;
    }
    fetched++;
    let doc: ParsedSitemap & { url: string };
    try {
      doc = await loadSitemap(fetcher, url, limits);
    } catch (err) {
      errors.push({ url, error: (err as Error).message });
      continue;
    }
    const base = doc.url;
    if (doc.type === 'sitemapindex') {
      for (const loc of doc.locs) {
        const child = normalizeUrl(loc, base);
        // Already read or queued: a cycle or a repeat, nothing new to learn.
        if (!child || visited.has(child)) continue;
        visited.add(child);
        if (!onSite(child)) errors.push({ url: child, error: 'sitemap on another site; not read' });
        else if (level + 1 > maxDepth)
          errors.push({ url: child, error: `nested more than ${maxDepth} levels deep; not read` });
        else queue.push({ url: child, level: level + 1 });
      }
      continue;
    }
    for (const loc of doc.locs) {
      const page = normalizeUrl(loc, base);
      if (!page || !onSite(page)) continue;
      urls.add(page);
      if (urls.size >= opts.maxUrls) break;
    }
  }
  return { urls: [...urls], errors };
}
