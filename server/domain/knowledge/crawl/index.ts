/** Crawl policy: what to fetch, whether we may, how fast, and what a fetched page adds. See README.md. */
export { describeFetchError, type Fetcher, type FetchOptions, type FetchResult } from './fetcher.js';
export { inScope, normalizeUrl, originOf, sameSite, MAX_URL_LENGTH, type CrawlScope } from './url.js';
export { RobotsCache, robotsToken, type RobotsOptions, type RobotsReason, type RobotsVerdict } from './robots.js';
export {
  collectSitemapUrls,
  parseSitemap,
  type ParsedSitemap,
  type SitemapOptions,
  type SitemapResult,
} from './sitemap.js';
export { HostPacer, type HostPacerOptions } from './pacing.js';
export { canonicalKey, isNonHtmlUrl, nextLinks, type CrawledPage, type FrontierLink } from './frontier.js';
export { isHtmlResponse, mimeOf } from './content.js';
export { fetchPage, type PageFetch, type PageFetchDeps, type PageSkipReason } from './page.js';
