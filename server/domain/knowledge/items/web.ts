/**
 * Item handlers for the web: a crawled page (website, sitemap entries) and a listed link
 * (which may also be a PDF or DOCX), and a sitemap to expand into page items.
 */
import { describeFetchError, fetchFailure } from '../crawl/fetcher.js';
import { canonicalKey, nextLinks } from '../crawl/frontier.js';
import { fetchPage } from '../crawl/page.js';
import { collectSitemapUrls } from '../crawl/sitemap.js';
import { inScope, normalizeUrl, originOf, pageKey, type CrawlScope } from '../crawl/url.js';
import type { ExtractedDocument } from '../documents.js';
import { isExtractionError } from '../extraction-error.js';
import type { ItemContext, ItemHandler, ItemResult } from '../ingest-runner.js';
import type { IngestItem } from '../ports.js';

const PAGE_MAX_BYTES = 10 * 1024 * 1024;
const DOC_MAX_BYTES = 25 * 1024 * 1024;

export function scopeOf(ctx: ItemContext): CrawlScope {
  const o = ctx.job.options as { origin?: string; pathPrefix?: string; maxDepth?: number; maxPages?: number };
  return { origin: o.origin ?? '', pathPrefix: o.pathPrefix, maxDepth: o.maxDepth ?? 0, maxPages: o.maxPages ?? 1 };
}

async function indexOutcome(ctx: ItemContext, key: string, url: string, doc: ExtractedDocument): Promise<ItemResult> {
  const { outcome } = await ctx.indexer.index({
    accountId: ctx.account.id,
    maxPages: ctx.account.plan.maxPages,
    chatbotId: ctx.chatbot.id,
    sourceId: ctx.source.id,
    key,
    url,
    doc,
  });
  if (outcome === 'quota') {
    const error = "CHATBOT_PAGES_LIMIT_REACHED: the plan's content page quota is used up";
    // Listed as a skipped document with the reason: the job's error list holds failures only, and
    // a re-sync after the quota grows indexes it under the same key.
    await ctx.indexer.recordFailure({
      chatbotId: ctx.chatbot.id,
      sourceId: ctx.source.id,
      key,
      url,
      title: doc.title || url || 'Untitled',
      kind: doc.kind,
      error,
      status: 'skipped',
    });
    return { status: 'skipped', error };
  }
  return { status: 'done' };
}

const failure = (err: unknown): ItemResult => ({
  status: 'failed',
  error: isExtractionError(err) ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err),
});

/** A page of a website crawl or a sitemap: fetched under the crawl policy, HTML only. */
export const pageItem: ItemHandler = async (ctx, item) => {
  const scope = scopeOf(ctx);
  const crawl = item.payload?.crawl === true;
  const res = await fetchPage(String(item.payload?.url ?? item.key), {
    fetcher: ctx.fetcher,
    robots: ctx.robots,
    pacer: ctx.pacer,
    scope,
    signal: ctx.signal,
    maxBytes: PAGE_MAX_BYTES,
  });
  if (!res.ok) {
    const quiet =
      res.reason === 'robots' ||
      res.reason === 'out-of-scope' ||
      res.reason === 'redirected-out-of-scope' ||
      res.reason === 'not-html';
    return { status: quiet ? 'skipped' : 'failed', error: res.error };
  }
  try {
    const doc = await ctx.extractor.extract(
      { bytes: res.body, kind: 'html', url: res.url, contentType: res.contentType ?? undefined },
      ctx.extractLimits,
    );
    if (crawl) {
      // The page budget is applied by discover() on the job's current count: pages of one batch
      // run concurrently, so a count read before fetching would let each of them fill it.
      const links = nextLinks(
        { url: res.url, links: doc.links ?? [], canonicalUrl: doc.canonicalUrl, depth: item.depth },
        scope,
        () => false,
        0,
      );
      await ctx.discover(
        links.map((l) => ({ key: pageKey(l.url), depth: l.depth, payload: { type: 'page', url: l.url, crawl: true } })),
        { maxFound: scope.maxPages },
      );
      if (item.depth === 0) await discoverRobotsSitemaps(ctx, scope);
    }
    // Every URL of one page (canonical link, query variants) is one document, under its canonical
    // URL: whichever variant is fetched first must not decide the URL answers cite.
    const url = canonicalKey({ url: res.url, canonicalUrl: doc.canonicalUrl }, scope);
    return await indexOutcome(ctx, pageKey(url), url, doc);
  } catch (err) {
    return failure(err);
  }
};

/** The `Sitemap:` lines of robots.txt seed a website crawl with the pages they list, in scope. */
async function discoverRobotsSitemaps(ctx: ItemContext, scope: CrawlScope) {
  const sitemaps = await ctx.robots.sitemaps(scope.origin);
  for (const sitemap of sitemaps.slice(0, 5)) {
    const { urls } = await collectSitemapUrls(ctx.fetcher, sitemap, {
      maxUrls: scope.maxPages,
      sameSiteAs: scope.origin,
    });
    const inside = urls.filter((u) => inScope(u, scope));
    await ctx.discover(
      inside.map((url) => ({ key: pageKey(url), depth: 1, payload: { type: 'page', url, crawl: true } })),
      { maxFound: scope.maxPages },
    );
  }
}

/** A sitemap (or index): its page URLs become page items of the same job. */
export const sitemapItem: ItemHandler = async (ctx, item) => {
  const scope = scopeOf(ctx);
  const { urls, errors } = await collectSitemapUrls(ctx.fetcher, String(item.payload?.url), {
    maxUrls: scope.maxPages,
    sameSiteAs: scope.origin,
  });
  await ctx.recordErrors(errors);
  await ctx.discover(
    urls.map((url) => ({ key: pageKey(url), depth: 0, payload: { type: 'page', url, crawl: false } })),
  );
  if (!urls.length) return { status: 'failed', error: errors[0]?.error ?? 'The sitemap lists no page of this site' };
  return { status: 'done' };
};

/** A listed link: any origin, robots.txt respected; HTML pages and documents (PDF, DOCX, text). */
export const linkItem: ItemHandler = async (ctx, item: IngestItem) => {
  const url = normalizeUrl(String(item.payload?.url ?? item.key));
  if (!url) return { status: 'failed', error: 'not an absolute http(s) URL' };
  const robots = await ctx.robots.check(url);
  if (robots.reason === 'unreachable') {
    // robots.txt could not be read: a refused address (or a timeout, a 5xx) is the real cause,
    // and the page itself would fail the same way; not "disallowed by robots.txt".
    const { code, message } = robots.error ?? { code: 'NETWORK', message: 'robots.txt could not be read' };
    return {
      status: 'failed',
      error:
        code === 'HTTP_STATUS'
          ? `robots.txt could not be read (${message}); not fetched`
          : fetchFailure(url, code, message),
    };
  }
  if (!robots.allowed) return { status: 'skipped', error: 'disallowed by robots.txt' };
  await ctx.pacer.wait(originOf(url)!, await ctx.robots.crawlDelayMs(originOf(url)!), ctx.signal);
  let res;
  try {
    res = await ctx.fetcher.get(url, { maxBytes: DOC_MAX_BYTES, accept: 'text/html, application/pdf, */*;q=0.5' });
  } catch (err) {
    const { code, message } = describeFetchError(err);
    return { status: 'failed', error: fetchFailure(url, code, message) };
  }
  if (res.status < 200 || res.status >= 300) return { status: 'failed', error: `HTTP ${res.status}` };
  const final = normalizeUrl(res.url) ?? url;
  try {
    const kind = await ctx.extractor.detectKind(res.body, {
      contentType: res.contentType ?? undefined,
      filename: new URL(final).pathname,
    });
    if (!kind || kind === 'youtube')
      return { status: 'skipped', error: `not a readable document (${res.contentType ?? 'unknown type'})` };
    const doc = await ctx.extractor.extract(
      {
        bytes: res.body,
        kind,
        url: final,
        contentType: res.contentType ?? undefined,
        filename: decodeURIComponent(new URL(final).pathname.split('/').pop() || ''),
      },
      ctx.extractLimits,
    );
    // An HTML page is stored (and cited) under its canonical URL, like a crawled one.
    const url = kind === 'html' ? canonicalKey({ url: final, canonicalUrl: doc.canonicalUrl }) : final;
    return await indexOutcome(ctx, kind === 'html' ? pageKey(url) : url, url, doc);
  } catch (err) {
    return failure(err);
  }
};

export { indexOutcome, failure };
