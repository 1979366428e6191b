/** Process entry: configuration, database migrations, listen, graceful close on SIGINT/SIGTERM. */
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { prepareDatabase } from './prepare.js';
import { startSummary } from './start-summary.js';
import { startupFailure } from './startup-errors.js';
import { openDatabase, type DatabaseHandle } from './storage/dialects/index.js';
import { rankExtension } from './storage/sqlite-rank/index.js';

/** A start-up failure is one line that says what to change (exit 78 for configuration, else 1). */
function fail(err: unknown, config?: Config): never {
  if (err instanceof ConfigError) {
    console.error(`Configuration error: ${err.message}`);
    process.exit(78);
  }
  console.error(`Parley could not start: ${startupFailure(err, config)}`);
  process.exit(1);
}

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    fail(err);
  }
  let database: DatabaseHandle | undefined;
  let app: FastifyInstance | undefined;
  try {
    database = openDatabase({ url: config.databaseUrl, sqlitePath: config.sqlitePath });
    app = await buildApp(config, { database });
    const log = app.log;
    await prepareDatabase(database, config.ownerEmail, (name) => log.info({ migration: name }, `applying migration ${name}`));
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // Jobs the queue claimed while getting ready go back before the process ends.
    await app?.close().catch(() => undefined);
    await database?.close().catch(() => undefined);
    fail(err, config);
  }
  const ready = app;
  const db = database;
  if (!config.databaseUrl && !rankExtension.loaded) {
    ready.log.warn(`SQLite search ranks with FTS5's bm25(): nearly the same results, slower on large indexes (${rankExtension.reason})`);
  }
  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    ready.log.info({ signal }, 'closing: finishing requests in flight and putting running jobs back');
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    await ready.close();
    await db.close();
    clearTimeout(timer);
    ready.log.info('closed');
    process.exit(0);
  };
  process.on('SIGINT', () => void close('SIGINT'));
  process.on('SIGTERM', () => void close('SIGTERM'));
  const summary = startSummary(config);
  ready.log.info(summary.fields, summary.message);
}

main().catch((err) => fail(err));
