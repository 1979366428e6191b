/**
 * PostgreSQL shared with others: another app (or another Parley in its own schema) creating and
 * dropping schemas while we start or answer readiness must not fail us. kysely's own introspection
 * resolved every schema and table of the database by name, so one dropped meanwhile failed our
 * migration with `schema "…" does not exist`; ours looks at our schema alone.
 */
import pg from 'pg';
import { afterAll, expect, test } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../../server/storage/dialects/index.js';
import { migrations } from '../../../server/storage/migrations/index.js';
import { postgresReady, POSTGRES_SKIPPED } from '../../helpers/dialects.js';
import { createPostgresSchema, POSTGRES_URL } from '../../helpers/postgres.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

test.skipIf(!postgresReady)(
  postgresReady
    ? 'migrations and readiness in our schema go through while another client drops its schemas'
    : POSTGRES_SKIPPED,
  async () => {
    // Someone else's churn: schemas with a few tables each, created and dropped without pause.
    const churn = new pg.Client({ connectionString: POSTGRES_URL });
    await churn.connect();
    let churning = true;
    const churned = (async () => {
      let n = 0;
      while (churning) {
        const name = `other_${process.pid}_${n++}`;
        await churn.query(`create schema ${name}`);
        for (const t of ['a', 'b', 'c']) await churn.query(`create table ${name}.${t} (id serial primary key, v text)`);
        await churn.query(`drop schema ${name} cascade`);
      }
      return n;
    })();

    const handles: DatabaseHandle[] = [];
    let schemasDropped = 0;
    try {
      for (let i = 0; i < 3; i++) {
        const { schema, drop } = await createPostgresSchema();
        cleanups.push(drop);
        const database = openDatabase({ url: POSTGRES_URL, schema, poolSize: 2 });
        handles.push(database);
        expect((await database.migrate()).sort()).toEqual(Object.keys(migrations('postgres')).sort());
        // Readiness asks which migrations are pending, as often as a load balancer probes.
        for (let k = 0; k < 20; k++) expect(await database.pendingMigrations()).toEqual([]);
      }
    } finally {
      churning = false;
      schemasDropped = await churned;
      await churn.end();
      for (const h of handles) await h.close();
    }
    // The churn really ran alongside (else the test proves nothing).
    expect(schemasDropped).toBeGreaterThan(3);
  },
  120_000,
);
