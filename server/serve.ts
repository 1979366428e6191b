/**
 * Running the server: configuration, database migrations, listen, and a graceful close on SIGINT
 * or SIGTERM. `npm start` (main.ts) and `npm run demo` (demo/seed.ts) both start through it, so
 * both stop on a signal and fail to start with one line that says what to change.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { startTracing, type Tracing } from './observability/tracing.js';
import { prepareDatabase } from './prepare.js';
import { startupFailure } from './startup-errors.js';
import { openDatabase, type DatabaseHandle } from './storage/dialects/index.js';
import { rankExtension } from './storage/dialects/sqlite/rank/index.js';

export interface ServeOptions {
  /** The command the operator ran, named in the advice of a failed start (`PORT=3001 npm start`). */
  command?: string;
}

/** A start-up failure is one line that says what to change (exit 78 for configuration, else 1). */
function fail(err: unknown, config: Config | undefined, command: string): never {
  if (err instanceof ConfigError) {
    console.error(`Configuration error: ${err.message}`);
    process.exit(78);
  }
  console.error(`Parley could not start: ${startupFailure(err, config, command)}`);
  process.exit(1);
}

export async function serve(options: ServeOptions = {}): Promise<{ app: FastifyInstance; config: Config }> {
  const command = options.command ?? 'npm start';
  // A signal during start-up ends the process at once; once listening, it closes gracefully.
  let close: (signal: string) => void = () => process.exit(130);
  const onSignal = (signal: string) => close(signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    fail(err, undefined, command);
  }
  let database: DatabaseHandle | undefined;
  let app: FastifyInstance | undefined;
  let tracing: Tracing | null = null;
  try {
    // Before the app: its request hook is added only when a tracer provider is registered.
    tracing = await startTracing(config);
    database = openDatabase({ url: config.databaseUrl, sqlitePath: config.sqlitePath });
    app = await buildApp(config, { database });
    const log = app.log;
    await prepareDatabase(database, config.ownerEmail, (name) =>
      log.info({ migration: name }, `applying migration ${name}`),
    );
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // Jobs the queue claimed while getting ready go back before the process ends.
    await app?.close().catch(() => undefined);
    await database?.close().catch(() => undefined);
    fail(err, config, command);
  }
  const ready = app;
  const db = database;
  if (!config.databaseUrl && !rankExtension.loaded) {
    ready.log.warn(
      `SQLite search ranks with FTS5's bm25(): nearly the same results, slower on large indexes (${rankExtension.reason})`,
    );
  }
  let closing = false;
  close = (signal: string) => {
    if (closing) return;
    closing = true;
    ready.log.info(
      { signal, timeoutMs: config.shutdownTimeoutMs },
      'closing: refusing new connections, telling sockets to reconnect elsewhere (1001), finishing requests in flight and the current step of running jobs',
    );
    const timer = setTimeout(() => {
      ready.log.error({ timeoutMs: config.shutdownTimeoutMs }, 'not closed within SHUTDOWN_TIMEOUT_MS: exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    // A keep-alive connection (a proxy's pool, a client's) whose request was in flight at the close
    // would otherwise hold the process open once that request is answered.
    const idle = setInterval(() => ready.server.closeIdleConnections(), 100).unref();
    void (async () => {
      // Jobs finish their step while the server closes; the queue's own close waits for this stop.
      const jobs = ready.queue.stop(Math.floor(config.shutdownTimeoutMs / 2));
      await ready.close();
      clearInterval(idle);
      await jobs;
      await db.close();
      // The last spans (this close's requests) are sent before the process ends.
      await tracing?.shutdown().catch(() => undefined);
      clearTimeout(timer);
      ready.log.info('closed');
      process.exit(0);
    })();
  };
  return { app: ready, config };
}
