/** Redis at REDIS_URL_TEST / 127.0.0.1:6379. In CI (CI=true) a missing server fails the run instead of skipping it. */
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL_TEST || 'redis://127.0.0.1:6379';

export async function redisAvailable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch (err) {
    if (process.env.CI === 'true')
      throw new Error(`Redis is required in CI but unreachable at ${REDIS_URL}: ${(err as Error).message}`);
    return false;
  } finally {
    client.disconnect();
  }
}
