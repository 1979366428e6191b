/** Migrations live in code, in order; they run at start and with `cli migrate`. */
import { type Kysely, type Migration, Migrator } from 'kysely';
import type { DialectName } from '../dialects/index.js';
import type { Database } from '../tables.js';
import { foundation } from './0001-foundation.js';
import { knowledge } from './0002-knowledge.js';

export function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '0001-foundation': foundation(dialect),
    '0002-knowledge': knowledge(dialect),
  };
}

export async function migrateToLatest(db: Kysely<Database>, dialect: DialectName): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(dialect) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
