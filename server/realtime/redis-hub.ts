/**
 * The hub over Redis pub/sub (REDIS_URL), for several server instances behind one address.
 * One connection publishes, one subscribes; each topic is SUBSCRIBEd once per instance however
 * many local sockets listen, and fanned out locally.
 */
import { Redis } from 'ioredis';
import { type HubHandler, type HubMessage, type RealtimeHub, Subscribers } from './hub.js';

const PREFIX = 'parley:rt:';

export class RedisHub implements RealtimeHub {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly subscribers = new Subscribers();
  private closed = false;

  constructor(url: string, private readonly onError: (err: unknown) => void = () => {}) {
    const options = { lazyConnect: false, maxRetriesPerRequest: 3 };
    this.pub = new Redis(url, options);
    this.sub = new Redis(url, options);
    this.pub.on('error', onError);
    this.sub.on('error', onError);
    this.sub.on('message', (channel: string, raw: string) => {
      let message: HubMessage;
      try {
        message = JSON.parse(raw) as HubMessage;
      } catch (err) {
        onError(err);
        return;
      }
      this.subscribers.deliver(channel.slice(PREFIX.length), message, onError);
    });
  }

  /** Resolves once both connections are ready (so a first publish is not lost to a late SUBSCRIBE). */
  async ready(): Promise<void> {
    const wait = (r: Redis) => (r.status === 'ready' ? Promise.resolve() : new Promise<void>((resolve, reject) => {
      r.once('ready', () => resolve());
      r.once('end', () => reject(new Error('Redis connection ended before it was ready')));
    }));
    await Promise.all([wait(this.pub), wait(this.sub)]);
  }

  async publish(topic: string, message: HubMessage): Promise<void> {
    await this.pub.publish(PREFIX + topic, JSON.stringify(message));
  }

  async subscribe(topic: string, handler: HubHandler): Promise<() => void> {
    // A topic already subscribed here may still await its SUBSCRIBE reply; a PING queued after it answers after it.
    if (this.subscribers.add(topic, handler)) await this.sub.subscribe(PREFIX + topic);
    else await this.sub.ping();
    return () => {
      if (this.subscribers.remove(topic, handler) && !this.closed) this.sub.unsubscribe(PREFIX + topic).catch(this.onError);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }
}
