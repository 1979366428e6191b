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
    const at = this.now();
    // Keys are e-mails anyone may type: old windows are dropped so the table stays small.
    await this.store.purge(new Date(at - DAY_MS).toISOString());
    await this.store.fail(key, new Date(at).toISOString(), new Date(at - this.windowMs).toISOString());
  }

  clear(key: string): Promise<void> {
    return this.store.clear(key);
  }
}
