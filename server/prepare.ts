/**
 * Brings a database to the state the app expects: every migration applied, and on a fresh install
 * the first account with its owner (OWNER_EMAIL). main.ts and the CLI run it before building the
 * app; buildApp never does.
 */
import { AccountsService } from './domain/accounts.service.js';
import type { DatabaseHandle } from './storage/dialects/index.js';
import { createStore } from './storage/store.js';

/**
 * Returns the migrations it applied; `onMigration` hears each one as it starts. Instances started
 * together take turns (`exclusively`): the first migrates and creates the first account, the
 * others find both done (two at once each created an account).
 */
export async function prepareDatabase(
  database: DatabaseHandle,
  ownerEmail: string,
  onMigration?: (name: string) => void,
): Promise<string[]> {
  return database.exclusively(async () => {
    const applied = await database.migrate(onMigration);
    await new AccountsService(createStore(database.db)).bootstrap(ownerEmail);
    return applied;
  });
}
