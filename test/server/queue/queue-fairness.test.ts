/**
 * Fair background work between tenants: 60 queued imports of account A do not hold back account
 * B's single import by more than one job's slot, and per-account and per-chatbot limits hold,
 * counted over every instance polling the table. SQLite and PostgreSQL.
 */
import { afterEach, beforeEach, expect, test } from 'vitest';
import { EmbeddedQueue } from '../../../server/queue/embedded-queue.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { describeOnDialects } from '../../helpers/dialects.js';
import { waitFor } from '../../helpers/knowledge-http.js';

describeOnDialects('fair queue on %s', (dialect) => {
  let db: TestDatabase;
  const queues: EmbeddedQueue[] = [];
  /** Each started job, in order; a job runs until released. */
  let started: { id: string; account: string; chatbot: string }[];
  let releases: Map<string, () => void>;
  let running: Map<string, { id: string; account: string; chatbot: string }>;
  let peak: { account: Map<string, number>; chatbot: Map<string, number> };

  beforeEach(async () => {
    db = await openTestDatabase(dialect);
    started = [];
    releases = new Map();
    running = new Map();
    peak = { account: new Map(), chatbot: new Map() };
  });
  afterEach(async () => {
    for (const r of releases.values()) r();
    await Promise.all(queues.splice(0).map((q) => q.stop()));
    await db.close();
  });

  const count = (key: 'account' | 'chatbot', value: string) =>
    [...running.values()].filter((r) => r[key] === value).length;

  function makeQueue(options: ConstructorParameters<typeof EmbeddedQueue>[1] = {}) {
    const q = new EmbeddedQueue(db.store.jobs, { pollMs: 20, concurrency: 2, ...options });
    q.handle('import', async (payload, job) => {
      const entry = { id: String(payload.n), account: String(payload.account), chatbot: String(payload.chatbot) };
      started.push(entry);
      running.set(job.id, entry);
      for (const key of ['account', 'chatbot'] as const)
        peak[key].set(entry[key], Math.max(peak[key].get(entry[key]) ?? 0, count(key, entry[key])));
      await new Promise<void>((resolve) => releases.set(entry.id, resolve));
      running.delete(job.id);
      releases.delete(entry.id);
    });
    queues.push(q);
    return q;
  }
  const enqueue = (q: EmbeddedQueue, n: string, account: string, chatbot = `${account}-bot`) =>
    q.enqueue('import', { n, account, chatbot }, { accountId: account, chatbotId: chatbot });
  const release = (n: string) => releases.get(n)!();

  test('60 queued imports of account A, then one of account B: B starts within one slot', async () => {
    const q = makeQueue();
    for (let i = 0; i < 60; i++) await enqueue(q, `a${i}`, 'A');
    q.start();
    await waitFor(() => started.length === 2, 10_000, 'two of A running');
    expect(started.map((s) => s.account)).toEqual(['A', 'A']);
    await enqueue(q, 'b0', 'B');
    release(started[0].id); // one slot frees
    await waitFor(() => started.length === 3, 10_000, 'the next job');
    expect(started[2]).toMatchObject({ id: 'b0', account: 'B' });
  });

  test('queued together, accounts take turns: the first jobs started alternate between them', async () => {
    const q = makeQueue({ concurrency: 1 });
    for (let i = 0; i < 5; i++) await enqueue(q, `a${i}`, 'A');
    for (let i = 0; i < 2; i++) await enqueue(q, `b${i}`, 'B');
    await enqueue(q, 'c0', 'C');
    q.start();
    for (let i = 0; i < 8; i++) {
      await waitFor(() => started.length === i + 1, 10_000, `job ${i + 1}`);
      release(started[i].id);
    }
    expect(started.map((s) => s.id)).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2', 'a3', 'a4']);
  });

  test('an account never runs more than QUEUE_ACCOUNT_CONCURRENCY jobs, nor a chatbot more than its limit, over two instances', async () => {
    const one = makeQueue({ concurrency: 3, accountConcurrency: 2, chatbotConcurrency: 1 });
    const two = makeQueue({ concurrency: 3, accountConcurrency: 2, chatbotConcurrency: 1 });
    for (let i = 0; i < 6; i++) await enqueue(one, `a${i}`, 'A', i % 2 ? 'A-one' : 'A-two');
    for (let i = 0; i < 3; i++) await enqueue(one, `b${i}`, 'B', 'B-bot');
    one.start();
    two.start();
    await waitFor(() => started.length === 3, 10_000, 'three running');
    await new Promise((r) => setTimeout(r, 200)); // more polls of both: nothing else may start
    expect(started.length).toBe(3);
    while (started.length < 9) {
      const before = started.length;
      release([...running.values()][0].id);
      await waitFor(() => started.length > before || running.size === 0, 10_000, 'the next job');
    }
    expect(Math.max(...peak.account.values())).toBeLessThanOrEqual(2);
    expect(Math.max(...peak.chatbot.values())).toBe(1);
  });
});
