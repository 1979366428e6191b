/**
 * Group commit for SQLite's one writer: transactions asked for while one is being written wait
 * and then run together in the next transaction, each inside its own savepoint, so one COMMIT
 * (the costly part of a small write: the WAL append, the checkpoints it brings) serves them
 * all. Each keeps its own all-or-nothing: one that throws is rolled back to its savepoint and
 * the others commit. Every caller hears its outcome only after the COMMIT, so a result handed
 * on (an ack to a visitor) is never one a crash could still undo, and a caller whose write was
 * refused (a unique index, a compare-and-set) reads the others' committed rows when it retries.
 * They run one after another, in arrival order: later ones see earlier ones' rows, exactly as
 * if each had committed alone. With nothing else waiting, a transaction runs at once, alone.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../../tables.js';
import { withGroupWriter, writerOf } from './writer.js';

interface Waiting {
  fn: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Transactions per COMMIT at most: bounds how long the first of a batch waits for the last. */
const MAX_BATCH = 256;

export class GroupCommit {
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(private readonly db: Kysely<Database>) {}

  run<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain() {
    this.writing = true;
    try {
      while (this.waiting.length) {
        // better-sqlite3 is synchronous: a transaction would end before the event loop reads the
        // next socket, and none would ever share a COMMIT. One turn of the loop lets the requests
        // that have arrived meanwhile join (a turn, not a timer: no wait when nothing else came).
        await new Promise((resolve) => setImmediate(resolve));
        await this.write(this.waiting.splice(0, MAX_BATCH));
      }
    } finally {
      this.writing = false;
    }
  }

  private async write(batch: Waiting[]) {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = [];
    try {
      // These commits are acknowledged to someone (a visitor's message): FULL syncs the WAL at
      // COMMIT, so they survive a power loss too, not only a crash of the process (NORMAL, the
      // connection's setting for everything else). One fsync serves the whole batch.
      await sql`pragma synchronous = FULL`.execute(this.db);
      await this.db.transaction().execute(async (trx) => {
        const writer = writerOf(this.db);
        const run = writer
          ? (text: string) => void writer.prepare(text).run()
          : (text: string) => sql.raw(text).execute(trx);
        const all = async () => {
          if (batch.length === 1) {
            // Alone: the transaction itself is its all-or-nothing (a throw rolls it back).
            outcomes.push({ ok: true, value: await batch[0].fn(trx) });
            return;
          }
          for (const w of batch) {
            await run('savepoint parley_group');
            try {
              const value = await w.fn(trx);
              await run('release parley_group');
              outcomes.push({ ok: true, value });
            } catch (err) {
              // An error that ended the whole transaction (I/O, disk full) makes this throw: all fail below.
              await run('rollback to parley_group');
              await run('release parley_group');
              outcomes.push({ ok: false, err });
            }
          }
        };
        // The transaction holds kysely's one connection: its statements may go straight to SQLite.
        await (writer ? withGroupWriter(trx, writer, all) : all());
      });
    } catch (err) {
      await this.normal();
      // Nothing of this batch committed: every caller hears the failure (a lone one its own error).
      for (const w of batch) w.reject(err);
      return;
    }
    await this.normal();
    batch.forEach((w, i) => {
      const o = outcomes[i];
      if (o.ok) w.resolve(o.value);
      else w.reject(o.err);
    });
  }

  private async normal() {
    await sql`pragma synchronous = NORMAL`.execute(this.db).catch(() => undefined);
  }
}
