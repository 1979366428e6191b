/**
 * A Confluence site as the domain sees it: its deployment, the shapes its REST API answers with,
 * its classified errors, the browser addresses of spaces and pages, and the ConfluenceApi port
 * the adapter (server/adapters/confluence/) implements over the job's Fetcher.
 */
import type { Fetcher } from '../crawl/fetcher.js';

export type Deployment = 'cloud' | 'datacenter';

export interface ConfluenceSite {
  /** Normalised: no trailing slash, no `/wiki` on Cloud; may carry a Data Center context path. */
  baseUrl: string;
  deployment: Deployment;
}

export interface ConfluenceCredentials {
  /** The Atlassian account's email (Cloud only). */
  email?: string | null;
  apiToken: string;
}

/** One page of a Confluence list (`{results, start, limit, size, _links.next}`). */
export interface ConfluenceList<T> {
  items: T[];
  start: number;
  /** Where the next page starts, or null on the last one. */
  nextStart: number | null;
}

export interface ConfluenceSpace {
  key: string;
  name: string;
  type: string;
  url: string | null;
}

export interface ConfluencePageSummary {
  id: string;
  title: string;
  spaceKey: string | null;
  url: string | null;
  version: number | null;
  updatedAt: string | null;
}

export interface ConfluencePage extends ConfluencePageSummary {
  /** Storage-format XHTML (`body.storage.value`). */
  storage: string;
  ancestors: { id: string; title: string }[];
}

export interface ConfluenceUser {
  anonymous: boolean;
  /** What names the account on that site: email (Cloud), user name (Data Center) or account id. */
  identity: string;
  displayName: string;
}

export type ConfluenceErrorKind =
  'unauthorized' | 'forbidden' | 'not-found' | 'rate-limited' | 'unavailable' | 'bad-response' | 'network';

/** A failed Confluence call, classified so callers can say what to do about it. */
export class ConfluenceError extends Error {
  constructor(
    readonly kind: ConfluenceErrorKind,
    message: string,
    readonly status: number | null = null,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ConfluenceError';
  }
}

export const isConfluenceError = (err: unknown): err is ConfluenceError => err instanceof ConfluenceError;

/** Cloud sites live on atlassian.net; anything else is taken for a self-hosted Data Center. */
export function defaultDeployment(baseUrl: string): Deployment {
  const host = new URL(baseUrl).hostname.toLowerCase();
  return host === 'atlassian.net' || host.endsWith('.atlassian.net') ? 'cloud' : 'datacenter';
}

/**
 * An absolute http(s) base URL without query, fragment or trailing slash; on Cloud also without
 * the `/wiki` the browser shows (the API paths add it). Null when it is not such a URL.
 */
export function normalizeBaseUrl(raw: string, deployment?: Deployment): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return null;
  let path = url.pathname.replace(/\/+$/, '');
  const cloud = (deployment ?? defaultDeployment(url.href)) === 'cloud';
  if (cloud) path = path.replace(/\/wiki$/i, '');
  return `${url.protocol}//${url.host.toLowerCase()}${path}`;
}

/** Where the web UI lives: Cloud under /wiki, Data Center at the base (its context path). */
export const siteRoot = (site: ConfluenceSite) => (site.deployment === 'cloud' ? `${site.baseUrl}/wiki` : site.baseUrl);

/** The browser address of a page, whatever `_links.webui` Confluence sent. */
export const pageUrl = (site: ConfluenceSite, id: string) =>
  `${siteRoot(site)}/pages/viewpage.action?pageId=${encodeURIComponent(id)}`;

export const spaceUrl = (site: ConfluenceSite, key: string) =>
  site.deployment === 'cloud'
    ? `${siteRoot(site)}/spaces/${encodeURIComponent(key)}`
    : `${siteRoot(site)}/display/${encodeURIComponent(key)}`;

/** The part of Confluence's REST API (v1) ingestion uses. Failures are ConfluenceError. */
export interface ConfluenceApi {
  /** The account the credentials belong to; `anonymous` when the site ignored them. */
  currentUser(): Promise<ConfluenceUser>;
  listSpaces(start: number, limit: number): Promise<ConfluenceList<ConfluenceSpace>>;
  /** Current pages of a space (all spaces with null). */
  listPages(spaceKey: string | null, start: number, limit: number): Promise<ConfluenceList<ConfluencePageSummary>>;
  getPage(id: string): Promise<ConfluencePage>;
}

/** What the domain asks of the Confluence adapter: a client per site, and a page as HTML. */
export interface ConfluenceAdapter {
  client(
    fetcher: Fetcher,
    site: ConfluenceSite,
    credentials: ConfluenceCredentials,
    signal?: AbortSignal,
  ): ConfluenceApi;
  /** Storage-format XHTML -> HTML the extractor reads. */
  storageToHtml(storage: string, title: string): string;
}
