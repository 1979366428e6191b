/**
 * The one thing crawling needs from the network. The production implementation adapts the
 * guarded HTTP client (server/adapters/crawl-fetcher.ts), so every crawl request gets its SSRF checks and
 * limits; tests pass a plain node:http one. Redirects are followed by the fetcher: `url` is
 * the final URL. A non-2xx status is a result, not an error; a failure to get any response
 * (refused address, timeout, too large, network) is thrown.
 */
export interface FetchResult {
  /** Final URL after redirects. */
  url: string;
  status: number;
  contentType: string | null;
  body: Buffer;
  /** Lower-case header names. */
  headers: Record<string, string>;
}

export interface FetchOptions {
  accept?: string;
  maxBytes?: number;
  /** Extra request headers (an API's Authorization); dropped on a redirect to another origin. */
  headers?: Record<string, string>;
  /** Aborts the request (a cancelled job). */
  signal?: AbortSignal;
}

export interface Fetcher {
  get(url: string, opts?: FetchOptions): Promise<FetchResult>;
}

/** A thrown fetch failure as one line a person can read, with the guarded client's code when there is one. */
/**
 * A failed fetch of `url` for the job's error list. A refused internal address names the page
 * the user asked for (not only the robots.txt read first) and the setting that opens it.
 */
export function fetchFailure(url: string, code: string, message: string): string {
  if (code !== 'BLOCKED_ADDRESS') return `${code}: ${message}`;
  const why = message.replace(/^Refused to (fetch|connect to) \S+: /, '');
  return `BLOCKED_ADDRESS: ${url} was not fetched: ${why}. Internal addresses are refused unless ALLOW_PRIVATE_FETCH opens them (1, or their address ranges)`;
}

export function describeFetchError(err: unknown): { code: string; message: string } {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : 'NETWORK';
  const message = typeof e?.message === 'string' && e.message ? e.message : String(err);
  return { code, message };
}
