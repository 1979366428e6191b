/**
 * What a fetched page adds to the frontier, and under which key the page itself is stored.
 * Pure: the job owns the frontier (the `ingest_items` table) and passes `seen` over it.
 */
import { inScope, normalizeUrl, originOf, pageKey, type CrawlScope } from './url.js';

export { isHtmlResponse } from './content.js';

export interface CrawledPage {
  /** The URL the page was fetched from, after redirects. */
  url: string;
  /** Links found in the page (absolute or relative to `url`). */
  links: string[];
  /** The page's `<link rel=canonical>`, if any. */
  canonicalUrl?: string;
  /** 0 for the start URL (and sitemap entries), +1 per link followed. */
  depth: number;
}

export interface FrontierLink {
  url: string;
  depth: number;
}

/** Extensions of files that are never HTML pages: following them would only fetch something we skip. */
const NON_HTML_EXTENSION =
  /\.(?:pdf|docx?|xlsx?|pptx?|odt|ods|odp|rtf|epub|zip|gz|tgz|bz2|xz|7z|rar|tar|dmg|exe|msi|apk|iso|bin|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|heic|mp3|mp4|m4a|m4v|mov|avi|wmv|webm|ogg|ogv|wav|flac|css|js|mjs|map|json|woff2?|ttf|otf|eot|wasm)$/i;

export function isNonHtmlUrl(url: string): boolean {
  try {
    return NON_HTML_EXTENSION.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

/**
 * The key a page is recorded under: its canonical URL when that differs, parses and is in
 * scope (same origin as the page when no scope is given), else its own normalised URL. Two
 * URLs of one page thus become one document; a canonical elsewhere is ignored, not followed.
 */
export function canonicalKey(page: { url: string; canonicalUrl?: string }, scope?: CrawlScope): string {
  const own = normalizeUrl(page.url) ?? page.url;
  if (!page.canonicalUrl) return own;
  const canonical = normalizeUrl(page.canonicalUrl, own);
  if (!canonical || canonical === own) return own;
  const ok = scope ? inScope(canonical, scope) : originOf(canonical) === originOf(own);
  return ok ? canonical : own;
}

/**
 * The page's links that are new to the frontier (one per pageKey: `/a/`, `/a` and
 * `/a/index.html` are one page, the first spelling met is kept): normalised, in scope, not obvious non-HTML
 * files, not the page itself, not `seen`, each once, at depth+1 ≤ maxDepth, and no more than
 * `scope.maxPages - alreadyFound` of them (alreadyFound: URLs the job's frontier holds so far).
 */
export function nextLinks(
  page: CrawledPage,
  scope: CrawlScope,
  seen: (url: string) => boolean,
  alreadyFound = 0,
): FrontierLink[] {
  const depth = page.depth + 1;
  const budget = scope.maxPages - alreadyFound;
  if (depth > scope.maxDepth || budget <= 0) return [];
  const own = normalizeUrl(page.url) ?? page.url;
  const taken = new Set<string>([pageKey(own), pageKey(canonicalKey(page, scope))]);
  const out: FrontierLink[] = [];
  for (const raw of page.links) {
    const url = normalizeUrl(raw, own);
    if (!url) continue;
    const key = pageKey(url);
    if (taken.has(key)) continue;
    taken.add(key);
    if (!inScope(url, scope) || isNonHtmlUrl(url) || seen(url)) continue;
    out.push({ url, depth });
    if (out.length >= budget) break;
  }
  return out;
}
