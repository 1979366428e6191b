/**
 * Upgrades with several instances: instances started at the same moment against one empty
 * PostgreSQL each run `prepareDatabase` (migrations, then the first account), as `npm start`
 * does. Every migration is applied once, by one of them, and the install has one first account.
 */
import { sql } from 'kysely';
import { afterAll, expect, test } from 'vitest';
import { prepareDatabase } from '../../../server/prepare.js';
import { migrations } from '../../../server/storage/migrations/index.js';
import { openDatabase, type DatabaseHandle } from '../../../server/storage/dialects/index.js';
import { postgresReady, POSTGRES_SKIPPED } from '../../helpers/dialects.js';
import { createPostgresSchema, POSTGRES_URL } from '../../helpers/postgres.js';

const INSTANCES = 3;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

test.skipIf(!postgresReady)(
  postgresReady ? `${INSTANCES} instances starting at once on one empty PostgreSQL migrate it once` : POSTGRES_SKIPPED,
  async () => {
    const { schema, drop } = await createPostgresSchema();
    cleanups.push(drop);
    // One pool each, as separate processes have.
    const handles: DatabaseHandle[] = Array.from({ length: INSTANCES }, () =>
      openDatabase({ url: POSTGRES_URL, schema, poolSize: 2 }),
    );
    cleanups.push(async () => {
      for (const h of handles) await h.close();
    });

    const applied = await Promise.all(handles.map((h) => prepareDatabase(h, 'owner@example.com')));

    const names = Object.keys(migrations('postgres'));
    // Each migration was applied by exactly one instance; the others found it done.
    expect(applied.flat().sort()).toEqual([...names].sort());
    for (const h of handles) expect(await h.pendingMigrations()).toEqual([]);
    const db = handles[0].db;
    const recorded = await sql<{ name: string }>`select name from ${sql.table(`${schema}.kysely_migration`)}`.execute(
      db,
    );
    expect(recorded.rows.map((r) => r.name).sort()).toEqual([...names].sort());
    // One first account with one owner, not one per instance.
    const accounts = await db.selectFrom('accounts').select('id').execute();
    expect(accounts).toHaveLength(1);
    const owners = await db.selectFrom('users').select('email').where('role', '=', 'owner').execute();
    expect(owners).toEqual([{ email: 'owner@example.com' }]);
  },
  60_000,
);
