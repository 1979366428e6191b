/**
 * The hub over Redis pub/sub (REDIS_URL), for several server instances behind one address.
 * One connection publishes, one subscribes; each topic is SUBSCRIBEd once per instance however
 * many local sockets listen, and fanned out locally.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  type AnyHubMessage,
  type HubHandler,
  type HubMessage,
  LocalPresence,
  type Presence,
  type RealtimeHub,
  Subscribers,
} from './hub.js';

const PREFIX = 'parley:rt:';

/**
 * Presence shared by the instances: a sorted set per visitor whose members are the instances
 * holding a connection of theirs, scored by when that claim lapses. Each instance renews its
 * claims every third of `ttlMs` and removes one when its last connection of the visitor ends;
 * the claims of an instance that died lapse by themselves after `ttlMs`.
 */
export class RedisPresence implements Presence {
  private readonly local = new LocalPresence();
  private readonly instance = randomUUID();
  private readonly renewal: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly onError: (err: unknown) => void,
    private readonly ttlMs = 60_000,
  ) {
    this.renewal = setInterval(() => this.renew(), Math.floor(ttlMs / 3));
    this.renewal.unref();
  }

  private key = (chatUserId: string) => `${PREFIX}presence:${chatUserId}`;

  set(chatUserId: string, here: boolean) {
    this.local.set(chatUserId, here);
    const key = this.key(chatUserId);
    const write = here
      ? this.redis
          .multi()
          .zadd(key, Date.now() + this.ttlMs, this.instance)
          .pexpire(key, this.ttlMs)
          .exec()
      : this.redis.zrem(key, this.instance);
    write.catch(this.onError);
  }

  async present(chatUserId: string) {
    if (this.local.here.has(chatUserId)) return true;
    return (await this.redis.zcount(this.key(chatUserId), Date.now(), '+inf')) > 0;
  }

  private renew() {
    if (!this.local.here.size) return;
    const until = Date.now() + this.ttlMs;
    const batch = this.redis.multi();
    for (const id of this.local.here) batch.zadd(this.key(id), until, this.instance).pexpire(this.key(id), this.ttlMs);
    batch.exec().catch(this.onError);
  }

  /** Withdraws this instance's claims (a clean shutdown). */
  async close() {
    clearInterval(this.renewal);
    const batch = this.redis.multi();
    for (const id of this.local.here) batch.zrem(this.key(id), this.instance);
    if (this.local.here.size) await batch.exec().catch(this.onError);
  }
}

export class RedisHub implements RealtimeHub {
  private readonly pub: Redis;
  private readonly sub: Redis;
  /**
   * The public routes' rate limits, on a connection of their own: a count Redis has not answered
   * within `limitsTimeoutMs` (or cannot take, disconnected) fails, and the request goes through
   * rather than wait for Redis. Not the slots' connection: they need their late replies (redis-slots.ts).
   */
  private readonly limits: Redis;
  private readonly subscribers = new Subscribers();
  readonly presence: RedisPresence;
  private closed = false;

  constructor(
    url: string,
    private readonly onError: (err: unknown) => void = () => {},
    presenceTtlMs?: number,
    limitsTimeoutMs = 1000,
  ) {
    const options = { lazyConnect: false, maxRetriesPerRequest: 3 };
    this.pub = new Redis(url, options);
    this.sub = new Redis(url, options);
    this.limits = new Redis(url, {
      lazyConnect: false,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      commandTimeout: limitsTimeoutMs,
    });
    this.limits.on('error', onError);
    this.presence = new RedisPresence(this.pub, onError, presenceTtlMs);
    this.pub.on('error', onError);
    this.sub.on('error', onError);
    this.sub.on('message', (channel: string, raw: string) => {
      let message: AnyHubMessage;
      try {
        message = JSON.parse(raw) as AnyHubMessage;
      } catch (err) {
        onError(err);
        return;
      }
      this.subscribers.deliver(channel.slice(PREFIX.length), message, onError);
    });
  }

  readonly redis = {
    states: () => ({ command: this.pub.status, subscriber: this.sub.status }),
    ping: async (timeoutMs: number) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Redis did not answer PING within ${timeoutMs} ms`)), timeoutMs);
      });
      const ping = this.pub.ping();
      ping.catch(() => undefined); // a reply after the deadline is dropped, not an unhandled rejection
      try {
        await Promise.race([ping, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };

  /** The command connection, for other shared counters (the realtime slots). */
  get connection(): Redis {
    return this.pub;
  }

  /** The connection of the public routes' rate limits (@fastify/rate-limit with skipOnError). */
  get limitsConnection(): Redis {
    return this.limits;
  }

  /** Resolves once its connections are ready (so a first publish is not lost to a late SUBSCRIBE). */
  async ready(): Promise<void> {
    const wait = (r: Redis) =>
      r.status === 'ready'
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            r.once('ready', () => resolve());
            r.once('end', () => reject(new Error('Redis connection ended before it was ready')));
          });
    await Promise.all([wait(this.pub), wait(this.sub), wait(this.limits)]);
  }

  async publish(topic: string, message: AnyHubMessage): Promise<void> {
    await this.pub.publish(PREFIX + topic, JSON.stringify(message));
  }

  async subscribe<M extends AnyHubMessage = HubMessage>(
    topic: string,
    typed: (message: M) => void,
  ): Promise<() => void> {
    const handler = typed as HubHandler;
    // A topic already subscribed here may still await its SUBSCRIBE reply; a PING queued after it answers after it.
    if (this.subscribers.add(topic, handler)) await this.sub.subscribe(PREFIX + topic);
    else await this.sub.ping();
    return () => {
      if (this.subscribers.remove(topic, handler) && !this.closed)
        this.sub.unsubscribe(PREFIX + topic).catch(this.onError);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.presence.close();
    await Promise.allSettled([this.pub.quit(), this.sub.quit(), this.limits.quit()]);
  }
}
