/**
 * The gateway's limits across instances: two app instances on one database and one Redis count
 * a chatbot's concurrent answers and a visitor's sockets together, as an operator setting them
 * expects behind a load balancer; the slots of an instance that died lapse after their lease;
 * and with Redis unreachable each instance falls back to its own count.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type AnswerDoneFrame, CLOSE } from '../../../shared/protocol.js';
import { busyMessage } from '../../../server/domain/widget/busy.js';
import { RedisSlots } from '../../../server/realtime/redis-slots.js';
import { startChatStandin, type ChatStandin } from '../../helpers/chat-standin.js';
import { REDIS_URL, redisAvailable } from '../../helpers/redis.js';
import {
  chatbotWithKnowledge,
  connect,
  type LiveApp,
  newSession,
  startLiveApp,
  visitor,
} from '../../helpers/widget.js';

const hasRedis = await redisAvailable();
const LEASE_MS = 1500;
let model: ChatStandin;
let a: LiveApp;
let b: LiveApp;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  if (!hasRedis) return;
  dataDir = mkdtempSync(join(tmpdir(), 'parley-limits-'));
  model = await startChatStandin();
  env = {
    REDIS_URL,
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    MAX_ANSWERS_PER_CHATBOT: '1',
    WS_MAX_SOCKETS_PER_VISITOR: '2',
    REALTIME_LEASE_MS: String(LEASE_MS),
  };
  a = await startLiveApp({ dataDir, env });
  b = await startLiveApp({ dataDir, env });
});
afterAll(async () => {
  if (!hasRedis) return;
  await b.close();
  await a.close();
  await model.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const slow =
  'Refunds are paid within five business days of the return arriving at our warehouse, by the same means of payment you used.';

test.runIf(hasRedis)(
  "a chatbot's cap of one answer holds across instances: B's visitor gets the busy reply while A answers, and an answer once A is done",
  async () => {
    const chatbotId = await chatbotWithKnowledge(a);
    const onA = await visitor(a.url, (await newSession(a, chatbotId)).token);
    const onB = await visitor(b.url, (await newSession(b, chatbotId)).token);
    // A's answer streams slowly and holds the chatbot's one slot.
    model.next({ kind: 'reply', text: slow, pieceDelayMs: 150 });
    onA.send({ type: 'message.send', clientId: 'holder', text: 'When are refunds paid?' });
    await onA.waitFor((f) => f.type === 'answer.delta');

    const asked = model.requests.length;
    onB.send({ type: 'message.send', clientId: 'refused', text: 'When are refunds paid?' });
    const busy = await onB.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done');
    expect(busy.message.text).toBe(busyMessage({}));
    expect(onA.of('answer.done')).toEqual([]); // A's answer was still being written
    expect(model.requests.length).toBe(asked); // B did not ask the model

    const answered = await onA.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done', 20_000);
    expect(answered.message.text).toBe(slow);
    // A gave its slot back: B's next question is answered.
    onB.send({ type: 'message.send', clientId: 'after', text: 'When are refunds paid?' });
    const next = await onB.waitFor<AnswerDoneFrame>(
      (f) => f.type === 'answer.done' && f.message.text !== busy.message.text,
    );
    expect(next.message.text).toContain('Refunds are paid within 5 business days');
    onA.close();
    onB.close();
  },
);

test.runIf(hasRedis)(
  "a visitor's sockets are counted on both instances together, and a closed one frees its place",
  async () => {
    const chatbotId = await chatbotWithKnowledge(a);
    const { token } = await newSession(a, chatbotId);
    const first = await visitor(a.url, token);
    const second = await visitor(b.url, token);
    // WS_MAX_SOCKETS_PER_VISITOR=2: a third on either instance is refused, whether its token came
    // with the upgrade (A) or in hello (B).
    for (const app of [a, b]) {
      const inHello = app === b;
      const third = await connect(app.url, inHello ? null : token);
      third.send({ type: 'hello', v: 1, ...(inHello && { token }) });
      const closed = await third.waitClosed();
      expect(closed.code).toBe(CLOSE.tooManySockets);
      expect(closed.reason).toBe('too many sockets for this visitor');
      expect(third.of('ready')).toHaveLength(0);
    }
    second.close();
    await second.waitClosed();
    // B's slot is given back once its close is handled; then A admits another.
    await expect
      .poll(
        async () => {
          const again = await connect(a.url, token);
          again.send({ type: 'hello', v: 1 });
          await again.waitFor((f) => f.type === 'ready', 2000).catch(() => {});
          const ok = again.of('ready').length === 1;
          again.close();
          await again.waitClosed();
          return ok;
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    first.close();
  },
);

test.runIf(hasRedis)(
  'the answer slot of an instance that died counts until its lease lapses, then frees itself',
  async () => {
    const chatbotId = await chatbotWithKnowledge(a);
    const c = await startLiveApp({ dataDir, env });
    const slots = c.app.realtime.slots as RedisSlots;
    expect(slots).toBeInstanceOf(RedisSlots);
    expect(await c.app.realtime.reserveAnswer(chatbotId)).not.toBeNull();
    // Held and renewed: well past one lease, the others still find the chatbot busy.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 2));
    expect(await b.app.realtime.reserveAnswer(chatbotId)).toBeNull();

    // C stops renewing and goes away without giving its slot back, as a killed process would.
    slots.abandon();
    await c.close();
    expect(await b.app.realtime.reserveAnswer(chatbotId)).toBeNull();
    const onB = await visitor(b.url, (await newSession(b, chatbotId)).token);
    await expect
      .poll(
        async () => {
          const release = await b.app.realtime.reserveAnswer(chatbotId);
          release?.();
          return release !== null;
        },
        { timeout: LEASE_MS * 4, interval: 100 },
      )
      .toBe(true);
    onB.send({ type: 'message.send', clientId: 'freed', text: 'When are refunds paid?' });
    const answer = await onB.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done');
    expect(answer.message.text).toContain('Refunds are paid within 5 business days');
    onB.close();
  },
);

test('with Redis unreachable, slots are counted on this instance with the same maximum, and the outage is reported once', async () => {
  // Nothing listens on port 1: every command fails, as with Redis down.
  const down = new Redis('redis://127.0.0.1:1', {
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    lazyConnect: true,
  });
  down.on('error', () => {});
  const reports: unknown[] = [];
  const slots = new RedisSlots(down, 3000, (err) => reports.push(err));
  try {
    const one = await slots.take('answers:bot', 2);
    const two = await slots.take('answers:bot', 2);
    expect(one).not.toBeNull();
    expect(two).not.toBeNull();
    expect(await slots.take('answers:bot', 2)).toBeNull();
    expect(await slots.take('answers:other', 2)).not.toBeNull();
    one!();
    one!(); // twice gives back one slot only
    expect(await slots.take('answers:bot', 2)).not.toBeNull();
    expect(await slots.take('answers:bot', 2)).toBeNull();
    expect(reports).toHaveLength(1);
  } finally {
    await slots.close();
    down.disconnect();
  }
});

test.runIf(hasRedis)(
  'once Redis answers again, slots are counted there again and the recovery is reported once',
  async () => {
    const redis = new Redis(REDIS_URL, { lazyConnect: true });
    const events: string[] = [];
    const slots = new RedisSlots(
      redis,
      3000,
      () => events.push('degraded'),
      () => events.push('recovered'),
    );
    const key = `answers:recovery-${Date.now()}`;
    try {
      // Not yet connected: counted here.
      const during = await slots.take(key, 5);
      expect(during).not.toBeNull();
      await redis.connect();
      const after = await slots.take(key, 5);
      expect(after).not.toBeNull();
      expect(events).toEqual(['degraded', 'recovered']);
      // Both count on this instance; the slot taken during the outage reaches Redis at the next renewal.
      expect(slots.held(key)).toBe(2);
      await expect.poll(() => redis.zcard(`parley:rt:slots:${key}`), { timeout: 3000 }).toBe(2);
      after!();
      during!();
      await expect.poll(() => redis.zcard(`parley:rt:slots:${key}`)).toBe(0);
      expect(slots.held(key)).toBe(0);
    } finally {
      await slots.close();
      redis.disconnect();
    }
  },
);

test.runIf(hasRedis)(
  'a slot whose lease lapsed while still held (a stall, Redis emptied) is written again by the next renewal; a released one is not',
  async () => {
    const redis = new Redis(REDIS_URL, { lazyConnect: true });
    await redis.connect();
    const slots = new RedisSlots(redis, 600, () => {});
    const key = `answers:revive-${Date.now()}`;
    const full = `parley:rt:slots:${key}`;
    try {
      const kept = await slots.take(key, 5);
      const gone = await slots.take(key, 5);
      expect(await redis.zcard(full)).toBe(2);
      gone!();
      // Redis loses the set (a restart without its data, or both leases lapsed during a stall).
      await redis.del(full);
      await expect.poll(() => redis.zcard(full), { timeout: 2000, interval: 50 }).toBe(1);
      // Several renewals later the released slot is still not back.
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(await redis.zcard(full)).toBe(1);
      kept!();
      await expect.poll(() => redis.zcard(full)).toBe(0);
    } finally {
      await slots.close();
      redis.disconnect();
    }
  },
);
