/**
 * robots.txt per RFC 9309, parsed by robots-parser (groups, wildcards, longest-match with
 * Allow winning ties, Crawl-delay, Sitemap). One fetch per origin, shared by concurrent
 * callers and cached. A missing file (4xx) allows everything; an unreachable one (5xx, 429,
 * network failure) disallows everything for that origin until the error entry expires.
 */
import robotsParserModule from 'robots-parser';
import { describeFetchError, type Fetcher } from './fetcher.js';
import { normalizeUrl, originOf, sameSite } from './url.js';

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
// The package is CommonJS (module.exports is the function) but its types declare an ES default export.
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => Robot;

export type RobotsReason = 'rules' | 'no-robots' | 'unreachable' | 'robots-file' | 'invalid-url';

/** `unreachable` is usually worth retrying later; the other reasons are final for this robots.txt. */
export interface RobotsVerdict {
  allowed: boolean;
  reason: RobotsReason;
  /** For `unreachable`: why, with the fetcher's code (BLOCKED_ADDRESS, TIMEOUT, ...) or HTTP_STATUS. */
  error?: { code: string; message: string };
}

export interface RobotsOptions {
  /** Bytes fetched; the first 500 KiB are parsed (RFC 9309 2.5). Larger files count as unreachable. */
  maxBytes?: number;
  /** A Crawl-delay above this is capped, so one line cannot stall a job for hours. Default 30 s. */
  maxCrawlDelayMs?: number;
  /** How long a fetched robots.txt is trusted. Default 24 h (RFC 9309 2.4). */
  ttlMs?: number;
  /** How long an unreachable robots.txt keeps its origin disallowed before we ask again. Default 5 min. */
  errorTtlMs?: number;
  now?: () => number;
}

type Entry =
  | { kind: 'rules'; robot: Robot }
  | { kind: 'allow-all' }
  | { kind: 'disallow-all'; error: { code: string; message: string } };

const PARSE_LIMIT = 500 * 1024;
const MAX_ORIGINS = 1000;

/**
 * The product token robots.txt groups are matched against: `ParleyBot/1.0 (+url)` -> `parleybot`,
 * `Mozilla/5.0 (compatible; ParleyBot/1.0)` -> `parleybot`.
 */
export function robotsToken(userAgent: string): string {
  const compatible = /compatible;\s*([A-Za-z_-]+)/i.exec(userAgent);
  if (compatible) return compatible[1].toLowerCase();
  const first = /[A-Za-z_-]+/.exec(userAgent);
  return first ? first[0].toLowerCase() : '*';
}

export class RobotsCache {
  readonly token: string;
  private readonly entries = new Map<string, { expires: number; entry: Promise<Entry> }>();
  private readonly maxBytes: number;
  private readonly maxCrawlDelayMs: number;
  private readonly ttlMs: number;
  private readonly errorTtlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly fetcher: Fetcher,
    userAgent: string,
    opts: RobotsOptions = {},
  ) {
    this.token = robotsToken(userAgent);
    this.maxBytes = opts.maxBytes ?? 2 * 1024 * 1024;
    this.maxCrawlDelayMs = opts.maxCrawlDelayMs ?? 30_000;
    this.ttlMs = opts.ttlMs ?? 24 * 60 * 60 * 1000;
    this.errorTtlMs = opts.errorTtlMs ?? 5 * 60 * 1000;
    this.now = opts.now ?? Date.now;
  }

  /** Whether our user agent may fetch `url`, and why. */
  async check(url: string): Promise<RobotsVerdict> {
    const normal = normalizeUrl(url);
    const origin = normal && originOf(normal);
    if (!normal || !origin) return { allowed: false, reason: 'invalid-url' };
    if (new URL(normal).pathname === '/robots.txt') return { allowed: true, reason: 'robots-file' };
    const entry = await this.entry(origin);
    if (entry.kind === 'allow-all') return { allowed: true, reason: 'no-robots' };
    if (entry.kind === 'disallow-all') return { allowed: false, reason: 'unreachable', error: entry.error };
    // undefined only when the URL is not on this robots.txt's origin, which origin keying rules out.
    return { allowed: entry.robot.isAllowed(normal, this.token) !== false, reason: 'rules' };
  }

  async allowed(url: string): Promise<boolean> {
    return (await this.check(url)).allowed;
  }

  /** Crawl-delay of the group that applies to us, in ms (capped); 0 when none. */
  async crawlDelayMs(origin: string): Promise<number> {
    const o = originOf(origin);
    if (!o) return 0;
    const entry = await this.entry(o);
    if (entry.kind !== 'rules') return 0;
    const seconds = entry.robot.getCrawlDelay(this.token);
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return 0;
    return Math.min(Math.round(seconds * 1000), this.maxCrawlDelayMs);
  }

  /** The `Sitemap:` URLs of the origin's robots.txt that are on the same site, normalised and deduplicated. */
  async sitemaps(origin: string): Promise<string[]> {
    const o = originOf(origin);
    if (!o) return [];
    const entry = await this.entry(o);
    if (entry.kind !== 'rules') return [];
    const urls = entry.robot
      .getSitemaps()
      .map((s) => normalizeUrl(s, `${o}/robots.txt`))
      .filter((s): s is string => s !== null && sameSite(s, o));
    return [...new Set(urls)];
  }

  private entry(origin: string): Promise<Entry> {
    const cached = this.entries.get(origin);
    if (cached && cached.expires > this.now()) return cached.entry;
    if (this.entries.size >= MAX_ORIGINS) this.entries.delete(this.entries.keys().next().value!);
    const slot = { expires: Number.POSITIVE_INFINITY, entry: this.load(origin) };
    this.entries.set(origin, slot);
    // The expiry depends on the outcome; until then concurrent callers share the pending fetch.
    void slot.entry.then((e) => {
      slot.expires = this.now() + (e.kind === 'disallow-all' ? this.errorTtlMs : this.ttlMs);
    });
    return slot.entry;
  }

  private async load(origin: string): Promise<Entry> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const res = await this.fetcher.get(robotsUrl, { accept: 'text/plain', maxBytes: this.maxBytes });
      if (res.status >= 200 && res.status < 300) {
        const text = res.body.subarray(0, PARSE_LIMIT).toString('utf8');
        // Rules are keyed to the requested origin even if the file came from a redirect elsewhere (RFC 9309 2.3.1.2).
        return { kind: 'rules', robot: robotsParser(robotsUrl, text) };
      }
      // 429 is the server asking us to back off: treated like a server error, as Google does.
      if (res.status === 429 || res.status >= 500) {
        return {
          kind: 'disallow-all',
          error: { code: 'HTTP_STATUS', message: `${robotsUrl} answered HTTP ${res.status}` },
        };
      }
      // 4xx: "unavailable", crawl freely. 1xx/3xx left over: likewise (RFC 9309 2.3.1.2, 2.3.1.3).
      return { kind: 'allow-all' };
    } catch (err) {
      return { kind: 'disallow-all', error: describeFetchError(err) };
    }
  }
}
