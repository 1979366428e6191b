/**
 * Politeness per origin: consecutive requests to one origin start at least `delay` apart,
 * where delay is the larger of robots.txt's Crawl-delay and the configured minimum. Each call
 * reserves the next slot before sleeping, so concurrent workers of one process queue up
 * instead of bursting. Pacing is per process: workers in other processes pace on their own.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface HostPacerOptions {
  /** Floor for every origin, whatever robots.txt says. Default 0 (tests); production sets a few hundred ms. */
  minDelayMs?: number;
  now?: () => number;
}

export class HostPacer {
  private readonly next = new Map<string, number>();
  private readonly minDelayMs: number;
  private readonly now: () => number;

  constructor(opts: HostPacerOptions = {}) {
    this.minDelayMs = Math.max(0, opts.minDelayMs ?? 0);
    this.now = opts.now ?? Date.now;
  }

  /** Resolves when a request to `origin` may start; rejects with the signal's reason if aborted while waiting. */
  async wait(origin: string, delayMs: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const delay = Math.max(this.minDelayMs, Number.isFinite(delayMs) ? delayMs : 0);
    const now = this.now();
    const slot = Math.max(now, this.next.get(origin) ?? 0);
    this.next.set(origin, slot + delay);
    this.prune(now);
    if (slot <= now) return;
    try {
      await sleep(slot - now, undefined, { signal });
    } catch (err) {
      // timers/promises rejects with a generic AbortError; the caller wants its own reason back.
      throw signal?.aborted ? signal.reason : err;
    }
  }

  /** Forgets origins whose slot has passed, so a long-lived pacer does not grow without bound. */
  private prune(now: number): void {
    if (this.next.size < 1000) return;
    for (const [origin, at] of this.next) if (at <= now) this.next.delete(origin);
  }
}
