/**
 * A fresh PostgreSQL schema per test run, so runs never collide. In CI (CI=true) a missing
 * server fails the run instead of skipping it.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../server/storage/dialects/index.js';

export const POSTGRES_URL = process.env.DATABASE_URL_TEST || 'postgres://postgres@127.0.0.1:5432/test';

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (err) {
    if (process.env.CI === 'true')
      throw new Error(`PostgreSQL is required in CI but unreachable at ${POSTGRES_URL}: ${(err as Error).message}`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A new empty schema, for databases shared by several apps or processes: `url` points there
 * (search_path in the connection string), so a child server with DATABASE_URL=url works in it.
 */
export async function createPostgresSchema(): Promise<{ schema: string; url: string; drop(): Promise<void> }> {
  const schema = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    schema,
    url,
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

export async function openPostgresSchema(): Promise<{
  database: DatabaseHandle;
  schema: string;
  drop(): Promise<void>;
}> {
  const { schema, drop } = await createPostgresSchema();
  const database = openDatabase({ url: POSTGRES_URL, schema, poolSize: 4 });
  return { database, schema, drop };
}
