/** Builds the domain's Store port over one kysely handle (the database or a transaction). */
import { type Kysely, sql } from 'kysely';
import type { Store } from '../domain/ports.js';
import { accountsRepository, usersRepository } from './accounts.repository.js';
import { invoicesRepository, usageRepository } from './billing.repository.js';
import { chatbotsRepository, iconsRepository } from './chatbots.repository.js';
import { resourcesRepository } from './resources.repository.js';
import type { Database } from './tables.js';
import { tokensRepository } from './tokens.repository.js';

export function createStore(db: Kysely<Database>): Store {
  return {
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    transaction: (fn) =>
      db.isTransaction ? fn(createStore(db)) : db.transaction().execute((trx) => fn(createStore(trx))),
    accounts: accountsRepository(db),
    users: usersRepository(db),
    tokens: tokensRepository(db),
    chatbots: chatbotsRepository(db),
    icons: iconsRepository(db),
    invoices: invoicesRepository(db),
    usage: usageRepository(db),
    resources: resourcesRepository(db),
  };
}
