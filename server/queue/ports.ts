/**
 * What the embedded queue needs from storage: the `jobs` table's reads and conditional writes.
 * storage/jobs.repository.ts implements it for both dialects; the queue holds no SQL.
 */

/** A claimed job as the worker runs it. */
export interface ClaimedJob {
  id: string;
  name: string;
  payload: string;
  attempts: number;
  max_attempts: number;
}

export interface NewJob {
  id: string;
  name: string;
  payload: string;
  maxAttempts: number;
  runAt: string;
  createdAt: string;
  accountId: string | null;
  chatbotId: string | null;
}

/** The outcome a worker writes while it still holds the job. */
export type JobOutcome = Partial<{
  status: string;
  finished_at: string;
  lease_until: string | null;
  last_error: string | null;
  run_at: string;
  attempts: number;
}>;

export interface JobsStore {
  insert(job: NewJob): Promise<void>;
  /** Jobs of these names still queued or running. */
  unfinished(names: string[]): Promise<number>;
  /** Accounts with jobs of these names due at `now` (queued and due, or running on an expired lease), each with its longest wait. */
  waitingAccounts(names: string[], now: string): Promise<{ account_id: string | null; first: string }[]>;
  /** Jobs running under a live lease at `now`, on any instance, per account and chatbot. */
  running(now: string): Promise<{ account_id: string | null; chatbot_id: string | null; n: number }[]>;
  /** The account's oldest due jobs of these names. */
  dueOf(
    names: string[],
    accountId: string | null,
    now: string,
    limit: number,
  ): Promise<{ id: string; chatbot_id: string | null }[]>;
  /**
   * Compare-and-set: turns the due row into this worker's running row, only while its account
   * and chatbot are under their limits; null when another worker got there first. Claims take
   * turns across instances (dialects/: PostgreSQL's advisory lock; SQLite has one writer).
   */
  claim(claim: {
    id: string;
    accountId: string | null;
    chatbotId: string | null;
    now: string;
    leaseUntil: string;
    workerId: string;
    accountLimit: number;
    chatbotLimit: number;
  }): Promise<ClaimedJob | null>;
  /** What waits and runs now, all names together (the metrics' queue depth and lag). */
  backlog(now: string): Promise<{ due: number; running: number; oldestDue: string | null }>;
  /** Extends the lease while this worker holds the job. */
  extendLease(id: string, workerId: string, until: string): Promise<void>;
  /** Writes the outcome only while this worker still holds the job (a lost lease loses the write). */
  finish(id: string, workerId: string, values: JobOutcome): Promise<void>;
}
