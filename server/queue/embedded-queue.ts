/**
 * The embedded job queue: a `jobs` table polled in-process. A worker claims a job with a
 * compare-and-set that also takes over expired leases, so a job whose worker crashed (or whose
 * process restarted) runs again; a heartbeat extends the lease while the handler runs. Failures
 * retry with exponential backoff until `maxAttempts`. Works on SQLite and on PostgreSQL (several
 * instances may poll one table: the conditional update lets only one of them claim a job).
 */
import { hostname } from 'node:os';
import { type Kysely, sql } from 'kysely';
import type { JobQueue } from '../domain/knowledge/ports.js';
import { newId } from '../domain/ids.js';
import type { Database } from '../storage/tables.js';

export interface EmbeddedQueueOptions {
  /** How often to look for due jobs when idle. */
  pollMs?: number;
  /** How long a claim lasts without a heartbeat. */
  leaseMs?: number;
  /** Jobs run at once by this process. */
  concurrency?: number;
  /** First retry delay; doubles per attempt (with jitter), capped at 10 minutes. */
  backoffBaseMs?: number;
  defaultMaxAttempts?: number;
  workerId?: string;
  onError?: (err: unknown, job: { id: string; name: string; attempt: number }) => void;
}

type Handler = Parameters<JobQueue['handle']>[1];

const iso = (ms: number) => new Date(ms).toISOString();

export class EmbeddedQueue implements JobQueue {
  private readonly handlers = new Map<string, Handler>();
  private readonly running = new Set<Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private polling = false;
  private readonly o: Required<Omit<EmbeddedQueueOptions, 'onError'>> & Pick<EmbeddedQueueOptions, 'onError'>;

  constructor(
    private readonly db: Kysely<Database>,
    options: EmbeddedQueueOptions = {},
  ) {
    this.o = {
      pollMs: options.pollMs ?? 500,
      leaseMs: options.leaseMs ?? 60_000,
      concurrency: options.concurrency ?? 2,
      backoffBaseMs: options.backoffBaseMs ?? 2_000,
      defaultMaxAttempts: options.defaultMaxAttempts ?? 5,
      workerId: options.workerId ?? `${hostname()}:${process.pid}:${newId().slice(0, 6)}`,
      onError: options.onError,
    };
  }

  async enqueue(name: string, payload: Record<string, unknown>, options: { delayMs?: number; maxAttempts?: number } = {}) {
    const id = newId();
    const now = Date.now();
    await this.db
      .insertInto('jobs')
      .values({
        id,
        name,
        payload: JSON.stringify(payload),
        status: 'queued',
        max_attempts: options.maxAttempts ?? this.o.defaultMaxAttempts,
        run_at: iso(now + (options.delayMs ?? 0)),
        lease_until: null,
        locked_by: null,
        last_error: null,
        created_at: iso(now),
        finished_at: null,
      })
      .execute();
    if (this.started && !options.delayMs) setImmediate(() => void this.poll());
    return id;
  }

  handle(name: string, handler: Handler) {
    this.handlers.set(name, handler);
  }

  start() {
    if (this.started) return;
    this.started = true;
    const tick = async () => {
      await this.poll();
      if (this.started) this.timer = setTimeout(tick, this.o.pollMs);
    };
    void tick();
  }

  /** Stops claiming, asks running handlers to stop (their jobs go back to the queue) and waits for them. */
  async stop() {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const a of this.aborts) a.abort();
    await Promise.allSettled([...this.running]);
  }

  async drain(timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const row = await this.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('status', 'in', ['queued', 'running'])
        .where('name', 'in', [...this.handlers.keys(), ''])
        .executeTakeFirstOrThrow();
      if (Number(row.n) === 0 && this.running.size === 0) return;
      if (Date.now() > deadline) throw new Error(`queue not drained after ${timeoutMs} ms (${row.n} jobs left)`);
      if (this.started) await this.poll();
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Claims and starts due jobs up to the concurrency limit. */
  private async poll() {
    if (this.polling || !this.started) return;
    this.polling = true;
    try {
      while (this.started && this.running.size < this.o.concurrency) {
        const job = await this.claim();
        if (!job) break;
        const run = this.run(job).finally(() => {
          this.running.delete(run);
          if (this.started) setImmediate(() => void this.poll());
        });
        this.running.add(run);
      }
    } catch (err) {
      this.o.onError?.(err, { id: '', name: 'poll', attempt: 0 });
    } finally {
      this.polling = false;
    }
  }

  private async claim(): Promise<{ id: string; name: string; payload: string; attempts: number; max_attempts: number } | null> {
    const names = [...this.handlers.keys()];
    if (!names.length) return null;
    const now = iso(Date.now());
    const candidates = await this.db
      .selectFrom('jobs')
      .select(['id'])
      .where('name', 'in', names)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)]),
          eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)]),
        ]),
      )
      .orderBy('run_at')
      .limit(5)
      .execute();
    for (const { id } of candidates) {
      // Compare-and-set: only one worker turns a due row into its own running row.
      const claimed = await this.db
        .updateTable('jobs')
        .set({ status: 'running', lease_until: iso(Date.now() + this.o.leaseMs), locked_by: this.o.workerId, attempts: sql`attempts + 1` })
        .where('id', '=', id)
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)]),
            eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)]),
          ]),
        )
        .returning(['id', 'name', 'payload', 'attempts', 'max_attempts'])
        .executeTakeFirst();
      if (claimed) return claimed;
    }
    return null;
  }

  private async run(job: { id: string; name: string; payload: string; attempts: number; max_attempts: number }) {
    const handler = this.handlers.get(job.name)!;
    const abort = new AbortController();
    this.aborts.add(abort);
    const heartbeat = setInterval(() => {
      void this.db
        .updateTable('jobs')
        .set({ lease_until: iso(Date.now() + this.o.leaseMs) })
        .where('id', '=', job.id)
        .where('locked_by', '=', this.o.workerId)
        .execute()
        .catch(() => {});
    }, Math.max(50, Math.floor(this.o.leaseMs / 3)));
    try {
      await handler(JSON.parse(job.payload) as Record<string, unknown>, { id: job.id, attempt: job.attempts, signal: abort.signal });
      await this.finish(job.id, { status: 'done', finished_at: iso(Date.now()), lease_until: null, last_error: null });
    } catch (err) {
      if (abort.signal.aborted) {
        // Stopped by shutdown, not failed: back to the queue at once, the attempt not spent.
        await this.finish(job.id, { status: 'queued', run_at: iso(Date.now()), lease_until: null, attempts: job.attempts - 1 });
        return;
      }
      this.o.onError?.(err, { id: job.id, name: job.name, attempt: job.attempts });
      const message = err instanceof Error ? err.message : String(err);
      if (job.attempts >= job.max_attempts) {
        await this.finish(job.id, { status: 'failed', finished_at: iso(Date.now()), lease_until: null, last_error: message });
      } else {
        const delay = Math.min(600_000, this.o.backoffBaseMs * 2 ** (job.attempts - 1)) * (0.75 + Math.random() * 0.5);
        await this.finish(job.id, { status: 'queued', run_at: iso(Date.now() + delay), lease_until: null, last_error: message });
      }
    } finally {
      clearInterval(heartbeat);
      this.aborts.delete(abort);
    }
  }

  /** Writes the outcome only while this worker still holds the job (a lost lease loses the write). */
  private async finish(id: string, values: Partial<{ status: string; finished_at: string; lease_until: string | null; last_error: string | null; run_at: string; attempts: number }>) {
    await this.db.updateTable('jobs').set(values).where('id', '=', id).where('locked_by', '=', this.o.workerId).execute();
  }
}
