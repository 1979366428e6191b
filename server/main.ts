/** Process entry: configuration, database migrations, listen, graceful close on SIGINT/SIGTERM. */
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { prepareDatabase } from './prepare.js';
import { openDatabase } from './storage/dialects/index.js';
import { rankExtension } from './storage/sqlite-rank/index.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(78);
    }
    throw err;
  }
  const database = openDatabase({ url: config.databaseUrl, sqlitePath: config.sqlitePath });
  const app = await buildApp(config, { database });
  await prepareDatabase(database, config.ownerEmail, (name) => app.log.info({ migration: name }, `applying migration ${name}`));
  if (!config.databaseUrl && !rankExtension.loaded) {
    app.log.warn(`SQLite search ranks with FTS5's bm25(): nearly the same results, slower on large indexes (${rankExtension.reason})`);
  }
  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'closing');
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    await app.close();
    await database.close();
    clearTimeout(timer);
    process.exit(0);
  };
  process.on('SIGINT', () => void close('SIGINT'));
  process.on('SIGTERM', () => void close('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Parley API at ${config.siteUrl}/api/v2 (OpenAPI: ${config.siteUrl}/api/v2/openapi.json)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
