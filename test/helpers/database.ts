/**
 * A fresh, migrated database of either dialect with a Store over it: SQLite in a temporary
 * directory, or a new schema of the test PostgreSQL (dropped on close).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type DatabaseHandle, type DialectName } from '../../server/storage/dialects/index.js';
import { createStore, type AppStore } from '../../server/storage/store.js';
import { openPostgresSchema } from './postgres.js';

export interface TestDatabase {
  database: DatabaseHandle;
  /** A temporary directory for files of the run (DATA_DIR). */
  dataDir: string;
  /** The one Store over it (the queue's `jobs` too). */
  store: AppStore;
  /** The migrations this open applied (all of them: the database is new). */
  migrations: string[];
  close(): Promise<void>;
}

export async function openTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  let database: DatabaseHandle;
  let drop = async () => {};
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-db-'));
  if (dialect === 'postgres') {
    const pg = await openPostgresSchema();
    database = pg.database;
    drop = pg.drop;
  } else {
    database = openDatabase({ sqlitePath: join(dataDir, 'test.db') });
  }
  const migrations = await database.migrate();
  return {
    database,
    dataDir,
    store: createStore(database.db),
    migrations,
    async close() {
      await database.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
