import { afterEach, beforeEach, expect, test } from 'vitest';
import { EmbeddedQueue } from '../../../server/queue/embedded-queue.js';
import { createStore } from '../../../server/storage/store.js';
import type { DatabaseHandle } from '../../../server/storage/dialects/index.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { describeOnDialects } from '../../helpers/dialects.js';

describeOnDialects('embedded queue on %s', (dialect) => {
  let database: DatabaseHandle;
  let opened: TestDatabase | undefined;
  const queues: EmbeddedQueue[] = [];
  const make = (o: ConstructorParameters<typeof EmbeddedQueue>[1] = {}) => {
    const q = new EmbeddedQueue(createStore(database.db).jobs, { pollMs: 20, backoffBaseMs: 10, ...o });
    queues.push(q);
    return q;
  };

  beforeEach(async () => {
    opened = await openTestDatabase(dialect);
    database = opened.database;
  });

  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.stop()));
    await opened?.close();
    opened = undefined;
  });

  const row = (id: string) => database.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  test('runs a job with its payload and marks it done', async () => {
    const q = make();
    const seen: unknown[] = [];
    q.handle('greet', async (payload) => void seen.push(payload));
    q.start();
    const id = await q.enqueue('greet', { name: 'Ada' });
    await q.drain(5000);
    expect(seen).toEqual([{ name: 'Ada' }]);
    expect((await row(id)).status).toBe('done');
  });

  test('retries a failing job with backoff, then succeeds', async () => {
    const q = make();
    const attempts: number[] = [];
    q.handle('flaky', async (_p, job) => {
      attempts.push(job.attempt);
      if (job.attempt < 3) throw new Error(`boom ${job.attempt}`);
    });
    q.start();
    const id = await q.enqueue('flaky', {});
    await q.drain(5000);
    expect(attempts).toEqual([1, 2, 3]);
    const r = await row(id);
    expect(r.status).toBe('done');
    expect(Number(r.attempts)).toBe(3);
  });

  test('gives up after maxAttempts and keeps the last error', async () => {
    const q = make();
    let calls = 0;
    q.handle('doomed', async () => {
      calls++;
      throw new Error('still broken');
    });
    q.start();
    const id = await q.enqueue('doomed', {}, { maxAttempts: 2 });
    await q.drain(5000);
    expect(calls).toBe(2);
    expect(await row(id)).toMatchObject({ status: 'failed', last_error: 'still broken' });
  });

  test('never runs more jobs at once than its concurrency', async () => {
    const q = make({ concurrency: 2 });
    let now = 0;
    let peak = 0;
    q.handle('slow', async () => {
      peak = Math.max(peak, ++now);
      await new Promise((r) => setTimeout(r, 30));
      now--;
    });
    for (let i = 0; i < 6; i++) await q.enqueue('slow', { i });
    q.start();
    await q.drain(10_000);
    expect(peak).toBe(2);
  });

  test('a graceful stop lets a handler finish the step in hand: the step is kept, the job goes back unspent', async () => {
    const q = make();
    const steps: string[] = [];
    let stepStarted!: () => void;
    const started = new Promise<void>((r) => (stepStarted = r));
    let finishStep!: () => void;
    const stepMayEnd = new Promise<void>((r) => (finishStep = r));
    let stopping: AbortSignal | undefined;
    q.handle('steps', async (_p, job) => {
      stopping = job.stopping;
      for (let i = 1; i <= 3; i++) {
        if (job.stopping?.aborted) throw new Error('interrupted');
        stepStarted();
        await stepMayEnd; // the step in hand when the stop comes
        steps.push(`step ${i}${job.signal.aborted ? ' (aborted)' : ''}`);
      }
    });
    q.start();
    const id = await q.enqueue('steps', {});
    await started;
    const stopped = q.stop(5_000);
    await new Promise((r) => stopping!.addEventListener('abort', r));
    finishStep();
    await stopped;
    expect(steps).toEqual(['step 1']);
    expect(await row(id)).toMatchObject({ status: 'queued', attempts: 0, lease_until: null });
  });

  test('a graceful stop aborts a handler still running when its grace ends', async () => {
    const q = make();
    let aborted = false;
    let running!: () => void;
    const isRunning = new Promise<void>((r) => (running = r));
    q.handle('stuck', async (_p, job) => {
      running();
      await new Promise<void>((resolve) => job.signal.addEventListener('abort', () => resolve()));
      aborted = true;
      throw new Error('aborted');
    });
    q.start();
    const id = await q.enqueue('stuck', {});
    await isRunning;
    await q.stop(50);
    expect(aborted).toBe(true);
    expect(await row(id)).toMatchObject({ status: 'queued', attempts: 0 });
  });

  test('a job survives a restart: a new queue on the same database runs it', async () => {
    const first = make();
    const id = await first.enqueue('later', { n: 1 }); // enqueued, never started
    await first.stop();
    const second = make();
    const seen: unknown[] = [];
    second.handle('later', async (p) => void seen.push(p));
    second.start();
    await second.drain(5000);
    expect(seen).toEqual([{ n: 1 }]);
    expect((await row(id)).status).toBe('done');
  });

  test("a crashed worker's job is picked up again once its lease expires", async () => {
    const producer = make();
    const id = await producer.enqueue('work', {});
    // What a process that died mid-job leaves behind: a running row, an expired lease, a gone owner.
    await database.db
      .updateTable('jobs')
      .set({
        status: 'running',
        attempts: 1,
        locked_by: 'dead-worker',
        lease_until: new Date(Date.now() - 1000).toISOString(),
      })
      .where('id', '=', id)
      .execute();
    const rescuer = make();
    const runs: number[] = [];
    rescuer.handle('work', async (_p, job) => void runs.push(job.attempt));
    rescuer.start();
    await expect.poll(async () => (await row(id)).status, { timeout: 5000 }).toBe('done');
    expect(runs).toEqual([2]);
  });

  test('a live lease is not taken over, and a worker that lost its lease cannot write the outcome', async () => {
    const slow = make({ leaseMs: 10_000 });
    let release!: () => void;
    slow.handle('work', () => new Promise<void>((r) => (release = r)));
    slow.start();
    const id = await slow.enqueue('work', {});
    await expect.poll(async () => (await row(id)).status, { timeout: 3000 }).toBe('running');
    const other = make();
    let stolen = false;
    other.handle('work', async () => void (stolen = true));
    other.start();
    await new Promise((r) => setTimeout(r, 150));
    expect(stolen).toBe(false);
    // Another worker took the job over (as after an expiry); the first one's late success is dropped.
    await database.db.updateTable('jobs').set({ locked_by: 'someone-else' }).where('id', '=', id).execute();
    release();
    await new Promise((r) => setTimeout(r, 100));
    expect(await row(id)).toMatchObject({ status: 'running', locked_by: 'someone-else' });
  });

  test('stopping interrupts a running job: it goes back to the queue without spending an attempt', async () => {
    const first = make();
    first.handle(
      'long',
      (_p, job) =>
        new Promise<void>((_r, reject) => job.signal.addEventListener('abort', () => reject(new Error('aborted')))),
    );
    first.start();
    const id = await first.enqueue('long', {}, { maxAttempts: 1 });
    await expect.poll(async () => (await row(id)).status, { timeout: 3000 }).toBe('running');
    await first.stop();
    expect(await row(id)).toMatchObject({ status: 'queued', lease_until: null });
    expect(Number((await row(id)).attempts)).toBe(0);
    const second = make();
    const attempts: number[] = [];
    second.handle('long', async (_p, job) => void attempts.push(job.attempt));
    second.start();
    await second.drain(5000);
    expect(attempts).toEqual([1]);
  });

  test('two workers polling one table never run the same job twice', async () => {
    const a = make({ concurrency: 3 });
    const b = make({ concurrency: 3 });
    const runs = new Map<number, number>();
    const handler = async (p: Record<string, unknown>) => {
      runs.set(p.i as number, (runs.get(p.i as number) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 5));
    };
    a.handle('once', handler);
    b.handle('once', handler);
    for (let i = 0; i < 30; i++) await a.enqueue('once', { i });
    a.start();
    b.start();
    await a.drain(15_000);
    await b.drain(15_000);
    expect(runs.size).toBe(30);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
  });
});
