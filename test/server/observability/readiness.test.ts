/**
 * What /readyz and the runtime gauges say when the parts behind an instance are not there: a Redis
 * that stalls makes the instance not ready (503, `redis: unreachable`) until it answers again; on
 * PostgreSQL the pool's state is scraped.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { startDelayProxy, type DelayProxy } from '../../helpers/delay-proxy.js';
import { postgresReady, POSTGRES_SKIPPED } from '../../helpers/dialects.js';
import { Scrape } from '../../helpers/prometheus.js';
import { REDIS_URL, redisAvailable } from '../../helpers/redis.js';

const TOKEN = 'readiness-metrics-token-0123456789';
const hasRedis = await redisAvailable();
let proxy: DelayProxy;
let t: TestApp;

beforeAll(async () => {
  if (!hasRedis) return;
  const redis = new URL(REDIS_URL);
  proxy = await startDelayProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  t = await buildTestApp({ env: { REDIS_URL: `redis://${proxy.address}`, METRICS_TOKEN: TOKEN } });
});
afterAll(async () => {
  await t?.close();
  await proxy?.close();
});

const scrape = async (app: TestApp) => new Scrape((await app.call('GET', '/metrics', TOKEN)).body as string);

test.runIf(hasRedis)('a stalled Redis makes the instance not ready until it answers again', async () => {
  expect((await t.call('GET', '/readyz')).status).toBe(200);
  proxy.delayMs = 1_500; // past the readiness check's 800 ms
  const stalled = await t.call('GET', '/readyz');
  expect(stalled.status).toBe(503);
  expect(stalled.body).toEqual({ status: 'not ready', database: 'ok', redis: 'unreachable', pendingMigrations: [] });
  // Alive all the same: a liveness probe must not restart it for this.
  expect((await t.call('GET', '/healthz')).status).toBe(200);
  proxy.delayMs = 0;
  await proxy.drained();
  await expect.poll(async () => (await t.call('GET', '/readyz')).status).toBe(200);
  expect((await scrape(t)).value('parley_redis_up', { connection: 'command' })).toBe(1);
});

test.skipIf(!postgresReady)(
  postgresReady
    ? 'on PostgreSQL the pool is scraped: its size, idle connections and waiting queries'
    : POSTGRES_SKIPPED,
  async () => {
    const pg = await buildTestApp({ dialect: 'postgres', env: { METRICS_TOKEN: TOKEN } });
    try {
      const s = await scrape(pg);
      expect(s.family('parley_db_pool_connections').type).toBe('GAUGE');
      expect(s.value('parley_db_pool_connections', { state: 'max' })).toBe(4);
      expect(s.value('parley_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      expect(s.value('parley_db_pool_connections', { state: 'waiting' })).toBe(0);
    } finally {
      await pg.close();
    }
  },
);
