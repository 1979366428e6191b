/** Throw-away databases for benchmarks: SQLite in a temporary directory, a fresh PostgreSQL schema. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type DatabaseHandle, type DialectName } from '../server/storage/dialects/index.js';
import type { Database } from '../server/storage/tables.js';

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
  // Named after the schema, so serverCpuMs finds this pool's server processes.
  const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}application_name=${schema}`;
  const database = openDatabase({ url, schema, poolSize: 2 });
  try {
    return await fn(database, 'postgres');
  } finally {
    await database.close();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

/**
 * The CPU time (ms) the server processes of this pool have used so far (Linux schedstat), when
 * PostgreSQL runs on this machine; null otherwise. On a shared machine wall-clock times mostly
 * measure the wait for a core; CPU time per search is what an idle machine would take.
 */
export async function serverPids(db: Kysely<Database>): Promise<number[] | null> {
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity where application_name = current_setting('application_name')`.execute(db);
  try {
    for (const { pid } of rows) if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') return null;
    return rows.map((r) => r.pid);
  } catch {
    return null;
  }
}

export function serverCpuMs(pids: number[]): number | null {
  try {
    return pids.reduce(
      (sum, pid) => sum + Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6,
      0,
    );
  } catch {
    return null;
  }
}
