/**
 * Per-test set-up of the kill -9 tests: a data directory, on PostgreSQL a schema every process of
 * the test shares, the apps the test built and the child server it killed — all torn down after
 * each test (the child killed if still alive, the apps closed, the schema dropped, the directory
 * removed). Register it after the test's own stand-ins, so it is torn down before them.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openDatabase } from '../../server/storage/dialects/index.js';
import { buildTestApp, type TestApp } from './app.js';
import { spawnServer } from './child-server.js';
import { createPostgresSchema, POSTGRES_URL } from './postgres.js';

export interface CrashFixture {
  readonly dataDir: string;
  /** An app on the test's database (closed after the test unless closed by `closeApp`). */
  app(env: Record<string, string>): Promise<TestApp>;
  closeApp(app: TestApp): Promise<void>;
  /** The real server in a child process on the same database. */
  spawn(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }>;
  /** SIGKILL to the child, resolved once it has exited. */
  kill(): Promise<void>;
  /** The database as the killed process left it, with no app running (an app would sweep it). */
  withDatabase<T>(fn: (db: ReturnType<typeof openDatabase>['db']) => Promise<T>): Promise<T>;
}

export function crashFixture(dialect: 'sqlite' | 'postgres', prefix: string): CrashFixture {
  let dataDir = '';
  let pg: Awaited<ReturnType<typeof createPostgresSchema>> | null = null;
  let child: ChildProcess | null = null;
  const apps: TestApp[] = [];

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), prefix));
    if (dialect === 'postgres') pg = await createPostgresSchema();
  });
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child = null;
    for (const a of apps.splice(0)) await a.close().catch(() => undefined);
    await pg?.drop();
    pg = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  return {
    get dataDir() {
      return dataDir;
    },
    async app(env) {
      const a = await buildTestApp({ dataDir, dialect, postgresSchema: pg?.schema, env });
      apps.push(a);
      return a;
    },
    async closeApp(a) {
      apps.splice(apps.indexOf(a), 1);
      await a.close();
    },
    async spawn(env) {
      const started = await spawnServer(dataDir, { ...env, ...(pg ? { DATABASE_URL: pg.url } : {}) });
      child = started.child;
      return started;
    },
    async kill() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
    async withDatabase(fn) {
      const database = pg
        ? openDatabase({ url: POSTGRES_URL, schema: pg.schema })
        : openDatabase({ sqlitePath: join(dataDir, 'test.db') });
      try {
        return await fn(database.db);
      } finally {
        await database.close();
      }
    },
  };
}
