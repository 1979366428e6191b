/**
 * The real server (`server/main.ts`, compiled to dist/) in a child process on a SQLite file (or the PostgreSQL
 * schema a DATABASE_URL in `env` names, see createPostgresSchema), for tests that kill it with
 * SIGKILL and restart on the same data.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { waitFor } from './knowledge-http.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * Starts the server on `dataDir` (its `test.db` unless `env` has DATABASE_URL) with `env` added,
 * and waits until /health answers.
 * `siteUrlIsAddress`: SITE_URL is the address it listens on (clients that check the OAuth issuer).
 * `port`: listen there (a restart behind a proxy that names it) instead of on a free one.
 * `logFile`: the server's log (LOG_LEVEL info) is appended there, to read when a test fails.
 */
export async function spawnServer(
  dataDir: string,
  env: Record<string, string>,
  options: { siteUrlIsAddress?: boolean; port?: number; logFile?: string } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const port = options.port ?? (await freePort());
  const site = options.siteUrlIsAddress ? { SITE_URL: `http://127.0.0.1:${port}` } : {};
  // The compiled server (test/server-build.setup.ts builds it when stale): as operators run it, and
  // it starts in about a second where compiling the sources on the fly took several under load.
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/server/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: `sqlite:${join(dataDir, 'test.db')}`,
      ...env,
      ...site,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: options.logFile ? 'info' : 'silent',
    },
    stdio: options.logFile ? ['ignore', openSync(options.logFile, 'a'), openSync(options.logFile, 'a')] : 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => (await fetch(`${url}/api/v2/health`).catch(() => null))?.ok === true,
    30_000,
    'the child server',
  );
  return { child, url };
}
