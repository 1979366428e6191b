/**
 * A small client of Confluence's REST API (v1), the part both deployments share: Cloud serves it
 * under `/wiki/rest/api` with Basic auth (`email:apiToken`), Data Center under `/rest/api` with
 * a personal access token as Bearer. Every request goes through the Fetcher port, so the guarded
 * client's SSRF checks and limits apply and credentials are dropped on a redirect elsewhere.
 */
import { describeFetchError, type Fetcher, type FetchResult } from '../../domain/knowledge/crawl/fetcher.js';
import {
  ConfluenceError,
  pageUrl,
  siteRoot,
  spaceUrl,
  type ConfluenceAdapter,
  type ConfluenceApi,
  type ConfluenceCredentials,
  type ConfluenceList,
  type ConfluencePage,
  type ConfluencePageSummary,
  type ConfluenceSite,
  type ConfluenceSpace,
  type ConfluenceUser,
} from '../../domain/knowledge/confluence/site.js';
import { storageToHtml } from './storage-format.js';

const LIST_MAX_BYTES = 5 * 1024 * 1024;
const PAGE_MAX_BYTES = 20 * 1024 * 1024;

export function authorizationHeader(site: ConfluenceSite, creds: ConfluenceCredentials): string {
  if (site.deployment === 'cloud')
    return `Basic ${Buffer.from(`${creds.email ?? ''}:${creds.apiToken}`, 'utf8').toString('base64')}`;
  return `Bearer ${creds.apiToken}`;
}

type Json = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

export class ConfluenceClient implements ConfluenceApi {
  private readonly api: string;
  private readonly authorization: string;

  constructor(
    private readonly fetcher: Fetcher,
    private readonly site: ConfluenceSite,
    creds: ConfluenceCredentials,
    private readonly signal?: AbortSignal,
  ) {
    this.api = `${siteRoot(site)}/rest/api`;
    this.authorization = authorizationHeader(site, creds);
  }

  /** The account the credentials belong to; `anonymous` when the site ignored them. */
  async currentUser(): Promise<ConfluenceUser> {
    const body = await this.get('/user/current', {}, LIST_MAX_BYTES, 'the current user');
    const anonymous = body.type === 'anonymous';
    const identity = str(body.email) || str(body.username) || str(body.accountId) || str(body.userKey) || '';
    return { anonymous, identity, displayName: str(body.displayName) ?? str(body.publicName) ?? identity };
  }

  async listSpaces(start: number, limit: number): Promise<ConfluenceList<ConfluenceSpace>> {
    const body = await this.get('/space', { start, limit }, LIST_MAX_BYTES, 'the spaces');
    return this.list(body, start, (r) => {
      const key = str(r.key);
      if (!key) return null;
      return {
        key,
        name: str(r.name) ?? key,
        type: str(r.type) ?? 'global',
        url: this.webUrl(r) ?? spaceUrl(this.site, key),
      };
    });
  }

  /** The current pages of a space (or of every space the account can read). */
  async listPages(
    spaceKey: string | null,
    start: number,
    limit: number,
  ): Promise<ConfluenceList<ConfluencePageSummary>> {
    const query: Record<string, string | number> = {
      type: 'page',
      status: 'current',
      start,
      limit,
      expand: 'space,version',
    };
    if (spaceKey) query.spaceKey = spaceKey;
    const body = await this.get(
      '/content',
      query,
      LIST_MAX_BYTES,
      spaceKey ? `the pages of space ${spaceKey}` : 'the pages',
    );
    return this.list(body, start, (r) => this.summary(r));
  }

  async getPage(id: string): Promise<ConfluencePage> {
    const body = await this.get(
      `/content/${encodeURIComponent(id)}`,
      { expand: 'body.storage,version,space,ancestors' },
      PAGE_MAX_BYTES,
      `page ${id}`,
    );
    const summary = this.summary(body);
    if (!summary) throw new ConfluenceError('bad-response', `Confluence answered for page ${id} without an id`);
    const storage = str(obj(obj(body.body).storage).value);
    if (storage === null)
      throw new ConfluenceError('bad-response', `Confluence sent page ${id} without its storage-format body`);
    const ancestors = Array.isArray(body.ancestors)
      ? body.ancestors.map((a) => ({ id: str(obj(a).id) ?? '', title: str(obj(a).title) ?? '' })).filter((a) => a.id)
      : [];
    return { ...summary, storage, ancestors };
  }

  private summary(r: Json): ConfluencePageSummary | null {
    const id = str(r.id);
    if (!id) return null;
    const version = obj(r.version);
    return {
      id,
      title: str(r.title) ?? `Page ${id}`,
      spaceKey: str(obj(r.space).key),
      url: this.webUrl(r) ?? pageUrl(this.site, id),
      version: typeof version.number === 'number' ? version.number : null,
      updatedAt: str(version.when),
    };
  }

  /** `_links.webui` is relative to the site root; anything else (absolute, odd) is not trusted. */
  private webUrl(r: Json): string | null {
    const webui = str(obj(r._links).webui);
    return webui && webui.startsWith('/') && !webui.startsWith('//') ? siteRoot(this.site) + webui : null;
  }

  private list<T>(body: Json, requestedStart: number, map: (r: Json) => T | null): ConfluenceList<T> {
    if (!Array.isArray(body.results))
      throw new ConfluenceError('bad-response', 'Confluence answered a list without `results`');
    const items = body.results.map((r) => map(obj(r))).filter((x): x is T => x !== null);
    const start = typeof body.start === 'number' ? body.start : requestedStart;
    const size = typeof body.size === 'number' ? body.size : body.results.length;
    const next = str(obj(body._links).next);
    let nextStart: number | null = null;
    if (next) {
      // Confluence may cap `limit` below what was asked: its next link says where to go on.
      const fromLink = Number(new URL(next, 'http://x').searchParams.get('start'));
      nextStart = Number.isInteger(fromLink) && fromLink > start ? fromLink : start + Math.max(size, 1);
    }
    return { items, start, nextStart };
  }

  private async get(
    path: string,
    query: Record<string, string | number>,
    maxBytes: number,
    what: string,
  ): Promise<Json> {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
    const url = `${this.api}${path}${qs ? `?${qs}` : ''}`;
    let res: FetchResult;
    try {
      res = await this.fetcher.get(url, {
        accept: 'application/json',
        headers: { authorization: this.authorization },
        maxBytes,
        signal: this.signal,
      });
    } catch (err) {
      const { code, message } = describeFetchError(err);
      throw new ConfluenceError('network', `Could not reach Confluence at ${this.site.baseUrl} (${code}: ${message})`);
    }
    if (res.status >= 200 && res.status < 300) {
      try {
        const parsed = JSON.parse(res.body.toString('utf8')) as unknown;
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Json;
      } catch {
        /* reported below */
      }
      throw new ConfluenceError(
        'bad-response',
        `${this.site.baseUrl} did not answer like Confluence's REST API when asked for ${what} (no JSON at ${path}); check the base URL and the deployment (cloud or datacenter)`,
        res.status,
      );
    }
    throw this.failure(res, what);
  }

  private failure(res: FetchResult, what: string): ConfluenceError {
    let detail = '';
    try {
      const body = obj(JSON.parse(res.body.toString('utf8')));
      detail = (str(body.message) ?? '').slice(0, 300);
    } catch {
      /* not JSON: no detail */
    }
    const suffix = detail ? `: ${detail}` : '';
    switch (res.status) {
      case 401:
        return new ConfluenceError('unauthorized', `Confluence refused the credentials (401)${suffix}`, 401);
      case 403:
        return new ConfluenceError('forbidden', `The Confluence account may not read ${what} (403)${suffix}`, 403);
      case 404:
        return new ConfluenceError('not-found', `Confluence has no ${what.replace(/^the /, '')} (404)${suffix}`, 404);
      case 429: {
        const retry = Number(res.headers['retry-after']);
        return new ConfluenceError(
          'rate-limited',
          `Confluence is rate-limiting requests (429)${suffix}`,
          429,
          Number.isFinite(retry) && retry >= 0 ? retry : null,
        );
      }
      default:
        return new ConfluenceError(
          'unavailable',
          `Confluence answered HTTP ${res.status} when asked for ${what}${suffix}`,
          res.status,
        );
    }
  }
}

/** The ConfluenceAdapter port the services plugin hands the Confluence service and items. */
export const confluenceAdapter: ConfluenceAdapter = {
  client: (fetcher, site, credentials, signal) => new ConfluenceClient(fetcher, site, credentials, signal),
  storageToHtml,
};
