/**
 * The knowledge API of a chatbot: adding sources (links, website, sitemap, YouTube, text,
 * files), listing sources, documents and ingest jobs, deleting documents, cancelling a job
 * and re-syncing a source. Every add is one ingest job; the work happens in the background.
 */
import type { AuthContext } from '../auth.js';
import type { ChatbotsService } from '../chatbots.service.js';
import type { CursorCodec } from '../cursor.js';
import { AppError, confirmationRequired, notFound, validationFailed } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import type { ChatbotRecord, Store } from '../ports.js';
import { configOf as confluenceConfig, selectionItems as confluenceSelection } from './confluence/items.js';
import { normalizeUrl, originOf, pageKey } from './crawl/url.js';
import type { IngestRunner } from './ingest-runner.js';
import type { DocumentRecord, DocumentStatus, IngestJobRecord, SearchHit, SourceRecord, SourceType } from './ports.js';
import { parseVideoId } from './video-id.js';

/** An upload's files become a job within seconds; stored files older than this with no job are left over. */
const UNCLAIMED_UPLOAD_MS = 3_600_000;

/** Sources whose job walks one whole site: two of them at once would fetch every page twice. */
const CRAWLED = new Set<SourceType>(['website', 'sitemap']);

export interface CrawlDefaults {
  maxPages: number;
  maxDepth: number;
}

export const sourceView = (s: SourceRecord, documents: number) => ({
  id: s.id,
  type: s.type,
  name: s.name,
  status: s.status,
  documentCount: documents,
  lastSyncAt: s.lastSyncAt,
  nextSyncAt: s.nextSyncAt,
  syncIntervalMinutes: s.syncIntervalMinutes,
  lastError: s.lastError,
  // Credentials never leave the server; only whether some are stored.
  config: s.config,
  hasCredentials: s.credentials !== null,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

export const documentView = (d: DocumentRecord) => ({
  id: d.id,
  sourceId: d.sourceId,
  title: d.title,
  url: d.url,
  kind: d.kind,
  status: d.status,
  chars: d.chars,
  chunkCount: d.chunkCount,
  error: d.error,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export class KnowledgeService {
  constructor(
    private readonly store: Store,
    private readonly chatbots: ChatbotsService,
    private readonly runner: IngestRunner,
    private readonly cursors: CursorCodec,
    private readonly crawl: CrawlDefaults,
    /** The retrieval the answers use, so a search finds what the chatbot would cite. */
    private readonly passages: { search(chatbotId: string, query: string, k: number): Promise<SearchHit[]> },
  ) {}

  // ---- adding ------------------------------------------------------------------------------

  async addLinks(auth: AuthContext, chatbotId: string, urls: string[]) {
    const chatbot = await this.writable(auth, chatbotId);
    const normal = this.urls(urls, 'urls');
    const source = await this.ensureSource(chatbot, 'links', '', 'Links', {});
    return this.start(
      source,
      'add',
      normal.map((url) => ({ key: url, payload: { type: 'link', url } })),
    );
  }

  async addWebsite(
    auth: AuthContext,
    chatbotId: string,
    input: {
      url: string;
      pathPrefix?: string;
      maxPages?: number;
      maxDepth?: number;
      syncIntervalMinutes?: number | null;
    },
  ) {
    const chatbot = await this.writable(auth, chatbotId);
    const [start] = this.urls([input.url], 'url');
    const origin = originOf(start)!;
    const options = {
      origin,
      pathPrefix: input.pathPrefix ?? undefined,
      maxPages: Math.min(input.maxPages ?? this.crawl.maxPages, auth.account.plan.maxPages),
      maxDepth: input.maxDepth ?? this.crawl.maxDepth,
    };
    const source = await this.ensureSource(
      chatbot,
      'website',
      start,
      new URL(start).host + (input.pathPrefix ?? ''),
      options,
      input.syncIntervalMinutes,
    );
    return this.start(
      source,
      'add',
      [{ key: pageKey(start), payload: { type: 'page', url: start, crawl: true } }],
      options,
    );
  }

  async addSitemap(
    auth: AuthContext,
    chatbotId: string,
    input: { url: string; maxPages?: number; syncIntervalMinutes?: number | null },
  ) {
    const chatbot = await this.writable(auth, chatbotId);
    const [sitemap] = this.urls([input.url], 'url');
    const options = {
      origin: originOf(sitemap)!,
      maxPages: Math.min(input.maxPages ?? this.crawl.maxPages, auth.account.plan.maxPages),
      maxDepth: 0,
    };
    const source = await this.ensureSource(chatbot, 'sitemap', sitemap, sitemap, options, input.syncIntervalMinutes);
    return this.start(
      source,
      'add',
      [{ key: `sitemap:${sitemap}`, payload: { type: 'sitemap', url: sitemap } }],
      options,
    );
  }

  async addYoutube(auth: AuthContext, chatbotId: string, urls: string[]) {
    const chatbot = await this.writable(auth, chatbotId);
    const bad = urls.map((u, i) => [u, i] as const).filter(([u]) => !parseVideoId(u));
    if (bad.length)
      throw validationFailed(
        bad.map(([u, i]) => ({ path: ['urls', i], message: `"${u.slice(0, 100)}" is not a YouTube video URL` })),
      );
    const ids = [...new Set(urls.map((u) => parseVideoId(u)!))];
    const source = await this.ensureSource(chatbot, 'youtube', '', 'YouTube videos', {});
    return this.start(
      source,
      'add',
      ids.map((id) => ({
        key: `youtube:${id}`,
        payload: { type: 'youtube', url: `https://www.youtube.com/watch?v=${id}` },
      })),
    );
  }

  /** `keep`: the legacy custom-content route, whose text the v0 Chatbot shows while its document lives. */
  async addText(auth: AuthContext, chatbotId: string, input: { title: string; text: string }, keep = false) {
    const chatbot = await this.writable(auth, chatbotId);
    const source = await this.ensureSource(chatbot, 'text', '', 'Text', {});
    const key = newId();
    const started = await this.start(source, 'add', [
      { key, payload: { type: 'text', title: input.title.trim(), text: input.text, documentKey: key } },
    ]);
    if (keep) {
      await this.store.knowledge.customContents.insert({
        documentKey: `text:${key}`,
        chatbotId: chatbot.id,
        sourceId: source.id,
        jobId: started.job.id,
        text: input.text,
        createdAt: nowIso(),
      });
    }
    return started;
  }

  /** The legacy custom content of a chatbot: the kept texts whose documents live, oldest first, or null. */
  async customContent(auth: AuthContext, chatbotId: string): Promise<string | null> {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const texts = await this.store.knowledge.customContents.visible(chatbot.id);
    return texts.length ? texts.join('\n\n') : null;
  }

  /**
   * Stores uploaded files (streamed from where the upload put them, in pieces) and imports them.
   * Files stored before a failure are deleted again; those of a process that died before their
   * job existed are swept by `sweepUploads`.
   */
  async addFiles(auth: AuthContext, chatbotId: string, files: { name: string; bytes(): AsyncIterable<Uint8Array> }[]) {
    const chatbot = await this.writable(auth, chatbotId);
    if (!files.length) throw validationFailed([{ path: ['files'], message: 'attach at least one file' }]);
    const source = await this.ensureSource(chatbot, 'files', '', 'Files', {});
    const items = [];
    try {
      for (const f of files) {
        const id = newId();
        items.push({ key: `file:${id}`, blobId: id, payload: { type: 'file', name: f.name } });
        await this.blobWrites.run(() =>
          this.store.knowledge.blobs.insert({ id, chatbotId: chatbot.id, name: f.name }, f.bytes()),
        );
      }
      return await this.start(source, 'add', items);
    } catch (err) {
      await this.store.knowledge.blobs.delete(items.map((i) => i.blobId)).catch(() => undefined);
      throw err;
    }
  }

  /** Files are stored one at a time per process: however many uploads arrive, one piece is in flight. */
  private readonly blobWrites = new Turns();

  /** Deletes uploads stored over an hour ago that no job refers to (their request died between the two). */
  sweepUploads(): Promise<number> {
    return this.store.knowledge.blobs.deleteUnclaimed(new Date(Date.now() - UNCLAIMED_UPLOAD_MS).toISOString());
  }

  // ---- reading -----------------------------------------------------------------------------

  async sources(auth: AuthContext, chatbotId: string) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const [sources, counts] = await Promise.all([
      this.store.knowledge.sources.list(chatbot.id),
      this.store.knowledge.documents.countBySource(chatbot.id),
    ]);
    return sources.map((s) => sourceView(s, counts.get(s.id) ?? 0));
  }

  async getSource(auth: AuthContext, chatbotId: string, sourceId: string) {
    const source = await this.reachSource(auth, chatbotId, sourceId);
    const counts = await this.store.knowledge.documents.countBySource(source.chatbotId);
    return sourceView(source, counts.get(source.id) ?? 0);
  }

  async sourceDocuments(auth: AuthContext, chatbotId: string, sourceId: string, limit: number, cursor?: string) {
    const source = await this.reachSource(auth, chatbotId, sourceId);
    return this.documents(
      auth,
      source.chatbotId,
      { limit, cursor, sourceId: source.id },
      `source-documents:${source.id}`,
    );
  }

  async documents(
    auth: AuthContext,
    chatbotId: string,
    q: { limit: number; cursor?: string; sourceId?: string; status?: DocumentStatus; text?: string },
    list = 'documents',
  ) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const page = await this.store.knowledge.documents.page(
      chatbot.id,
      { limit: q.limit, after: this.cursors.decode(list, q.cursor) },
      { sourceId: q.sourceId, status: q.status, text: q.text },
    );
    return { documents: page.items.map(documentView), nextCursor: this.cursors.encode(list, page.next) };
  }

  /** The chatbot's best passages for a query, ranked as the answers rank them (best first). */
  async search(auth: AuthContext, chatbotId: string, query: string, limit: number) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const hits = await this.passages.search(chatbot.id, query, limit);
    return hits.map((h) => ({
      documentId: h.documentId,
      title: h.title,
      url: h.url,
      headingPath: h.headingPath,
      text: h.text,
      score: h.score,
    }));
  }

  async document(auth: AuthContext, chatbotId: string, documentId: string) {
    return documentView(await this.reachDocument(auth, chatbotId, documentId));
  }

  /** A document's chunks in reading order; the cursor carries the next chunk's index. */
  async documentChunks(auth: AuthContext, chatbotId: string, documentId: string, limit: number, cursor?: string) {
    const doc = await this.reachDocument(auth, chatbotId, documentId);
    const list = `chunks:${doc.id}`;
    const from = Number(this.cursors.decode(list, cursor)?.id ?? 0);
    const rows = await this.store.knowledge.chunks.ofDocument(doc.id, from, limit + 1);
    const chunks = rows.slice(0, limit);
    const next = rows.length > limit ? { createdAt: doc.id, id: String(rows[limit].index) } : null;
    return { document: documentView(doc), chunks, nextCursor: this.cursors.encode(list, next) };
  }

  async jobs(auth: AuthContext, chatbotId: string, limit: number, cursor?: string) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const page = await this.store.knowledge.ingest.pageJobs(chatbot.id, {
      limit,
      after: this.cursors.decode('ingest-jobs', cursor),
    });
    const jobs = await Promise.all(page.items.map((j) => this.jobView(j)));
    return { jobs, nextCursor: this.cursors.encode('ingest-jobs', page.next) };
  }

  async job(auth: AuthContext, chatbotId: string, jobId: string) {
    return this.jobView(await this.reachJob(auth, chatbotId, jobId));
  }

  // ---- changing ----------------------------------------------------------------------------

  async deleteDocuments(auth: AuthContext, chatbotId: string, ids: string[], confirm: boolean) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    if (!confirm)
      throw confirmationRequired('Send "confirm": true in the body (or ?confirm=true) to delete these documents');
    const docs = await this.store.knowledge.documents.many(chatbot.id, [...new Set(ids)]);
    await this.store.knowledge.documents.delete(docs.map((d) => d.id));
    const found = new Set(docs.map((d) => d.id));
    return { deletedDocuments: docs.map(documentView), notFound: ids.filter((id) => !found.has(id)) };
  }

  async cancelJob(auth: AuthContext, chatbotId: string, jobId: string) {
    const job = await this.reachJob(auth, chatbotId, jobId);
    if (job.status === 'queued' || job.status === 'running')
      await this.store.knowledge.ingest.updateJob(job.id, { cancelRequested: true });
    if (job.status === 'queued') {
      // Nothing runs it yet: cancel at once rather than when a worker picks it up.
      await this.store.knowledge.ingest.updateJob(job.id, { status: 'cancelled', finishedAt: nowIso() });
      // Its creation cleared the next scheduled sync (a job's end sets it again): set it here too.
      const source = await this.store.knowledge.sources.get(job.sourceId);
      const next = source?.syncIntervalMinutes
        ? new Date(Date.now() + source.syncIntervalMinutes * 60_000).toISOString()
        : null;
      await this.store.knowledge.sources.update(job.sourceId, {
        status: 'ready',
        nextSyncAt: next,
        updatedAt: nowIso(),
      });
    }
    return this.jobView((await this.store.knowledge.ingest.getJob(job.id))!);
  }

  /** Re-fetches every document of a URL-based source, or re-runs its crawl. */
  async resync(auth: AuthContext, chatbotId: string, sourceId: string) {
    const source = await this.reachSource(auth, chatbotId, sourceId);
    await this.writable(auth, source.chatbotId);
    return this.resyncSource(source, 'resync');
  }

  async resyncSource(source: SourceRecord, trigger: IngestJobRecord['trigger']) {
    if (source.type === 'text' || source.type === 'files') {
      throw validationFailed([
        {
          path: ['sourceId'],
          message: `${source.type} sources have no origin to re-sync from; add the content again instead`,
        },
      ]);
    }
    const items = await this.resyncItems(source);
    return this.start(source, trigger, items, source.config);
  }

  /** Starts the syncs of sources whose interval has elapsed (called periodically). */
  async syncDue(): Promise<number> {
    const due = await this.store.knowledge.sources.due(nowIso());
    let started = 0;
    for (const source of due) {
      if (await this.store.knowledge.ingest.activeForSource(source.id)) continue;
      // The job's creation clears nextSyncAt in its transaction: a sync that could not start stays due.
      await this.resyncSource(source, 'schedule');
      started++;
    }
    return started;
  }

  async deleteSource(auth: AuthContext, chatbotId: string, sourceId: string, confirm: boolean) {
    const source = await this.reachSource(auth, chatbotId, sourceId);
    if (!confirm) throw confirmationRequired('Add ?confirm=true to delete this source and all its documents');
    const counts = await this.store.knowledge.documents.countBySource(source.chatbotId);
    await this.store.knowledge.sources.delete(source.id);
    return { deletedSource: sourceView(source, counts.get(source.id) ?? 0) };
  }

  // ---- helpers -----------------------------------------------------------------------------

  /** Items that re-fetch a source: its seed for crawls, every known document for lists. */
  private async resyncItems(source: SourceRecord) {
    if (source.type === 'website')
      return [{ key: pageKey(source.key), payload: { type: 'page', url: source.key, crawl: true } }];
    if (source.type === 'sitemap')
      return [{ key: `sitemap:${source.key}`, payload: { type: 'sitemap', url: source.key } }];
    if (source.type === 'confluence') {
      const config = confluenceConfig(source);
      return confluenceSelection(config, { spaces: config.spaces, pageIds: config.pageIds });
    }
    const items: { key: string; payload: Record<string, unknown> }[] = [];
    let after = null;
    do {
      const page = await this.store.knowledge.documents.page(
        source.chatbotId,
        { limit: 100, after },
        { sourceId: source.id },
      );
      for (const d of page.items) {
        if (source.type === 'links' && d.url) items.push({ key: d.url, payload: { type: 'link', url: d.url } });
        if (source.type === 'youtube' && d.url) items.push({ key: d.key, payload: { type: 'youtube', url: d.url } });
      }
      after = page.next;
    } while (after);
    return items;
  }

  private async start(
    source: SourceRecord,
    trigger: IngestJobRecord['trigger'],
    items: Parameters<IngestRunner['createJob']>[2],
    options: Record<string, unknown> = {},
  ) {
    // A re-sync, or a new crawl of a site (or sitemap), while a job of the source is queued or
    // running would fetch the same pages twice: hand that job back instead.
    if (trigger !== 'add' || CRAWLED.has(source.type)) {
      const active = await this.store.knowledge.ingest.activeForSource(source.id);
      if (active)
        return {
          job: await this.jobView(active),
          source: sourceView(
            source,
            (await this.store.knowledge.documents.countBySource(source.chatbotId)).get(source.id) ?? 0,
          ),
          alreadyRunning: true,
        };
    }
    const job = await this.runner.createJob(source, trigger, items, options);
    const counts = await this.store.knowledge.documents.countBySource(source.chatbotId);
    return {
      job: await this.jobView(job),
      source: sourceView({ ...source, status: 'syncing' }, counts.get(source.id) ?? 0),
    };
  }

  private async ensureSource(
    chatbot: ChatbotRecord,
    type: SourceType,
    key: string,
    name: string,
    config: Record<string, unknown>,
    interval?: number | null,
  ): Promise<SourceRecord> {
    const existing = await this.store.knowledge.sources.byKey(chatbot.id, type, key);
    const at = nowIso();
    if (existing) {
      const patch: Partial<SourceRecord> = { config: { ...existing.config, ...config }, updatedAt: at };
      if (interval !== undefined) patch.syncIntervalMinutes = interval;
      await this.store.knowledge.sources.update(existing.id, patch);
      return { ...existing, ...patch };
    }
    const source: SourceRecord = {
      id: newId(),
      chatbotId: chatbot.id,
      accountId: chatbot.accountId,
      type,
      key,
      name: name.slice(0, 300),
      config,
      credentials: null,
      status: 'idle',
      lastError: null,
      lastSyncAt: null,
      syncIntervalMinutes: interval ?? null,
      nextSyncAt: null,
      createdAt: at,
      updatedAt: at,
    };
    await this.store.knowledge.sources.insert(source);
    return source;
  }

  /** The chatbot, when more pages may be added to the account (429 otherwise). */
  async writable(auth: AuthContext, chatbotId: string): Promise<ChatbotRecord> {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const used = await this.store.knowledge.documents.countIndexed(auth.account.id);
    if (used >= auth.account.plan.maxPages) {
      throw new AppError(
        'CHATBOT_PAGES_LIMIT_REACHED',
        `The plan's ${auth.account.plan.maxPages} content pages are all in use`,
        {
          hint: 'Delete documents you no longer need (POST /chatbots/{chatbotId}/documents/delete) or upgrade the plan; do not retry in a loop',
          details: { used, limit: auth.account.plan.maxPages },
        },
      );
    }
    return chatbot;
  }

  private urls(raw: string[], field: string): string[] {
    const out: string[] = [];
    const errors: { path: (string | number)[]; message: string }[] = [];
    raw.forEach((u, i) => {
      const n = normalizeUrl(u);
      if (!n) errors.push({ path: field === 'url' ? [field] : [field, i], message: 'must be an absolute http(s) URL' });
      else if (!out.includes(n)) out.push(n);
    });
    if (errors.length) throw validationFailed(errors);
    return out;
  }

  async reachSource(auth: AuthContext, chatbotId: string, sourceId: string): Promise<SourceRecord> {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const source = await this.store.knowledge.sources.get(sourceId);
    if (!source || source.chatbotId !== chatbot.id) throw notFound('Source');
    return source;
  }

  private async reachJob(auth: AuthContext, chatbotId: string, jobId: string): Promise<IngestJobRecord> {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const job = await this.store.knowledge.ingest.getJob(jobId);
    if (!job || job.chatbotId !== chatbot.id) throw notFound('Ingest job');
    return job;
  }

  private async reachDocument(auth: AuthContext, chatbotId: string, documentId: string) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const [doc] = await this.store.knowledge.documents.many(chatbot.id, [documentId]);
    if (!doc) throw notFound('Document');
    return doc;
  }

  private async jobView(j: IngestJobRecord) {
    return {
      id: j.id,
      sourceId: j.sourceId,
      trigger: j.trigger,
      status: j.status,
      counts: { found: j.found, done: j.done, failed: j.failed, skipped: j.skipped },
      errors: await this.store.knowledge.ingest.errors(j.id, 100),
      error: j.error,
      cancelRequested: j.cancelRequested,
      createdAt: j.createdAt,
      startedAt: j.startedAt,
      finishedAt: j.finishedAt,
    };
  }
}

/** Runs tasks one at a time, in the order they come. */
class Turns {
  private last: Promise<unknown> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.last.then(task, task);
    this.last = next.catch(() => undefined);
    return next;
  }
}
