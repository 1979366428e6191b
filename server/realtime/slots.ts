/**
 * Counted slots (answers per chatbot, sockets per IP and per visitor): at most `max` held under a
 * key at once. In one process by default; across instances with Redis (redis-slots.ts).
 */

/** Gives the slot back; calling it again does nothing. */
export type Release = () => void;

export interface Slots {
  /** Takes one of `max` slots under `key`: its release, or null when all are taken. */
  take(key: string, max: number): Promise<Release | null>;
  /** Slots held under `key` by this instance. */
  held(key: string): number;
  close(): Promise<void>;
}

/** Slots counted in this process. `takeNow` is the synchronous form (also the Redis fallback). */
export class LocalSlots implements Slots {
  private readonly counts = new Map<string, number>();

  held(key: string) {
    return this.counts.get(key) ?? 0;
  }

  takeNow(key: string, max: number): Release | null {
    if (this.held(key) >= max) return null;
    return this.hold(key);
  }

  /** Counts one more under `key` whatever the maximum (a slot granted elsewhere). */
  hold(key: string): Release {
    this.counts.set(key, this.held(key) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.held(key) - 1;
      if (left > 0) this.counts.set(key, left);
      else this.counts.delete(key);
    };
  }

  async take(key: string, max: number) {
    return this.takeNow(key, max);
  }

  async close() {}
}
