/**
 * One suite per dialect: `describeOnDialects('conversation store on %s', (dialect) => { ... })`
 * runs its body on SQLite and on the test PostgreSQL (helpers/postgres.ts), each under its own
 * name. PostgreSQL is probed once per file. Unreachable, its suite is one skipped test saying so
 * (a local run without PostgreSQL), and in CI (CI=true) the file fails instead: CI never passes
 * without having run the PostgreSQL half.
 */
import { describe, test } from 'vitest';
import type { DialectName } from '../../server/storage/dialects/index.js';
import { POSTGRES_URL, postgresAvailable } from './postgres.js';

/** Whether the test PostgreSQL answers (outside CI; in CI importing this throws when it does not). */
export const postgresReady = await postgresAvailable();

/** The skipped test that stands for a PostgreSQL suite when there is no PostgreSQL. */
export const POSTGRES_SKIPPED = `PostgreSQL unreachable at ${POSTGRES_URL}: skipped locally (CI=true makes this a failure)`;

export interface DialectSuiteOptions {
  /** Narrows the run (`['postgres']`: a PostgreSQL-only suite); both by default. */
  dialects?: readonly DialectName[];
  /** Per-test timeout of the suite, as describe's. */
  timeout?: number;
}

/** `name` may hold `%s` for the dialect. */
export function describeOnDialects(
  name: string,
  body: (dialect: DialectName) => void,
  options: DialectSuiteOptions = {},
): void {
  const { dialects = ['sqlite', 'postgres'], timeout } = options;
  describe.each([...dialects])(
    name,
    (dialect) => {
      if (dialect === 'postgres' && !postgresReady) {
        test.skip(POSTGRES_SKIPPED, () => {});
        return;
      }
      body(dialect);
    },
    timeout,
  );
}
