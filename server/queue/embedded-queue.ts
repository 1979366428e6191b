/**
 * The embedded job queue: a `jobs` table polled in-process. A worker claims a job with a
 * compare-and-set that also takes over expired leases, so a job whose worker crashed (or whose
 * process restarted) runs again; a heartbeat extends the lease while the handler runs. Failures
 * retry with exponential backoff until `maxAttempts`. Works on SQLite and on PostgreSQL (several
 * instances may poll one table: the conditional update lets only one of them claim a job).
 *
 * Fair turns between accounts: a job names the account (and chatbot) it works for. The next job
 * claimed is the oldest due job of the account with the fewest jobs running now (counted over
 * every instance; ties go to the account whose last turn here is oldest, then to the job waiting
 * longest), so a big crawl of one account delays
 * another account's small import by at most one job's slot. An account runs at most
 * `accountConcurrency` jobs at once and a chatbot `chatbotConcurrency`; jobs of no account take
 * turns as one account.
 */
import { hostname } from 'node:os';
import type { JobQueue } from '../domain/knowledge/ports.js';
import { newId } from '../domain/ids.js';
import type { ClaimedJob, JobOutcome, JobsStore } from './ports.js';

export interface EmbeddedQueueOptions {
  /** How often to look for due jobs when idle. */
  pollMs?: number;
  /** How long a claim lasts without a heartbeat. */
  leaseMs?: number;
  /** Jobs run at once by this process. */
  concurrency?: number;
  /** Jobs of one account running at once, over every instance (default: `concurrency`). */
  accountConcurrency?: number;
  /** Jobs of one chatbot running at once, over every instance (default: `accountConcurrency`). */
  chatbotConcurrency?: number;
  /** First retry delay; doubles per attempt (with jitter), capped at 10 minutes. */
  backoffBaseMs?: number;
  defaultMaxAttempts?: number;
  workerId?: string;
  onError?: (err: unknown, job: { id: string; name: string; attempt: number }) => void;
  /** Hears how each attempt run here ended and how long it ran (the metrics). */
  onJobEnd?: (name: string, outcome: 'done' | 'retry' | 'failed' | 'interrupted', ms: number) => void;
}

type Handler = Parameters<JobQueue['handle']>[1];
type HandlerOptions = NonNullable<Parameters<JobQueue['handle']>[2]>;
type EnqueueOptions = NonNullable<Parameters<JobQueue['enqueue']>[2]>;

const iso = (ms: number) => new Date(ms).toISOString();

export class EmbeddedQueue implements JobQueue {
  private readonly handlers = new Map<string, Handler>();
  private readonly failed = new Map<string, NonNullable<HandlerOptions['onFailed']>>();
  private readonly running = new Set<Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  /** Aborted on a graceful stop: handlers finish the step in hand and start no other. */
  private stopping = new AbortController();
  private stopped: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  /** The poll in progress: stop() waits for it, so no job is claimed after stop() returned. */
  private polling: Promise<void> | null = null;
  /** When each account last had a job claimed here (a counter): among equals, the longest waiting goes first. */
  private readonly turns = new Map<string | null, number>();
  private turnCount = 0;
  private readonly o: Required<Omit<EmbeddedQueueOptions, 'onError' | 'onJobEnd'>> &
    Pick<EmbeddedQueueOptions, 'onError' | 'onJobEnd'>;

  constructor(
    private readonly jobs: JobsStore,
    options: EmbeddedQueueOptions = {},
  ) {
    this.o = {
      pollMs: options.pollMs ?? 500,
      leaseMs: options.leaseMs ?? 60_000,
      concurrency: options.concurrency ?? 2,
      accountConcurrency: options.accountConcurrency ?? options.concurrency ?? 2,
      chatbotConcurrency: options.chatbotConcurrency ?? options.accountConcurrency ?? options.concurrency ?? 2,
      backoffBaseMs: options.backoffBaseMs ?? 2_000,
      defaultMaxAttempts: options.defaultMaxAttempts ?? 5,
      workerId: options.workerId ?? `${hostname()}:${process.pid}:${newId().slice(0, 6)}`,
      onError: options.onError,
      onJobEnd: options.onJobEnd,
    };
  }

  async enqueue(name: string, payload: Record<string, unknown>, options: EnqueueOptions = {}) {
    const id = newId();
    const now = Date.now();
    await this.jobsOf(options.within).insert({
      id,
      name,
      payload: JSON.stringify(payload),
      maxAttempts: options.maxAttempts ?? this.o.defaultMaxAttempts,
      runAt: iso(now + (options.delayMs ?? 0)),
      createdAt: iso(now),
      accountId: options.accountId ?? null,
      chatbotId: options.chatbotId ?? null,
    });
    // Inside a transaction the row is visible only after its COMMIT: this look may miss it, the next poll finds it.
    if (this.started && !options.delayMs) setImmediate(() => void this.poll());
    return id;
  }

  /** The jobs table of `within`'s transaction (every Store storage/store.ts makes carries it), else our own. */
  private jobsOf(within: object | undefined): JobsStore {
    if (!within) return this.jobs;
    const jobs = (within as { jobs?: JobsStore }).jobs;
    if (!jobs)
      throw new Error('enqueue within a transaction needs a Store of storage/store.ts (it carries the jobs table)');
    return jobs;
  }

  handle(name: string, handler: Handler, options: HandlerOptions = {}) {
    this.handlers.set(name, handler);
    if (options.onFailed) this.failed.set(name, options.onFailed);
  }

  start() {
    if (this.started) return;
    this.started = true;
    this.stopped = null;
    this.stopping = new AbortController();
    const tick = async () => {
      await this.poll();
      if (this.started) this.timer = setTimeout(tick, this.o.pollMs);
    };
    void tick();
  }

  /**
   * Stops claiming, asks running handlers to stop (their jobs go back to the queue) and waits for
   * them. With `graceMs`, handlers first get that long to finish the step in hand (`stopping`)
   * before they are aborted. A second call waits for the first.
   */
  stop(graceMs = 0): Promise<void> {
    this.stopped ??= (async () => {
      this.started = false;
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      await this.polling;
      if (graceMs > 0 && this.running.size) {
        this.stopping.abort();
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
        await Promise.race([Promise.allSettled([...this.running]), grace]);
        clearTimeout(timer);
      }
      for (const a of this.aborts) a.abort();
      await Promise.allSettled([...this.running]);
    })();
    return this.stopped;
  }

  async drain(timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = await this.jobs.unfinished([...this.handlers.keys()]);
      if (left === 0 && this.running.size === 0) return;
      if (Date.now() > deadline) throw new Error(`queue not drained after ${timeoutMs} ms (${left} jobs left)`);
      if (this.started) await this.poll();
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Claims and starts due jobs up to the concurrency limit. */
  private async poll() {
    if (this.polling || !this.started) return;
    this.polling = this.claimAndRun().finally(() => (this.polling = null));
    await this.polling;
  }

  private async claimAndRun() {
    try {
      while (this.started && this.running.size < this.o.concurrency) {
        const job = await this.claim();
        if (!job) break;
        if (!this.started) {
          // stop() came while the claim was on its way: the job goes back, the attempt not spent.
          await this.finish(job.id, {
            status: 'queued',
            run_at: iso(Date.now()),
            lease_until: null,
            attempts: job.attempts - 1,
          });
          break;
        }
        // Past its attempts: the process running its last one died (a claim takes a running row
        // only once its lease lapsed). Running it again could only crash again, so it ends here.
        const run = (
          job.attempts > job.max_attempts
            ? this.giveUp(
                job,
                `the process running it stopped (killed or crashed) during each of its ${job.max_attempts} attempts`,
              )
            : this.run(job)
        ).finally(() => {
          this.running.delete(run);
          if (this.started) setImmediate(() => void this.poll());
        });
        this.running.add(run);
      }
    } catch (err) {
      this.o.onError?.(err, { id: '', name: 'poll', attempt: 0 });
    }
  }

  private async claim(): Promise<ClaimedJob | null> {
    const names = [...this.handlers.keys()];
    if (!names.length) return null;
    const now = iso(Date.now());
    // Accounts with due work, each with its longest wait.
    const waiting = await this.jobs.waitingAccounts(names, now);
    if (!waiting.length) return null;
    // What runs now under a live lease, on any instance.
    const live = await this.jobs.running(now);
    const perAccount = new Map<string | null, number>();
    const perChatbot = new Map<string, number>();
    for (const r of live) {
      perAccount.set(r.account_id, (perAccount.get(r.account_id) ?? 0) + r.n);
      if (r.chatbot_id) perChatbot.set(r.chatbot_id, (perChatbot.get(r.chatbot_id) ?? 0) + r.n);
    }
    const runs = (w: { account_id: string | null }) => perAccount.get(w.account_id) ?? 0;
    const lastTurn = (w: { account_id: string | null }) => this.turns.get(w.account_id) ?? -1;
    const turns = waiting
      .filter((w) => runs(w) < this.o.accountConcurrency)
      .sort((a, b) => runs(a) - runs(b) || lastTurn(a) - lastTurn(b) || String(a.first).localeCompare(String(b.first)));
    for (const turn of turns) {
      const candidates = await this.jobs.dueOf(names, turn.account_id, now, 10);
      for (const { id, chatbot_id } of candidates) {
        if (chatbot_id && (perChatbot.get(chatbot_id) ?? 0) >= this.o.chatbotConcurrency) continue;
        // Compare-and-set: only one worker turns a due row into its own running row, and only
        // while its account and chatbot are under their limits (over every instance).
        const claimed = await this.jobs.claim({
          id,
          accountId: turn.account_id,
          chatbotId: chatbot_id,
          now: iso(Date.now()),
          leaseUntil: iso(Date.now() + this.o.leaseMs),
          workerId: this.o.workerId,
          accountLimit: this.o.accountConcurrency,
          chatbotLimit: this.o.chatbotConcurrency,
        });
        if (claimed) {
          this.turns.set(turn.account_id, ++this.turnCount);
          return claimed;
        }
      }
    }
    return null;
  }

  private async run(job: ClaimedJob) {
    const handler = this.handlers.get(job.name)!;
    const began = performance.now();
    const ended = (outcome: 'done' | 'retry' | 'failed' | 'interrupted') =>
      this.o.onJobEnd?.(job.name, outcome, performance.now() - began);
    const abort = new AbortController();
    this.aborts.add(abort);
    const heartbeat = setInterval(
      () => {
        void this.jobs.extendLease(job.id, this.o.workerId, iso(Date.now() + this.o.leaseMs)).catch(() => {});
      },
      Math.max(50, Math.floor(this.o.leaseMs / 3)),
    );
    try {
      await handler(JSON.parse(job.payload) as Record<string, unknown>, {
        id: job.id,
        attempt: job.attempts,
        signal: abort.signal,
        stopping: this.stopping.signal,
      });
      await this.finish(job.id, { status: 'done', finished_at: iso(Date.now()), lease_until: null, last_error: null });
      ended('done');
    } catch (err) {
      if (abort.signal.aborted || this.stopping.signal.aborted) {
        ended('interrupted');
        // Stopped by shutdown, not failed: back to the queue at once, the attempt not spent.
        await this.finish(job.id, {
          status: 'queued',
          run_at: iso(Date.now()),
          lease_until: null,
          attempts: job.attempts - 1,
        });
        return;
      }
      this.o.onError?.(err, { id: job.id, name: job.name, attempt: job.attempts });
      const message = err instanceof Error ? err.message : String(err);
      if (job.attempts >= job.max_attempts) {
        ended('failed');
        await this.giveUp(job, message);
      } else {
        ended('retry');
        const delay = Math.min(600_000, this.o.backoffBaseMs * 2 ** (job.attempts - 1)) * (0.75 + Math.random() * 0.5);
        await this.finish(job.id, {
          status: 'queued',
          run_at: iso(Date.now() + delay),
          lease_until: null,
          last_error: message,
        });
      }
    } finally {
      clearInterval(heartbeat);
      this.aborts.delete(abort);
    }
  }

  /** Marks the job failed for good and tells its handler's owner (onFailed), once. */
  private async giveUp(job: ClaimedJob, error: string) {
    await this.finish(job.id, { status: 'failed', finished_at: iso(Date.now()), lease_until: null, last_error: error });
    try {
      await this.failed.get(job.name)?.(JSON.parse(job.payload) as Record<string, unknown>, error);
    } catch (err) {
      this.o.onError?.(err, { id: job.id, name: job.name, attempt: job.attempts });
    }
  }

  /** Writes the outcome only while this worker still holds the job (a lost lease loses the write). */
  private finish(id: string, values: JobOutcome) {
    return this.jobs.finish(id, this.o.workerId, values);
  }
}
