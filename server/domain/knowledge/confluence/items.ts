/**
 * Ingest items of a Confluence connection: a space expands into its pages, a page is fetched in
 * storage format, read as HTML and indexed like a web page (the content hash decides whether
 * anything changed). Credentials are read from the source and decrypted only while the job
 * runs; items carry ids, never secrets.
 */
import type { ItemContext, ItemHandler } from '../ingest-runner.js';
import { failure, indexOutcome } from '../items/web.js';
import type { SourceRecord } from '../ports.js';
import type { SecretBox } from '../../secrets.js';
import {
  isConfluenceError,
  pageUrl,
  spaceUrl,
  type ConfluenceAdapter,
  type ConfluenceApi,
  type ConfluenceCredentials,
  type ConfluenceSite,
  type Deployment,
} from './site.js';

export const SPACE_ITEM = 'confluence-space';
export const PAGE_ITEM = 'confluence-page';
/** Pages asked of Confluence per request while expanding a space. */
const SPACE_BATCH = 100;

export interface ConfluenceConfig {
  baseUrl: string;
  deployment: Deployment;
  email: string | null;
  spaces: string[];
  pageIds: string[];
}

export function configOf(source: Pick<SourceRecord, 'config'>): ConfluenceConfig {
  const c = source.config as Partial<ConfluenceConfig>;
  return {
    baseUrl: String(c.baseUrl ?? ''),
    deployment: c.deployment === 'cloud' ? 'cloud' : 'datacenter',
    email: typeof c.email === 'string' ? c.email : null,
    spaces: Array.isArray(c.spaces) ? c.spaces.map(String) : [],
    pageIds: Array.isArray(c.pageIds) ? c.pageIds.map(String) : [],
  };
}

/** The credentials are sealed with the source id as context, so they open only on their own row. */
export const credentialsContext = (sourceId: string) => `source:${sourceId}`;

export function openCredentials(
  secrets: SecretBox,
  source: Pick<SourceRecord, 'id' | 'credentials'>,
): ConfluenceCredentials {
  if (!source.credentials) throw new Error('The connection has no stored credentials; connect it again');
  return secrets.open<ConfluenceCredentials>(source.credentials, credentialsContext(source.id));
}

export function clientFor(
  adapter: ConfluenceAdapter,
  fetcher: ItemContext['fetcher'],
  secrets: SecretBox,
  source: SourceRecord,
  signal?: AbortSignal,
): ConfluenceApi {
  const config = configOf(source);
  const site: ConfluenceSite = { baseUrl: config.baseUrl, deployment: config.deployment };
  return adapter.client(fetcher, site, openCredentials(secrets, source), signal);
}

/**
 * Frontier items for a selection. Keys are the spaces' and pages' browser addresses, so a page
 * chosen directly and found again in its space is one item, and the job's error list links to it.
 */
export function selectionItems(config: ConfluenceConfig, selection: { spaces: string[]; pageIds: string[] }) {
  const site = { baseUrl: config.baseUrl, deployment: config.deployment };
  return [
    ...selection.spaces.map((key) => ({ key: spaceUrl(site, key), payload: { type: SPACE_ITEM, spaceKey: key } })),
    ...selection.pageIds.map((id) => ({ key: pageUrl(site, id), payload: { type: PAGE_ITEM, pageId: id } })),
  ];
}

/** A page's document key: per connection, as two Confluence sites may both have a page 123. */
export const documentKey = (sourceId: string, pageId: string) => `confluence:${sourceId}:${pageId}`;

async function removeDocument(ctx: ItemContext, key: string) {
  const existing = await ctx.store.knowledge.documents.byKey(ctx.chatbot.id, key);
  if (existing && existing.sourceId === ctx.source.id) await ctx.store.knowledge.documents.delete([existing.id]);
}

/** Page ids of the documents this connection has indexed. */
async function knownPageIds(ctx: ItemContext): Promise<string[]> {
  const prefix = documentKey(ctx.source.id, '');
  const ids: string[] = [];
  let after = null;
  do {
    const page = await ctx.store.knowledge.documents.page(
      ctx.chatbot.id,
      { limit: 100, after },
      { sourceId: ctx.source.id },
    );
    for (const d of page.items) if (d.key.startsWith(prefix)) ids.push(d.key.slice(prefix.length));
    after = page.next;
  } while (after);
  return ids;
}

export function confluenceItems(
  secrets: SecretBox,
  adapter: ConfluenceAdapter,
): Record<typeof SPACE_ITEM | typeof PAGE_ITEM, ItemHandler> {
  const space: ItemHandler = async (ctx, item) => {
    const spaceKey = String(item.payload?.spaceKey ?? '');
    const config = configOf(ctx.source);
    const site = { baseUrl: config.baseUrl, deployment: config.deployment };
    try {
      const client = clientFor(adapter, ctx.fetcher, secrets, ctx.source, ctx.signal);
      // No more pages than the plan could ever store: the indexer's quota check does the rest.
      const cap = Math.max(1, ctx.account.plan.maxPages);
      const listed = new Set<string>();
      let start: number | null = 0;
      while (start !== null && listed.size < cap) {
        const list = await client.listPages(spaceKey, start, SPACE_BATCH);
        const pages = list.items.filter((p) => !listed.has(p.id)).slice(0, cap - listed.size);
        for (const p of pages) listed.add(p.id);
        await ctx.discover(
          pages.map((p) => ({
            key: pageUrl(site, p.id),
            depth: item.depth + 1,
            payload: { type: PAGE_ITEM, pageId: p.id },
          })),
        );
        start = list.nextStart;
      }
      if (start === null) {
        // Documents of this connection the space no longer lists are looked up once more: a page
        // deleted in Confluence (404) or moved out of the selection leaves the index.
        const gone = (await knownPageIds(ctx)).filter((id) => !listed.has(id));
        await ctx.discover(
          gone.map((id) => ({
            key: pageUrl(site, id),
            depth: item.depth + 1,
            payload: { type: PAGE_ITEM, pageId: id },
          })),
        );
      }
      return { status: 'done' };
    } catch (err) {
      return failure(err);
    }
  };

  const page: ItemHandler = async (ctx, item) => {
    const pageId = String(item.payload?.pageId ?? '');
    const key = documentKey(ctx.source.id, pageId);
    try {
      const client = clientFor(adapter, ctx.fetcher, secrets, ctx.source, ctx.signal);
      const p = await client.getPage(pageId);
      const config = configOf(ctx.source);
      if (p.spaceKey && !config.spaces.includes(p.spaceKey) && !config.pageIds.includes(pageId)) {
        await removeDocument(ctx, key);
        return { status: 'skipped', error: `Page ${pageId} is now in space ${p.spaceKey}, which is not imported` };
      }
      const url = p.url ?? item.key;
      const doc = await ctx.extractor.extract(
        {
          bytes: Buffer.from(adapter.storageToHtml(p.storage, p.title), 'utf8'),
          kind: 'html',
          url,
          contentType: 'text/html; charset=utf-8',
        },
        ctx.extractLimits,
      );
      doc.title = p.title;
      return await indexOutcome(ctx, key, url, doc);
    } catch (err) {
      if (isConfluenceError(err) && err.kind === 'not-found') {
        // Deleted (or no longer readable) in Confluence: it leaves the index too.
        await removeDocument(ctx, key);
        return { status: 'skipped', error: err.message };
      }
      return failure(err);
    }
  };

  return { [SPACE_ITEM]: space, [PAGE_ITEM]: page } as Record<typeof SPACE_ITEM | typeof PAGE_ITEM, ItemHandler>;
}
