/**
 * The production Fetcher: the guarded HTTP client (SSRF checks on every hop, size and time
 * limits, Parley's User-Agent), seen through the crawl's small port (domain/knowledge/crawl/fetcher.ts).
 */
import type { Fetcher } from '../domain/knowledge/crawl/fetcher.js';
import type { GuardedHttpClient, OutboundLimits } from '../outbound/guarded-client.js';

export function guardedFetcher(client: Pick<GuardedHttpClient, 'request'>, limits: OutboundLimits = {}): Fetcher {
  return {
    async get(url, opts = {}) {
      const res = await client.request(url, {
        method: 'GET',
        headers: { ...opts.headers, ...(opts.accept ? { accept: opts.accept } : {}) },
        limits: opts.maxBytes === undefined ? limits : { ...limits, maxBytes: opts.maxBytes },
        followRedirects: true,
        signal: opts.signal,
      });
      return { url: res.url, status: res.status, contentType: res.contentType, body: res.body, headers: res.headers };
    },
  };
}
