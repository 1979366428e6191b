/**
 * Brings a database to the state the app expects: every migration applied, and on a fresh install
 * the first account with its owner (OWNER_EMAIL). main.ts and the CLI run it before building the
 * app; buildApp never does.
 */
import { AccountsService } from './domain/accounts.service.js';
import type { DatabaseHandle } from './storage/dialects/index.js';
import { migrateToLatest } from './storage/migrations/index.js';
import { createStore } from './storage/store.js';

/** Returns the migrations it applied; `onMigration` hears each one as it starts. */
export async function prepareDatabase(database: DatabaseHandle, ownerEmail: string, onMigration?: (name: string) => void): Promise<string[]> {
  const applied = await migrateToLatest(database.db, database.dialect, database.schema, onMigration);
  await new AccountsService(createStore(database.db, database.dialect)).bootstrap(ownerEmail);
  return applied;
}
