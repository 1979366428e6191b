/**
 * One spelling per page, so the frontier dedupes and documents are keyed consistently:
 * WHATWG parsing (lower-case scheme and host, punycode, default port dropped, dot segments
 * collapsed) plus what it leaves alone: fragments, tracking parameters, query order and the
 * case of percent-escapes. `normalizeUrl` keeps trailing slashes as written, because relative
 * links resolve differently under `/docs` and `/docs/`; `pageKey` is the page's identity,
 * where they and `/docs/index.html` are one page.
 */

/** Longer URLs are almost always crawl traps (session ids, calendars); sitemaps cap at 2048 too. */
export const MAX_URL_LENGTH = 2048;

/** Parameters that only say where a visitor came from; never part of a page's identity. */
const TRACKING_PARAM = /^(?:utm_.*|gclid|fbclid|msclkid|dclid|gbraid|wbraid|yclid|mc_cid|mc_eid|igshid|_hsenc|_hsmi)$/i;

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** `%7e` -> `~` (unreserved characters need no escape), other escapes upper-cased (RFC 3986 6.2.2). */
function normalisePercent(s: string): string {
  return s.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

function paramName(pair: string): string {
  const name = pair.split('=', 1)[0].replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** Drops empty pairs and tracking parameters; sorts by name, stably, so repeated names keep their order. */
function normaliseQuery(search: string): string {
  const pairs = search
    .replace(/^\?/, '')
    .split('&')
    .filter((p) => p !== '')
    .map(normalisePercent)
    .filter((p) => !TRACKING_PARAM.test(paramName(p)));
  const name = (p: string) => p.split('=', 1)[0];
  pairs.sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
  return pairs.length ? `?${pairs.join('&')}` : '';
}

/**
 * The canonical absolute form of an http(s) URL, resolved against `base` when relative; null
 * for anything we would not crawl (other schemes, credentials in the URL, unparsable, too long).
 */
export function normalizeUrl(raw: string, base?: string): string | null {
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  let u: URL;
  try {
    u = base === undefined ? new URL(raw.trim()) : new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  // The guarded client refuses them, and a link carrying a password is not one to follow.
  if (u.username !== '' || u.password !== '') return null;
  if (u.hostname.endsWith('.')) u.hostname = u.hostname.replace(/\.+$/, '');
  if (u.hostname === '') return null;
  u.hash = '';
  u.pathname = normalisePercent(u.pathname);
  u.search = normaliseQuery(u.search);
  const href = u.href;
  return href.length <= MAX_URL_LENGTH ? href : null;
}

/** Directory index files: `/docs/index.html` is the page `/docs/`. */
const INDEX_FILE = /\/(?:index|default)\.(?:html?|php|aspx?|jsp)$/i;

/**
 * The identity of a page, from a normalised URL: a final index file (`index.html`, `index.htm`,
 * `index.php`, `default.aspx`...) and a trailing slash are dropped, except the root's
 * (`/index.html` -> `/`, `/docs/` -> `/docs`). The frontier and documents are keyed by it, so
 * those spellings are fetched once, stored once and cited once; the fetch uses the spelling found.
 */
export function pageKey(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  let path = u.pathname.replace(INDEX_FILE, '/');
  if (path.length > 1) path = path.replace(/\/+$/, '');
  u.pathname = path || '/';
  return u.href;
}

export interface CrawlScope {
  /** scheme://host[:port]; anything after the origin is ignored. */
  origin: string;
  /** Only paths under this one: `/docs` admits `/docs`, `/docs/` and `/docs/x`, not `/docs-old`. */
  pathPrefix?: string;
  /** Links followed from the start page (depth 0); a page at depth maxDepth is fetched but its links are not. */
  maxDepth: number;
  /** URLs admitted into the frontier per job, the start URL included. */
  maxPages: number;
}

function underPrefix(path: string, prefix: string): boolean {
  if (prefix === '' || prefix === '/') return true;
  if (prefix.endsWith('/')) return path.startsWith(prefix) || path === prefix.slice(0, -1);
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Same origin (scheme, host and port) as the scope and, when it has one, under its path prefix. */
export function inScope(url: string, scope: CrawlScope): boolean {
  let u: URL;
  let origin: URL;
  try {
    u = new URL(url);
    origin = new URL(scope.origin);
  } catch {
    return false;
  }
  if (u.origin !== origin.origin || u.origin === 'null') return false;
  if (!scope.pathPrefix) return true;
  // The prefix in the same escaped, dot-free form as URL paths.
  const prefix = normalisePercent(new URL(scope.pathPrefix, origin.origin).pathname);
  return underPrefix(u.pathname, prefix);
}

/** host without a leading `www.`, plus the port when it is not the scheme's default. */
function siteKey(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return `${u.hostname.replace(/\.+$/, '').replace(/^www\./, '')}|${u.port}`;
  } catch {
    return null;
  }
}

/**
 * Same site for sitemaps and robots.txt `Sitemap:` lines: the same host, ignoring a leading
 * `www.` and http vs https (sites move to https and keep old sitemap entries); a different
 * explicit port is a different site.
 */
export function sameSite(a: string, b: string): boolean {
  const ka = siteKey(a);
  return ka !== null && ka === siteKey(b);
}

/** scheme://host[:port] of a URL, or null. */
export function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}
