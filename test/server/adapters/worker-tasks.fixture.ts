/** Tasks for runInWorker tests; loaded inside the worker (through tsx, as the real parsers are). */
export function echo(value: unknown): { echoed: unknown; typed: string } {
  const typed: string = typeof value; // a type annotation: proves this file was compiled as TypeScript
  return { echoed: value, typed };
}

/** A synchronous loop that never yields: only terminating the worker stops it. */
export function spinForever(): never {
  let n = 0;
  for (;;) n = (n + 1) % 1_000_000;
}

/** Allocates until the heap limit is reached. */
export function allocateForever(): number {
  const hoard: number[][] = [];
  for (;;) hoard.push(new Array(100_000).fill(hoard.length));
}

export function failWith(code: string, message: string): never {
  throw Object.assign(new Error(message), { code });
}

export function crash(): never {
  // An exception thrown outside the task's promise: the worker's uncaught-exception path.
  setTimeout(() => {
    throw new Error('boom outside the task');
  }, 0);
  return new Promise<never>(() => undefined) as never;
}
