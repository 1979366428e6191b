/** Process entry: configuration, listen, graceful close on SIGINT/SIGTERM. */
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { startSummary } from './start-summary.js';
import { startupFailure } from './startup-errors.js';
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
    console.error(`Parley could not start: ${startupFailure(err)}`);
    process.exit(1);
  }
  let app;
  try {
    app = await buildApp(config);
  } catch (err) {
    console.error(`Parley could not start: ${startupFailure(err, config)}`);
    process.exit(1);
  }
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
    clearTimeout(timer);
    process.exit(0);
  };
  process.on('SIGINT', () => void close('SIGINT'));
  process.on('SIGTERM', () => void close('SIGTERM'));
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    console.error(`Parley could not start: ${startupFailure(err, config)}`);
    // Jobs the queue claimed while getting ready go back before the process ends.
    await app.close().catch(() => undefined);
    process.exit(1);
  }
  const summary = startSummary(config);
  app.log.info(summary.fields, summary.message);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
