/**
 * The crawl policy for one frontier URL, up to the bytes extraction needs: scope, robots.txt,
 * crawl delay, fetch, redirect target re-checked, status, HTML only. Each refusal comes back
 * as a reason and a message for the job's per-URL error list, with whether a later retry
 * could succeed; nothing here throws for a bad page.
 */
import { describeFetchError, fetchFailure, type Fetcher } from './fetcher.js';
import { isHtmlResponse, mimeOf } from './content.js';
import type { HostPacer } from './pacing.js';
import type { RobotsCache } from './robots.js';
import { inScope, normalizeUrl, originOf, type CrawlScope } from './url.js';

export interface PageFetchDeps {
  fetcher: Fetcher;
  robots: RobotsCache;
  pacer: HostPacer;
  scope: CrawlScope;
  /** Largest page accepted. Default 10 MiB. */
  maxBytes?: number;
  /** Cancels a pending crawl-delay wait or request (the job was cancelled). */
  signal?: AbortSignal;
}

export type PageSkipReason =
  | 'invalid-url'
  | 'out-of-scope'
  | 'robots'
  | 'robots-unreachable'
  | 'fetch-failed'
  | 'http-status'
  | 'redirected-out-of-scope'
  | 'not-html';

export type PageFetch =
  | {
      ok: true;
      /** Final URL after redirects, normalised: the page's URL from now on. */
      url: string;
      status: number;
      contentType: string | null;
      body: Buffer;
      headers: Record<string, string>;
    }
  | { ok: false; url: string; reason: PageSkipReason; error: string; retryable: boolean };

const ACCEPT_HTML = 'text/html, application/xhtml+xml;q=0.9, */*;q=0.1';
const RETRYABLE_CODES = new Set(['TIMEOUT', 'NETWORK']);
const FINAL_CODES = new Set(['BLOCKED_ADDRESS', 'INVALID_URL', 'UNSUPPORTED_PROTOCOL']);
const retryableStatus = (s: number) => s === 408 || s === 425 || s === 429 || s >= 500;

export async function fetchPage(url: string, deps: PageFetchDeps): Promise<PageFetch> {
  const skip = (at: string, reason: PageSkipReason, error: string, retryable = false): PageFetch => ({
    ok: false,
    url: at,
    reason,
    error,
    retryable,
  });
  const normal = normalizeUrl(url);
  if (!normal) return skip(url, 'invalid-url', 'not an absolute http(s) URL');
  if (!inScope(normal, deps.scope))
    return skip(normal, 'out-of-scope', `outside the crawl scope ${deps.scope.origin}${deps.scope.pathPrefix ?? ''}`);

  const verdict = await deps.robots.check(normal);
  if (verdict.reason === 'unreachable') {
    const { code, message } = verdict.error ?? { code: 'NETWORK', message: 'unknown error' };
    // The page itself would be refused the same way: report the real cause, not robots.txt.
    if (FINAL_CODES.has(code)) return skip(normal, 'fetch-failed', fetchFailure(normal, code, message));
    return skip(
      normal,
      'robots-unreachable',
      `robots.txt could not be read (${message}); the site is not crawled until it can be`,
      true,
    );
  }
  if (!verdict.allowed) return skip(normal, 'robots', 'disallowed by robots.txt');

  const origin = originOf(normal)!;
  await deps.pacer.wait(origin, await deps.robots.crawlDelayMs(origin), deps.signal);

  let res;
  try {
    res = await deps.fetcher.get(normal, {
      accept: ACCEPT_HTML,
      maxBytes: deps.maxBytes ?? 10 * 1024 * 1024,
      signal: deps.signal,
    });
  } catch (err) {
    const { code, message } = describeFetchError(err);
    return skip(normal, 'fetch-failed', fetchFailure(normal, code, message), RETRYABLE_CODES.has(code));
  }

  const final = normalizeUrl(res.url) ?? normal;
  if (final !== normal) {
    if (!inScope(final, deps.scope))
      return skip(normal, 'redirected-out-of-scope', `redirected outside the crawl scope, to ${final}`);
    // The fetcher followed the redirect on its own; the target's rules still apply to keeping it.
    if (!(await deps.robots.allowed(final)))
      return skip(normal, 'robots', `redirected to ${final}, which robots.txt disallows`);
  }
  if (res.status < 200 || res.status >= 300)
    return skip(final, 'http-status', `HTTP ${res.status}`, retryableStatus(res.status));
  if (!isHtmlResponse(res.contentType, res.body)) {
    return skip(final, 'not-html', `not an HTML page (${mimeOf(res.contentType) || 'no content type'})`);
  }
  return {
    ok: true,
    url: final,
    status: res.status,
    contentType: res.contentType,
    body: res.body,
    headers: res.headers,
  };
}
