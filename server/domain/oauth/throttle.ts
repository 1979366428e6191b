/** A fixed window of counted failures per key (wrong passwords per e-mail, wrong codes per user). */
import type { OAuthStore } from './ports.js';

/** No window is longer than this; older windows are forgotten. */
const DAY_MS = 24 * 3600_000;

export class Throttle {
  constructor(
    private readonly store: OAuthStore['throttle'],
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Seconds until `key` may try again; 0 when it may now. */
  async wait(key: string): Promise<number> {
    const row = await this.store.get(key);
    if (!row || row.failures < this.limit) return 0;
    const ends = Date.parse(row.windowStartedAt) + this.windowMs;
    return Math.max(0, Math.ceil((ends - this.now()) / 1000));
  }

  async fail(key: string): Promise<void> {
    await this.count(key);
  }

  /**
   * Counts an attempt before it is checked (the check clears the key when it succeeds): seconds
   * until `key` may try again, 0 when this attempt may go on. Concurrent attempts each get their
   * own count, so a burst is held to the limit exactly as attempts one after another are.
   */
  async attempt(key: string): Promise<number> {
    const at = this.now();
    const counted = await this.count(key);
    if (counted.failures <= this.limit) return 0;
    return Math.max(1, Math.ceil((Date.parse(counted.windowStartedAt) + this.windowMs - at) / 1000));
  }

  private async count(key: string) {
    const at = this.now();
    // Keys are e-mails anyone may type: old windows are dropped so the table stays small.
    await this.store.purge(new Date(at - DAY_MS).toISOString());
    return this.store.fail(key, new Date(at).toISOString(), new Date(at - this.windowMs).toISOString());
  }

  clear(key: string): Promise<void> {
    return this.store.clear(key);
  }
}
