/**
 * The account's message meter, written right after each change commits rather than inside it.
 * The meter is one row per account and month that every message of the account updates: inside
 * the message's transaction its row lock made all of an account's conversations commit one after
 * another (on PostgreSQL, across every instance: bench/README.md, fleet). Counts are coalesced:
 * one write at a time per process, carrying whatever was added while the previous one ran. A
 * process killed between a commit and its write loses that count (the meter informs; no limit is
 * enforced on it).
 */
import { currentPeriod, METERS } from '../billing.service.js';
import type { Store } from '../ports.js';

export class MessageMeter {
  private pending = new Map<string, { accountId: string; period: string; n: number }>();
  private writing: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly onError?: (err: unknown, context: Record<string, unknown>) => void,
  ) {}

  add(accountId: string, n: number) {
    const period = currentPeriod().key;
    const key = `${accountId}\n${period}`;
    const entry = this.pending.get(key);
    if (entry) entry.n += n;
    else this.pending.set(key, { accountId, period, n });
    this.writing ??= this.write();
  }

  /** Resolves once every count added so far is written (a reader in this process sees its own messages). */
  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async write() {
    try {
      while (this.pending.size) {
        const batch = [...this.pending.values()];
        this.pending = new Map();
        for (const { accountId, period, n } of batch)
          await this.store.usage
            .add(accountId, METERS.messages, period, n)
            .catch((err: unknown) => this.onError?.(err, { accountId, meter: METERS.messages, lost: n }));
      }
    } finally {
      this.writing = null;
    }
  }
}
