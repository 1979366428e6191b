import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ExtractionError, type ExtractionErrorCode } from '../../domain/knowledge/extraction-error.js';
import { DEFAULT_LIMITS } from '../../domain/knowledge/documents.js';

/** A function to run in a worker: `module` (URL or specifier; .ts works) exports `fn`; args and result are structured-cloned. */
export interface WorkerTask {
  module: string | URL;
  fn: string;
  args?: unknown[];
}

export interface WorkerLimits {
  /** Budget of the task itself (the worker is already started and its modules loaded). */
  timeoutMs?: number;
  /** resourceLimits.maxOldGenerationSizeMb of the worker running the task. */
  maxMemoryMb?: number;
}

interface PoolOptions {
  /** Workers per memory limit. Default: the number of cores, between 2 and 4. */
  size: number;
  /** An idle worker exits after this long. */
  idleMs: number;
  /** A worker is replaced after this many tasks, so nothing a parser leaks accumulates. */
  maxTasksPerWorker: number;
  /** Modules loaded when a worker starts. */
  preload: string[];
  /** Starting a worker (loading tsx and the parsers) must finish within this. */
  bootTimeoutMs: number;
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);
const TASKS = new URL('./worker-tasks.ts', import.meta.url).href;
const CODES: ExtractionErrorCode[] = ['UNSUPPORTED', 'TIMEOUT', 'TOO_LARGE', 'MALFORMED'];

let options: PoolOptions = {
  size: Math.min(4, Math.max(2, availableParallelism())),
  idleMs: 30_000,
  // Starting a worker is costly (tsx and the parsers), and a worker's heap does not grow with
  // its tasks (bench/README.md, knowledge): retire one only after many.
  maxTasksPerWorker: 1000,
  preload: [TASKS],
  bootTimeoutMs: 60_000,
};

interface Job {
  id: number;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

class PooledWorker {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  job: Job | null = null;
  tasks = 0;
  dead = false;
  idleTimer?: NodeJS.Timeout;

  constructor(
    readonly pool: Pool,
    memoryMb: number,
  ) {
    this.worker = new Worker(ENTRY, {
      workerData: { preload: options.preload },
      resourceLimits: {
        maxOldGenerationSizeMb: memoryMb,
        maxYoungGenerationSizeMb: Math.min(32, Math.max(4, memoryMb / 8)),
        stackSizeMb: 4,
      },
      // Worker console output is not ours to print (pdf.js warns about every odd file).
      stdout: true,
      stderr: true,
    });
    this.worker.stdout.resume();
    this.worker.stderr.resume();
    this.ready = new Promise<void>((resolve, reject) => {
      const boot = setTimeout(() => {
        reject(new Error('The extraction worker did not start in time'));
        this.kill();
      }, options.bootTimeoutMs);
      boot.unref();
      this.worker.once('message', (m: { ready: boolean; error?: { message: string } }) => {
        clearTimeout(boot);
        if (m.ready) resolve();
        else {
          reject(new Error(`The extraction worker could not load its parsers: ${m.error?.message}`));
          this.kill();
        }
      });
      this.worker.once('exit', () => {
        clearTimeout(boot);
        reject(new Error('The extraction worker exited while starting'));
      });
    });
    this.ready.catch(() => undefined);
    this.worker.on('message', (m: { id?: number; ok?: boolean; value?: unknown; error?: SerialisedError }) => {
      const job = this.job;
      if (m.id === undefined || !job || job.id !== m.id) return;
      this.finish();
      if (m.ok) job.resolve(m.value);
      else job.reject(toExtractionError(m.error));
    });
    this.worker.on('error', (error: Error & { code?: string }) => {
      const job = this.job;
      this.dead = true;
      this.finish();
      if (!job) return;
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        job.reject(
          new ExtractionError('TOO_LARGE', 'Reading the file needed more memory than allowed', { cause: error }),
        );
      } else
        job.reject(new ExtractionError('MALFORMED', `The file crashed its parser: ${error.message}`, { cause: error }));
    });
    this.worker.on('exit', () => {
      this.dead = true;
      const job = this.job;
      this.finish();
      job?.reject(new ExtractionError('MALFORMED', 'The parser stopped before finishing the file'));
      this.pool.forget(this);
    });
  }

  run(task: WorkerTask, id: number, timeoutMs: number): Promise<unknown> {
    clearTimeout(this.idleTimer);
    this.worker.ref();
    this.tasks++;
    return new Promise((resolve, reject) => {
      const job: Job = { id, resolve, reject };
      job.timer = setTimeout(() => {
        if (this.job !== job) return;
        // terminate() stops the isolate even inside a synchronous loop; the worker is not reused.
        this.job = null;
        this.kill();
        reject(
          new ExtractionError('TIMEOUT', `Reading the file took longer than ${timeoutMs} ms; the parser was stopped`),
        );
      }, timeoutMs);
      this.job = job;
      this.worker.postMessage({ id, module: String(task.module), fn: task.fn, args: task.args ?? [] });
    });
  }

  /** Ends the current job's bookkeeping and hands the worker back (or retires it). */
  private finish() {
    const job = this.job;
    if (!job) return;
    clearTimeout(job.timer);
    this.job = null;
    if (this.dead) return;
    if (this.tasks >= options.maxTasksPerWorker) {
      this.kill();
      return;
    }
    // Idle workers must not keep the process alive.
    this.worker.unref();
    this.idleTimer = setTimeout(() => this.kill(), options.idleMs);
    this.idleTimer.unref();
    queueMicrotask(() => this.pool.release(this));
  }

  kill() {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.idleTimer);
    this.pool.forget(this);
    void this.worker.terminate();
  }
}

interface SerialisedError {
  name: string;
  code?: string;
  message: string;
  hint?: string;
}

function toExtractionError(e: SerialisedError | undefined): ExtractionError {
  const code = CODES.find((c) => c === e?.code) ?? 'MALFORMED';
  return new ExtractionError(code, e?.message ?? 'The parser failed', e?.hint ? { hint: e.hint } : {});
}

/** Workers sharing one memory limit (resourceLimits are fixed when a worker starts). */
class Pool {
  private readonly workers = new Set<PooledWorker>();
  private readonly idle: PooledWorker[] = [];
  private readonly waiting: ((w: PooledWorker) => void)[] = [];

  constructor(private readonly memoryMb: number) {}

  acquire(): Promise<PooledWorker> {
    while (this.idle.length) {
      const w = this.idle.pop()!;
      if (!w.dead) return Promise.resolve(w);
    }
    if (this.workers.size < options.size) {
      const w = new PooledWorker(this, this.memoryMb);
      this.workers.add(w);
      return Promise.resolve(w);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(w: PooledWorker) {
    if (w.dead || w.job) return;
    const next = this.waiting.shift();
    if (next) next(w);
    else this.idle.push(w);
  }

  /** A worker is gone: a waiting task gets a fresh one. */
  forget(w: PooledWorker) {
    this.workers.delete(w);
    const i = this.idle.indexOf(w);
    if (i !== -1) this.idle.splice(i, 1);
    if (this.waiting.length && this.workers.size < options.size) {
      const fresh = new PooledWorker(this, this.memoryMb);
      this.workers.add(fresh);
      this.waiting.shift()!(fresh);
    }
  }

  async close() {
    const all = [...this.workers];
    this.workers.clear();
    this.idle.length = 0;
    await Promise.all(all.map((w) => ((w.dead = true), w.worker.terminate())));
  }

  get count() {
    return this.workers.size;
  }
}

const pools = new Map<number, Pool>();
let nextId = 1;

/**
 * Runs `task` in a pooled worker thread with a V8 heap limit and a time limit. At the time
 * limit the worker is terminated (whatever it is doing, even a synchronous loop) and the
 * promise rejects with ExtractionError TIMEOUT; running out of heap rejects with TOO_LARGE; a
 * crash or an error thrown by the task rejects with MALFORMED (or the code the task threw).
 * The calling thread never runs the task's code, so it stays responsive.
 */
export async function runInWorker<T = unknown>(task: WorkerTask, limits: WorkerLimits = {}): Promise<T> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_LIMITS.timeoutMs;
  // Below ~32 MB the parsers cannot even load.
  const memoryMb = Math.max(32, Math.round(limits.maxMemoryMb ?? DEFAULT_LIMITS.maxMemoryMb));
  let pool = pools.get(memoryMb);
  if (!pool) pools.set(memoryMb, (pool = new Pool(memoryMb)));
  for (;;) {
    const worker = await pool.acquire();
    try {
      await worker.ready;
    } catch (e) {
      pool.forget(worker);
      throw e;
    }
    // It may have been retired between acquire and ready; take another.
    if (worker.dead) continue;
    return (await worker.run(task, nextId++, timeoutMs)) as T;
  }
}

/** Tunes the pool (tests, the server's config); affects workers started afterwards. */
export function configureExtractionWorkers(changes: Partial<PoolOptions>) {
  options = { ...options, ...changes };
}

/** Stops every extraction worker (graceful shutdown, tests). */
export async function closeExtractionWorkers() {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close()));
}

/** Live worker count (tests). */
export function extractionWorkerCount(): number {
  let n = 0;
  for (const p of pools.values()) n += p.count;
  return n;
}
