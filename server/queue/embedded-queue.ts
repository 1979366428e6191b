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
import { type Expression, type ExpressionBuilder, type Kysely, PostgresAdapter, type SqlBool, sql } from 'kysely';
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
  /** Jobs of one account running at once, over every instance (default: `concurrency`). */
  accountConcurrency?: number;
  /** Jobs of one chatbot running at once, over every instance (default: `accountConcurrency`). */
  chatbotConcurrency?: number;
  /** First retry delay; doubles per attempt (with jitter), capped at 10 minutes. */
  backoffBaseMs?: number;
  defaultMaxAttempts?: number;
  workerId?: string;
  onError?: (err: unknown, job: { id: string; name: string; attempt: number }) => void;
}

type Handler = Parameters<JobQueue['handle']>[1];
type EnqueueOptions = NonNullable<Parameters<JobQueue['enqueue']>[2]>;

const iso = (ms: number) => new Date(ms).toISOString();

export class EmbeddedQueue implements JobQueue {
  private readonly handlers = new Map<string, Handler>();
  private readonly running = new Set<Promise<void>>();
  private readonly aborts = new Set<AbortController>();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  /** The poll in progress: stop() waits for it, so no job is claimed after stop() returned. */
  private polling: Promise<void> | null = null;
  /** When each account last had a job claimed here (a counter): among equals, the longest waiting goes first. */
  private readonly turns = new Map<string | null, number>();
  private turnCount = 0;
  private readonly postgres: boolean;
  private readonly o: Required<Omit<EmbeddedQueueOptions, 'onError'>> & Pick<EmbeddedQueueOptions, 'onError'>;

  constructor(
    private readonly db: Kysely<Database>,
    options: EmbeddedQueueOptions = {},
  ) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
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
    };
  }

  async enqueue(name: string, payload: Record<string, unknown>, options: EnqueueOptions = {}) {
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
        account_id: options.accountId ?? null,
        chatbot_id: options.chatbotId ?? null,
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
    await this.polling;
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
          await this.finish(job.id, { status: 'queued', run_at: iso(Date.now()), lease_until: null, attempts: job.attempts - 1 });
          break;
        }
        const run = this.run(job).finally(() => {
          this.running.delete(run);
          if (this.started) setImmediate(() => void this.poll());
        });
        this.running.add(run);
      }
    } catch (err) {
      this.o.onError?.(err, { id: '', name: 'poll', attempt: 0 });
    }
  }

  private async claim(): Promise<{ id: string; name: string; payload: string; attempts: number; max_attempts: number } | null> {
    const names = [...this.handlers.keys()];
    if (!names.length) return null;
    const now = iso(Date.now());
    const due = (eb: ExpressionBuilder<Database, 'jobs'>) =>
      eb.or([eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)]), eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)])]);
    // Accounts with due work, each with its longest wait.
    const waiting = await this.db
      .selectFrom('jobs')
      .select((eb) => ['account_id', eb.fn.min('run_at').as('first')])
      .where('name', 'in', names)
      .where(due)
      .groupBy('account_id')
      .execute();
    if (!waiting.length) return null;
    // What runs now under a live lease, on any instance.
    const live = await this.db
      .selectFrom('jobs')
      .select((eb) => ['account_id', 'chatbot_id', eb.fn.countAll<number | string>().as('n')])
      .where('status', '=', 'running')
      .where('lease_until', '>=', now)
      .groupBy(['account_id', 'chatbot_id'])
      .execute();
    const perAccount = new Map<string | null, number>();
    const perChatbot = new Map<string, number>();
    for (const r of live) {
      perAccount.set(r.account_id, (perAccount.get(r.account_id) ?? 0) + Number(r.n));
      if (r.chatbot_id) perChatbot.set(r.chatbot_id, (perChatbot.get(r.chatbot_id) ?? 0) + Number(r.n));
    }
    const runs = (w: { account_id: string | null }) => perAccount.get(w.account_id) ?? 0;
    const lastTurn = (w: { account_id: string | null }) => this.turns.get(w.account_id) ?? -1;
    const turns = waiting
      .filter((w) => runs(w) < this.o.accountConcurrency)
      .sort((a, b) => runs(a) - runs(b) || lastTurn(a) - lastTurn(b) || String(a.first).localeCompare(String(b.first)));
    for (const turn of turns) {
      const candidates = await this.db
        .selectFrom('jobs')
        .select(['id', 'chatbot_id'])
        .where('name', 'in', names)
        .where(due)
        .where((eb) => (turn.account_id === null ? eb('account_id', 'is', null) : eb('account_id', '=', turn.account_id)))
        .orderBy('run_at')
        .limit(10)
        .execute();
      for (const { id, chatbot_id } of candidates) {
        if (chatbot_id && (perChatbot.get(chatbot_id) ?? 0) >= this.o.chatbotConcurrency) continue;
        const claimed = await this.claimRow(id, turn.account_id, chatbot_id, due);
        if (claimed) {
          this.turns.set(turn.account_id, ++this.turnCount);
          return claimed;
        }
      }
    }
    return null;
  }

  /**
   * Compare-and-set: only one worker turns a due row into its own running row, and only while its
   * account and chatbot are under their limits. One statement on SQLite (writes are serialised);
   * on PostgreSQL claims take turns under an advisory lock, so two instances cannot both take the
   * last free place of an account.
   */
  private async claimRow(id: string, accountId: string | null, chatbotId: string | null, due: (eb: ExpressionBuilder<Database, 'jobs'>) => Expression<SqlBool>) {
    const now = iso(Date.now());
    const liveOf = (column: 'account_id' | 'chatbot_id', value: string | null) =>
      sql<number>`(select count(*) from jobs as r where r.status = 'running' and r.lease_until >= ${now} and ${value === null ? sql`r.account_id is null` : sql`r.${sql.ref(column)} = ${value}`})`;
    const update = (db: Kysely<Database>) =>
      db
        .updateTable('jobs')
        .set({ status: 'running', lease_until: iso(Date.now() + this.o.leaseMs), locked_by: this.o.workerId, attempts: sql`attempts + 1` })
        .where('id', '=', id)
        .where(due)
        .where(sql<SqlBool>`${liveOf('account_id', accountId)} < ${this.o.accountConcurrency}`)
        .where(chatbotId === null ? sql<SqlBool>`1 = 1` : sql<SqlBool>`${liveOf('chatbot_id', chatbotId)} < ${this.o.chatbotConcurrency}`)
        .returning(['id', 'name', 'payload', 'attempts', 'max_attempts'])
        .executeTakeFirst();
    if (!this.postgres) return update(this.db);
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext('parley.jobs.claim'))`.execute(trx);
      return update(trx);
    });
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
