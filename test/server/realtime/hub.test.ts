/**
 * One suite for every realtime hub: the in-process default and Redis pub/sub (two hubs on one
 * Redis stand for two server instances).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type HubMessage, InProcessHub, type RealtimeHub } from '../../../server/realtime/hub.js';
import { RedisHub } from '../../../server/realtime/redis-hub.js';
import { REDIS_URL, redisAvailable } from '../../helpers/redis.js';

const hasRedis = await redisAvailable();

interface Pair {
  /** Where a message is published. */
  a: RealtimeHub;
  /** Another instance (for the in-process hub, the same one). */
  b: RealtimeHub;
  close(): Promise<void>;
}

const implementations: Array<[string, () => Promise<Pair>, boolean]> = [
  [
    'in-process',
    async () => {
      const hub = new InProcessHub();
      return { a: hub, b: hub, close: () => hub.close() };
    },
    true,
  ],
  [
    'Redis',
    async () => {
      const a = new RedisHub(REDIS_URL);
      const b = new RedisHub(REDIS_URL);
      await Promise.all([a.ready(), b.ready()]);
      return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
    },
    hasRedis,
  ],
];

const msg = (n: number): HubMessage => ({
  kind: 'committed',
  conversationId: 'c',
  chatbotId: 'b',
  chatUserId: 'u',
  seq: n,
  types: ['message.added'],
});

/** Waits until `list` has `n` items (messages travel through Redis asynchronously). */
async function until(list: unknown[], n: number) {
  await expect.poll(() => list.length, { timeout: 5000, interval: 5 }).toBe(n);
}

describe.each(implementations)('%s hub', (_name, make, available) => {
  let pair: Pair;
  beforeAll(async () => {
    if (available) pair = await make();
  });
  afterAll(async () => {
    if (available) await pair.close();
  });

  test.runIf(available)(
    'a subscriber of the topic receives what is published after it subscribed, in order',
    async () => {
      const topic = `t-${randomUUID()}`;
      const got: HubMessage[] = [];
      const off = await pair.b.subscribe(topic, (m) => got.push(m));
      for (let i = 1; i <= 20; i++) await pair.a.publish(topic, msg(i));
      await until(got, 20);
      expect(got.map((m) => (m as { seq: number }).seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      off();
    },
  );

  test.runIf(available)(
    'other topics are not delivered; every subscriber of a topic gets each message once',
    async () => {
      const topic = `t-${randomUUID()}`;
      const first: HubMessage[] = [];
      const second: HubMessage[] = [];
      const other: HubMessage[] = [];
      const off1 = await pair.b.subscribe(topic, (m) => first.push(m));
      const off2 = await pair.b.subscribe(topic, (m) => second.push(m));
      const off3 = await pair.b.subscribe(`${topic}-other`, (m) => other.push(m));
      await pair.a.publish(topic, msg(1));
      await until(first, 1);
      await until(second, 1);
      await pair.a.publish(`${topic}-other`, msg(2));
      await until(other, 1);
      expect(first).toHaveLength(1);
      expect(other.map((m) => (m as { seq: number }).seq)).toEqual([2]);
      off1();
      off2();
      off3();
    },
  );

  test.runIf(available)('after unsubscribing nothing more arrives; the other subscriber still gets it', async () => {
    const topic = `t-${randomUUID()}`;
    const stays: HubMessage[] = [];
    const leaves: HubMessage[] = [];
    const offStays = await pair.b.subscribe(topic, (m) => stays.push(m));
    const offLeaves = await pair.b.subscribe(topic, (m) => leaves.push(m));
    offLeaves();
    await pair.a.publish(topic, msg(1));
    await until(stays, 1);
    expect(leaves).toHaveLength(0);
    offStays();
    await pair.a.publish(topic, msg(2));
    // A marker on another topic proves the earlier message had its chance to arrive.
    const marker: HubMessage[] = [];
    const offMarker = await pair.b.subscribe(`${topic}-m`, (m) => marker.push(m));
    await pair.a.publish(`${topic}-m`, msg(3));
    await until(marker, 1);
    expect(stays).toHaveLength(1);
    offMarker();
  });

  test.runIf(available)('a subscriber that throws does not keep the message from the others', async () => {
    const topic = `t-${randomUUID()}`;
    const got: HubMessage[] = [];
    const off1 = await pair.b.subscribe(topic, () => {
      throw new Error('subscriber failed');
    });
    const off2 = await pair.b.subscribe(topic, (m) => got.push(m));
    await pair.a.publish(topic, msg(1));
    await until(got, 1);
    off1();
    off2();
  });

  test.runIf(available)(
    'presence: a visitor held by one instance is present for every instance until that instance lets go',
    async () => {
      const visitor = randomUUID();
      expect(await pair.b.presence.present(visitor)).toBe(false);
      pair.a.presence.set(visitor, true);
      await expect.poll(() => pair.b.presence.present(visitor)).toBe(true);
      expect(await pair.a.presence.present(visitor)).toBe(true);
      pair.a.presence.set(visitor, false);
      await expect.poll(() => pair.b.presence.present(visitor)).toBe(false);
    },
  );
});

test.runIf(hasRedis)(
  "presence: the claims of an instance that died lapse by themselves; a live instance's are renewed",
  async () => {
    const dead = new RedisHub(REDIS_URL, () => {}, 300);
    const live = new RedisHub(REDIS_URL, () => {}, 300);
    const other = new RedisHub(REDIS_URL);
    await Promise.all([dead.ready(), live.ready(), other.ready()]);
    try {
      const [gone, staying] = [randomUUID(), randomUUID()];
      dead.presence.set(gone, true);
      live.presence.set(staying, true);
      await expect.poll(() => other.presence.present(gone)).toBe(true);
      // A process killed mid-flight renews nothing and withdraws nothing: its connections just stop.
      await (dead as unknown as { pub: { disconnect(): void } }).pub.disconnect();
      await (dead as unknown as { sub: { disconnect(): void } }).sub.disconnect();
      await expect.poll(() => other.presence.present(gone), { timeout: 5000 }).toBe(false);
      // Several lapse periods later the live instance's visitor is still present.
      await new Promise((r) => setTimeout(r, 1000));
      expect(await other.presence.present(staying)).toBe(true);
    } finally {
      await Promise.allSettled([dead.close(), live.close(), other.close()]);
    }
  },
);
