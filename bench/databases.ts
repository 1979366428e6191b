/** Throw-away databases for benchmarks: SQLite in a temporary directory, a fresh PostgreSQL schema. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type DatabaseHandle, type DialectName } from '../server/storage/dialects/index.js';

export const PG_URL =
  process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL_TEST || 'postgres://postgres@127.0.0.1:5432/test';

export async function withSqlite<T>(fn: (db: DatabaseHandle, dialect: DialectName) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-'));
  const database = openDatabase({ sqlitePath: join(dir, 'bench.db') });
  try {
    return await fn(database, 'sqlite');
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `fn` in a new schema dropped afterwards; a reason string when PostgreSQL is unreachable. */
export async function withPostgres<T>(
  fn: (db: DatabaseHandle, dialect: DialectName) => Promise<T>,
): Promise<T | string> {
  const schema = `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (err) {
    return `PostgreSQL unreachable at ${PG_URL} (${(err as Error).message}); set BENCH_DATABASE_URL`;
  }
  await admin.query(`create schema ${schema}`);
  const database = openDatabase({ url: PG_URL, schema, poolSize: 2 });
  try {
    return await fn(database, 'postgres');
  } finally {
    await database.close();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}
