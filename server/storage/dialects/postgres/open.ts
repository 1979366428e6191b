/** Opens PostgreSQL (pg) at a postgres:// URL, optionally in a schema of its own. */
import { Kysely } from 'kysely';
import pg from 'pg';
import { migrateToLatest, pendingMigrations } from '../../migrations/index.js';
import type { Database } from '../../tables.js';
import type { DatabaseHandle, DatabaseOptions } from '../handle.js';
import { OwnSchemaPostgresDialect } from './own-schema.js';

export function openPostgres(options: DatabaseOptions & { url: string }): DatabaseHandle {
  const connection = {
    connectionString: options.url,
    ...(options.schema ? { options: `-c search_path=${quoteIdent(options.schema)}` } : {}),
  };
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 10 });
  // A dropped idle connection must not crash the process (the pool replaces it), but it is said.
  pool.on(
    'error',
    options.onPoolError ??
      ((err) => console.error(`PostgreSQL: an idle connection failed and is replaced: ${err.message}`)),
  );
  const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  return {
    db,
    schema: options.schema,
    migrate: (onMigration) => migrateToLatest(db, 'postgres', options.schema, onMigration),
    pendingMigrations: () => pendingMigrations(db, 'postgres', options.schema),
    exclusively: async (fn) => {
      // Its own connection, outside the pool: the work inside may need every pooled one. Keyed by
      // schema, so installs in other schemas of the server never wait for each other.
      const client = new pg.Client(connection);
      await client.connect();
      try {
        await client.query(`select pg_advisory_lock(hashtext('parley.prepare'), hashtext(current_schema()))`);
        return await fn();
      } finally {
        await client.end().catch(() => undefined); // ending the session releases the lock
      }
    },
    close: () => db.destroy(),
    poolState: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: options.poolSize ?? 10,
    }),
  };
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/i.test(name)) throw new Error(`Invalid schema name "${name}"`);
  return name;
}
