/** Builds the domain's Store port over one kysely handle (the database or a transaction). */
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Store } from '../domain/ports.js';
import { accountsRepository, usersRepository } from './accounts.repository.js';
import { invoicesRepository, usageRepository } from './billing.repository.js';
import { chatbotsRepository, iconsRepository } from './chatbots.repository.js';
import type { DialectName } from './dialects/index.js';
import { conversationStore } from './conversations.repository.js';
import { createKnowledgeStore } from './knowledge.repository.js';
import { resourcesRepository } from './resources.repository.js';
import type { Database } from './tables.js';
import { tokensRepository } from './tokens.repository.js';
import { visitorsRepository } from './visitors.repository.js';
import { webhooksRepository } from './webhooks.repository.js';

/** The dialect of a kysely handle, for callers that hold only `db` (prefer passing it). */
const dialectOf = (db: Kysely<Database>): DialectName =>
  db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';

export function createStore(db: Kysely<Database>, dialect: DialectName = dialectOf(db)): Store {
  return {
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    transaction: (fn) =>
      db.isTransaction ? fn(createStore(db, dialect)) : db.transaction().execute((trx) => fn(createStore(trx, dialect))),
    accounts: accountsRepository(db),
    users: usersRepository(db),
    tokens: tokensRepository(db),
    chatbots: chatbotsRepository(db),
    icons: iconsRepository(db),
    invoices: invoicesRepository(db),
    usage: usageRepository(db),
    knowledge: createKnowledgeStore(db, dialect),
    resources: resourcesRepository(db),
    conversations: conversationStore(db),
    visitors: visitorsRepository(db),
    webhooks: webhooksRepository(db),
  };
}
