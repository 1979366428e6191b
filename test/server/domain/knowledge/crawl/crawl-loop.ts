/**
 * A minimal in-memory crawl loop (the durable job does the same over `ingest_items`) driving
 * fetchPage, canonicalKey and nextLinks, with a regex standing in for the extractor's links.
 */
import type { Fetcher } from '../../../../../server/domain/knowledge/crawl/fetcher.js';
import { canonicalKey, nextLinks } from '../../../../../server/domain/knowledge/crawl/frontier.js';
import { fetchPage, type PageSkipReason } from '../../../../../server/domain/knowledge/crawl/page.js';
import { HostPacer } from '../../../../../server/domain/knowledge/crawl/pacing.js';
import { RobotsCache } from '../../../../../server/domain/knowledge/crawl/robots.js';
import { normalizeUrl, type CrawlScope } from '../../../../../server/domain/knowledge/crawl/url.js';

export const UA = 'Parley/0.1 (+https://github.com/parley-chat/parley)';
export const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

function extractLinks(body: Buffer) {
  const text = body.toString('utf8');
  const links = [...text.matchAll(/<a\s[^>]*href="([^"]*)"/gi)].map((m) => m[1].replace(/&amp;/g, '&'));
  const canonicalUrl = /<link\s+rel="canonical"\s+href="([^"]*)"/i.exec(text)?.[1];
  return { links, canonicalUrl };
}

export async function crawl(start: string, scope: CrawlScope, fetcher: Fetcher, pacer = new HostPacer()) {
  const deps = { fetcher, robots: new RobotsCache(fetcher, UA), pacer, scope };
  const first = normalizeUrl(start)!;
  const seen = new Set([first]);
  const queue = [{ url: first, depth: 0 }];
  let found = 1;
  const stored = new Map<string, { fetchedFrom: string; depth: number }>();
  const skipped: { url: string; reason: PageSkipReason | 'duplicate'; error: string; retryable: boolean }[] = [];
  while (queue.length > 0) {
    const item = queue.shift()!;
    const res = await fetchPage(item.url, deps);
    if (!res.ok) {
      skipped.push({ url: item.url, reason: res.reason, error: res.error, retryable: res.retryable });
      continue;
    }
    const page = { url: res.url, depth: item.depth, ...extractLinks(res.body) };
    const key = canonicalKey(page, scope);
    if (stored.has(key))
      skipped.push({ url: item.url, reason: 'duplicate', error: `same page as ${key}`, retryable: false });
    else stored.set(key, { fetchedFrom: res.url, depth: item.depth });
    seen.add(res.url).add(key);
    for (const link of nextLinks(page, scope, (u) => seen.has(u), found)) {
      seen.add(link.url);
      queue.push(link);
      found++;
    }
  }
  return { stored, skipped };
}
