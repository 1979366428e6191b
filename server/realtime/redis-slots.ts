/**
 * Slots counted across instances (REDIS_URL): a sorted set per key whose members are the slots
 * held, scored by when their lease lapses. Taking one trims lapsed members, counts and adds in
 * one script (no two instances both see room for the last slot); the holder renews its leases
 * every third of `leaseMs` and removes a slot on release, so a crashed instance's slots lapse
 * by themselves after `leaseMs`. Scores use Redis's clock, so instances' clocks need not agree.
 *
 * Redis unreachable (not connected, an error, or no answer within `timeoutMs`): the slot is counted against
 * this instance's own holdings with the same maximum — limits stay per instance rather than
 * refusing every visitor or admitting without bound — and `onDegraded` fires once per outage.
 *
 * A renewal writes every slot this instance still holds, lapsed or never written: a slot taken
 * during an outage, or whose lease lapsed while the process stalled (or Redis restarted empty),
 * counts across instances again from the next renewal. A release cannot be undone by it: the
 * release leaves the held set first, and its ZREM follows any renewal already sent on the same
 * connection.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LocalSlots, type Release, type Slots } from './slots.js';

const PREFIX = 'parley:rt:slots:';

const NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";

/** KEYS[1] the set; ARGV max, leaseMs, member. 1 when taken, 0 when full. */
const TAKE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** KEYS[1] the set; ARGV leaseMs, member. Extends the lease of a slot still held (writes it again if it lapsed). */
const RENEW = `${NOW}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

interface SlotScripts {
  parleyTakeSlot(key: string, max: number, leaseMs: number, member: string): Promise<number>;
  parleyRenewSlot(key: string, leaseMs: number, member: string): Promise<number>;
}

export class RedisSlots implements Slots {
  private readonly local = new LocalSlots();
  private readonly instance = randomUUID();
  /** Slots held by this instance (in Redis, or taken during an outage and written at the next renewal): member -> key. */
  private readonly leases = new Map<string, string>();
  private readonly renewal: NodeJS.Timeout;
  private next = 0;
  private degraded = false;

  constructor(
    private readonly redis: Redis,
    readonly leaseMs: number,
    private readonly onDegraded: (err: unknown) => void,
    private readonly onRecovered: () => void = () => {},
    private readonly timeoutMs = Math.min(1000, Math.floor(leaseMs / 3)),
  ) {
    if (!('parleyTakeSlot' in redis)) {
      redis.defineCommand('parleyTakeSlot', { numberOfKeys: 1, lua: TAKE });
      redis.defineCommand('parleyRenewSlot', { numberOfKeys: 1, lua: RENEW });
    }
    this.renewal = setInterval(() => this.renew(), Math.max(10, Math.floor(leaseMs / 3)));
    this.renewal.unref();
  }

  private get scripts() {
    return this.redis as unknown as SlotScripts;
  }

  held(key: string) {
    return this.local.held(key);
  }

  async take(key: string, max: number): Promise<Release | null> {
    // Not connected (Redis down, reconnecting): no wait for a command that would queue and fail.
    if (this.redis.status !== 'ready')
      return this.fallback(key, max, new Error(`Redis connection is ${this.redis.status}`));
    const member = `${this.instance}:${++this.next}`;
    const full = PREFIX + key;
    const asked = this.scripts.parleyTakeSlot(full, max, this.leaseMs, member);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.timeoutMs)));
    let taken: number | 'late';
    try {
      taken = await Promise.race([asked, late]);
    } catch (err) {
      return this.fallback(key, max, err);
    } finally {
      clearTimeout(timer);
    }
    if (taken === 'late') {
      // Should Redis take it after all, the slot is given back rather than left to its lease.
      asked.then((n) => (n === 1 ? this.redis.zrem(full, member) : 0)).catch(() => {});
      return this.fallback(key, max, new Error(`Redis did not answer within ${this.timeoutMs} ms`));
    }
    if (this.degraded) {
      this.degraded = false;
      this.onRecovered();
    }
    if (taken !== 1) return null;
    return this.keep(member, full, this.local.hold(key));
  }

  /** A slot this instance holds: renewed until released; the release removes it from Redis. */
  private keep(member: string, full: string, releaseLocal: Release): Release {
    this.leases.set(member, full);
    return () => {
      if (!this.leases.delete(member)) return;
      releaseLocal();
      this.redis.zrem(full, member).catch((err) => this.notice(err));
    };
  }

  private fallback(key: string, max: number, err: unknown): Release | null {
    this.notice(err);
    const releaseLocal = this.local.takeNow(key, max);
    return releaseLocal && this.keep(`${this.instance}:${++this.next}`, PREFIX + key, releaseLocal);
  }

  private notice(err: unknown) {
    if (this.degraded) return;
    this.degraded = true;
    this.onDegraded(err);
  }

  private renew() {
    if (!this.leases.size) return;
    const batch = this.redis.pipeline() as unknown as SlotScripts & { exec(): Promise<unknown> };
    for (const [member, key] of this.leases) batch.parleyRenewSlot(key, this.leaseMs, member);
    batch.exec().catch((err) => this.notice(err));
  }

  /** Gives back every slot held here (a clean shutdown); a crash leaves them to their leases. */
  async close() {
    clearInterval(this.renewal);
    if (!this.leases.size) return;
    const batch = this.redis.pipeline();
    for (const [member, key] of this.leases) batch.zrem(key, member);
    this.leases.clear();
    await batch.exec().catch(() => {});
  }

  /** Stops renewing without giving anything back: what a crash looks like to the others (tests). */
  abandon() {
    clearInterval(this.renewal);
    this.leases.clear();
  }
}
