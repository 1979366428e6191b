/**
 * Runs ingest jobs. A job's frontier lives in `ingest_items` (one row per URL, file, video or
 * page to process), so the runner is a loop over pending rows in small batches: a crash or a
 * restart leaves rows pending (or running, which are put back) and the queue runs the job
 * again, continuing where it stopped. Each item type has one handler in a registry.
 */
import { newId, nowIso } from '../ids.js';
import type { AccountRecord, ChatbotRecord, Store } from '../ports.js';
import type { Fetcher } from './crawl/fetcher.js';
import { HostPacer } from './crawl/pacing.js';
import { RobotsCache } from './crawl/robots.js';
import type { ExtractLimits, Extractor } from './documents.js';
import type { DocumentIndexer } from './indexer.js';
import type { IngestItem, IngestJobRecord, JobQueue, SourceRecord } from './ports.js';

export const INGEST_JOB = 'knowledge.ingest';

export interface ItemResult {
  status: 'done' | 'failed' | 'skipped';
  error?: string;
}

/** What an item handler can use while processing one item of one job. */
export interface ItemContext {
  job: IngestJobRecord;
  source: SourceRecord;
  account: AccountRecord;
  chatbot: ChatbotRecord;
  store: Store;
  fetcher: Fetcher;
  robots: RobotsCache;
  pacer: HostPacer;
  indexer: DocumentIndexer;
  /** Reads fetched or uploaded bytes as a document (server/adapters/extraction/). */
  extractor: Extractor;
  /** Time and memory limits of one extraction (EXTRACT_TIMEOUT_MS). */
  extractLimits: ExtractLimits;
  signal: AbortSignal;
  /**
   * Adds newly found items to the job's frontier (deduplicated) and counts them as found. With
   * `maxFound`, stops adding once the job has found that many items (its page budget), judged
   * on the job's current count, not on what the caller saw when it started.
   */
  discover(
    items: { key: string; depth: number; payload: Record<string, unknown> }[],
    opts?: { maxFound?: number },
  ): Promise<number>;
  /** Records items that failed before they could be queued (e.g. a sitemap that did not parse). */
  recordErrors(errors: { url: string; error: string }[]): Promise<void>;
}

export type ItemHandler = (ctx: ItemContext, item: IngestItem) => Promise<ItemResult>;

/** Where the runner says what jobs do (the app's logger; structured fields, then a sentence). */
export interface JobLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface IngestRunnerOptions {
  userAgent: string;
  log?: JobLog;
  /** How often a running job logs its counts. Default 5 s. */
  progressEveryMs?: number;
  /** Items processed at once within one job. */
  batchSize?: number;
  /** Floor between two requests to one host, whatever robots.txt says. */
  minCrawlDelayMs?: number;
  extractLimits?: ExtractLimits;
  /** Hears each job's end with its status (the metrics). */
  onJobEnd?: (status: 'succeeded' | 'partially_succeeded' | 'failed' | 'cancelled') => void;
}

/** Thrown when the process is stopping: the queue puts the job back without counting an attempt. */
export class JobInterrupted extends Error {
  constructor() {
    super('interrupted by shutdown');
  }
}

const FINAL = new Set(['succeeded', 'partially_succeeded', 'failed', 'cancelled']);

export class IngestRunner {
  private readonly handlers = new Map<string, ItemHandler>();

  constructor(
    private readonly store: Store,
    private readonly queue: JobQueue,
    private readonly fetcher: Fetcher,
    private readonly extractor: Extractor,
    private readonly indexer: DocumentIndexer,
    private readonly options: IngestRunnerOptions,
  ) {
    queue.handle(INGEST_JOB, (payload, job) => this.run(String(payload.jobId), job.signal, job.stopping), {
      onFailed: (payload, error) => this.givenUp(String(payload.jobId), error),
    });
  }

  /** The queue gave the job up: it ends failed with the reason, rather than "running" (its source "syncing") for ever. */
  private async givenUp(jobId: string, error: string) {
    const job = await this.store.knowledge.ingest.getJob(jobId);
    const source = job && (await this.store.knowledge.sources.get(job.sourceId));
    if (!job || !source || FINAL.has(job.status)) return;
    await this.finish(job, source, 'failed', `The job stopped: ${error}`.slice(0, 1000));
    this.log('warn', { jobId, chatbotId: source.chatbotId, sourceId: source.id, error }, `ingest job failed: ${error}`);
  }

  private log(level: 'info' | 'warn', fields: Record<string, unknown>, message: string) {
    this.options.log?.[level](fields, message);
  }

  register(type: string, handler: ItemHandler) {
    this.handlers.set(type, handler);
  }

  /** Creates a job with its first items and queues it, in one transaction. */
  async createJob(
    source: SourceRecord,
    trigger: IngestJobRecord['trigger'],
    items: { key: string; depth?: number; payload: Record<string, unknown>; blobId?: string | null }[],
    options: Record<string, unknown> = {},
  ): Promise<IngestJobRecord> {
    const job: IngestJobRecord = {
      id: newId(),
      chatbotId: source.chatbotId,
      sourceId: source.id,
      trigger,
      status: 'queued',
      found: 0,
      done: 0,
      failed: 0,
      skipped: 0,
      options,
      error: null,
      cancelRequested: false,
      createdAt: nowIso(),
      startedAt: null,
      finishedAt: null,
    };
    const accountId = (await this.store.chatbots.get(source.chatbotId))?.accountId ?? null;
    await this.store.transaction(async (s) => {
      await s.knowledge.ingest.insertJob(job);
      const added = await s.knowledge.ingest.addItems(
        job.id,
        items.map((i) => ({ depth: 0, ...i })),
      );
      await s.knowledge.ingest.addCounts(job.id, { found: added });
      job.found = added;
      // The next scheduled sync is set when this job ends (finish).
      await s.knowledge.sources.update(source.id, { status: 'syncing', nextSyncAt: null, updatedAt: job.createdAt });
      // In the same transaction: a job left "queued" with nothing to run it would hold its source "syncing" for ever.
      await this.queue.enqueue(
        INGEST_JOB,
        { jobId: job.id },
        { maxAttempts: 5, accountId, chatbotId: source.chatbotId, within: s },
      );
    });
    return job;
  }

  private async run(jobId: string, signal: AbortSignal, stopping?: AbortSignal) {
    const ingest = this.store.knowledge.ingest;
    const job = await ingest.getJob(jobId);
    if (!job || FINAL.has(job.status)) return;
    const source = await this.store.knowledge.sources.get(job.sourceId);
    const chatbot = source && (await this.store.chatbots.get(source.chatbotId));
    const account = chatbot && (await this.store.accounts.get(chatbot.accountId));
    if (!source || !chatbot || !account) return; // deleted meanwhile: the cascade removed the job too
    const resumed = job.status !== 'queued';
    if (!resumed) await ingest.updateJob(jobId, { status: 'running', startedAt: nowIso() });
    await ingest.requeueRunning(jobId);
    const about = { jobId, chatbotId: chatbot.id, sourceId: source.id, source: source.type, name: source.name };
    this.log(
      'info',
      { ...about, trigger: job.trigger, found: job.found },
      `ingest job ${resumed ? 'resumed' : 'started'}: ${source.type} ${source.name}`,
    );
    try {
      await this.runItems(job, source, account, chatbot, signal, about, stopping);
    } catch (err) {
      if (err instanceof JobInterrupted)
        this.log('info', about, 'ingest job paused by shutdown; it resumes at the next start');
      throw err;
    }
  }

  private async runItems(
    job: IngestJobRecord,
    source: SourceRecord,
    account: AccountRecord,
    chatbot: ChatbotRecord,
    signal: AbortSignal,
    about: Record<string, unknown>,
    stopping?: AbortSignal,
  ) {
    const ingest = this.store.knowledge.ingest;
    const jobId = job.id;
    const began = Date.now();
    const progressEvery = this.options.progressEveryMs ?? 5000;
    let lastProgress = began;

    // One lock per job run serialises frontier additions so maxPages is never overshot.
    let frontier = Promise.resolve(0);
    const ctx: ItemContext = {
      job,
      source,
      account,
      chatbot,
      store: this.store,
      fetcher: this.fetcher,
      robots: new RobotsCache(this.fetcher, this.options.userAgent),
      pacer: new HostPacer({ minDelayMs: this.options.minCrawlDelayMs ?? 0 }),
      indexer: this.indexer,
      extractor: this.extractor,
      extractLimits: this.options.extractLimits ?? {},
      signal,
      discover: (items, opts = {}) => {
        frontier = frontier.then(async () => {
          let added = 0;
          let rest = items;
          while (rest.length) {
            // Items of one batch discover concurrently: the budget is read here, under the lock.
            // Keys the job already holds add nothing, so a slice that came back short is topped up.
            let take = rest.length;
            if (opts.maxFound !== undefined)
              take = Math.min(take, opts.maxFound - ((await ingest.getJob(jobId))?.found ?? 0));
            if (take <= 0) break;
            const slice = rest.slice(0, take);
            const n = await this.store.transaction(async (s) => {
              const added = await s.knowledge.ingest.addItems(jobId, slice);
              if (added) await s.knowledge.ingest.addCounts(jobId, { found: added });
              return added;
            });
            rest = rest.slice(take);
            added += n;
          }
          return added;
        });
        return frontier;
      },
      recordErrors: async (errors) => {
        if (!errors.length) return;
        await this.store.transaction(async (s) => {
          const added = await s.knowledge.ingest.addItems(
            jobId,
            errors.map((e) => ({ key: e.url, depth: 0, payload: { type: 'error' } })),
          );
          for (const e of errors) await s.knowledge.ingest.setItem(jobId, e.url, 'failed', e.error);
          await s.knowledge.ingest.addCounts(jobId, { found: added, failed: added });
        });
      },
    };

    // Up to `batchSize` items in flight, topped up as each one finishes, so the extraction workers
    // never wait behind a batch's slowest page. Depth by depth, though: an item starts only when
    // no shallower one is in flight, so every link of depth d is found before any page of depth
    // d+1 runs and a page gets its shortest depth (maxDepth). The first item error (shutdown)
    // ends the run.
    const limit = Math.max(1, this.options.batchSize ?? 8);
    const inFlight = new Map<string, { depth: number; done: Promise<void> }>();
    const failures: unknown[] = [];
    for (;;) {
      if (failures.length) throw failures[0];
      if (signal.aborted) throw new JobInterrupted();
      // A graceful stop: the items in flight finish (kept as done), no other starts.
      if (stopping?.aborted) {
        await Promise.all([...inFlight.values()].map((f) => f.done));
        throw failures[0] ?? new JobInterrupted();
      }
      job = (await ingest.getJob(jobId))!;
      ctx.job = job;
      if (job.cancelRequested) {
        await Promise.all([...inFlight.values()].map((f) => f.done));
        if (failures.length) throw failures[0];
        await this.finish(job, source, 'cancelled');
        return this.logEnd(jobId, about, began);
      }
      if (Date.now() - lastProgress >= progressEvery) {
        lastProgress = Date.now();
        this.log(
          'info',
          { ...about, found: job.found, done: job.done, failed: job.failed, skipped: job.skipped },
          `ingest job progress: ${job.done + job.failed + job.skipped} of ${job.found} items (${job.failed} failed)`,
        );
      }
      if (inFlight.size < limit) {
        // Items just started may still read as pending: they are in flight, not new.
        const candidates = (await ingest.pending(jobId, limit + inFlight.size)).filter((i) => !inFlight.has(i.key));
        const depths = inFlight.size ? [...inFlight.values()].map((f) => f.depth) : candidates.map((i) => i.depth);
        const floor = Math.min(...depths);
        for (const item of candidates.filter((i) => i.depth <= floor).slice(0, limit - inFlight.size)) {
          const done = this.process(ctx, item).then(
            () => void inFlight.delete(item.key),
            (err: unknown) => {
              inFlight.delete(item.key);
              failures.push(err);
            },
          );
          inFlight.set(item.key, { depth: item.depth, done });
        }
      }
      if (!inFlight.size) break;
      // Woken by the next item to finish, or when progress is due (one slow page must not silence the log).
      let timer: NodeJS.Timeout | undefined;
      const due = new Promise<void>(
        (resolve) => (timer = setTimeout(resolve, Math.max(0, progressEvery - (Date.now() - lastProgress)))),
      );
      await Promise.race([...[...inFlight.values()].map((f) => f.done), due]);
      clearTimeout(timer);
    }
    job = (await ingest.getJob(jobId))!;
    const status = job.failed === 0 ? 'succeeded' : job.done === 0 ? 'failed' : 'partially_succeeded';
    let error: string | null =
      status === 'partially_succeeded'
        ? `${job.failed} of ${job.done + job.failed} items failed; see the error list`
        : null;
    if (status === 'failed') {
      // The first failure is usually every failure's cause (an address refused, a site down).
      const [first] = await ingest.errors(jobId, 1);
      const cause = first && (first.error.includes(first.url) ? first.error : `${first.url}: ${first.error}`);
      error = cause
        ? `${job.failed === 1 ? 'The item failed' : `Every item failed; the first`}: ${cause}`.slice(0, 1000)
        : 'Every item failed; see the error list';
    }
    await this.finish(job, source, status, error);
    await this.logEnd(jobId, about, began);
  }

  private async logEnd(jobId: string, about: Record<string, unknown>, began: number) {
    const job = await this.store.knowledge.ingest.getJob(jobId);
    if (!job) return;
    const fields = {
      ...about,
      status: job.status,
      found: job.found,
      done: job.done,
      failed: job.failed,
      skipped: job.skipped,
      durationMs: Date.now() - began,
      ...(job.error && { error: job.error }),
    };
    this.log(
      job.status === 'failed' ? 'warn' : 'info',
      fields,
      `ingest job ${job.status}: ${job.done} indexed, ${job.failed} failed, ${job.skipped} skipped of ${job.found} in ${((Date.now() - began) / 1000).toFixed(1)} s${job.error ? `. ${job.error}` : ''}`,
    );
  }

  private async process(ctx: ItemContext, item: IngestItem) {
    const ingest = this.store.knowledge.ingest;
    await ingest.setItem(item.jobId, item.key, 'running');
    let result: ItemResult;
    const handler = this.handlers.get(String(item.payload?.type));
    try {
      result = handler
        ? await handler(ctx, item)
        : { status: 'failed', error: `No handler for items of type ${String(item.payload?.type)}` };
    } catch (err) {
      if (ctx.signal.aborted) throw new JobInterrupted();
      result = { status: 'failed', error: err instanceof Error ? err.message : String(err) };
    }
    // A fetch cut by shutdown comes back as a failed page, not a throw: leave the item running so
    // the next run of the job puts it back and fetches it again. Finished work (done) is kept.
    if (ctx.signal.aborted && result.status !== 'done') throw new JobInterrupted();
    // Together: an item left running is processed again on resume, one marked done is counted,
    // and only once (a second runner after a lost lease finds it ended).
    await this.store.transaction(async (s) => {
      if (await s.knowledge.ingest.finishItem(item.jobId, item.key, result.status, result.error ?? null))
        await s.knowledge.ingest.addCounts(item.jobId, { [result.status]: 1 });
    });
  }

  private async finish(
    job: IngestJobRecord,
    source: SourceRecord,
    status: 'succeeded' | 'partially_succeeded' | 'failed' | 'cancelled',
    error: string | null = null,
  ) {
    const at = nowIso();
    await this.store.knowledge.ingest.updateJob(job.id, { status, finishedAt: at, error });
    this.options.onJobEnd?.(status);
    const next = source.syncIntervalMinutes
      ? new Date(Date.now() + source.syncIntervalMinutes * 60_000).toISOString()
      : null;
    await this.store.knowledge.sources.update(source.id, {
      status: status === 'failed' ? 'error' : 'ready',
      lastError: error,
      lastSyncAt: status === 'cancelled' ? source.lastSyncAt : at,
      nextSyncAt: next,
      updatedAt: at,
    });
  }
}
