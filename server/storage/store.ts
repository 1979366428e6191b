/** Builds the domain's Store port over one kysely handle (the database or a transaction). */
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Store } from '../domain/ports.js';
import { accountsRepository, usersRepository } from './accounts.repository.js';
import { invoicesRepository, usageRepository } from './billing.repository.js';
import { chatbotsRepository, iconsRepository } from './chatbots.repository.js';
import type { DialectName } from './dialects/index.js';
import { conversationStore } from './conversations.repository.js';
import { GroupCommit } from './group-commit.js';
import { createKnowledgeStore } from './knowledge.repository.js';
import { oauthRepository } from './oauth.repository.js';
import { resourcesRepository } from './resources.repository.js';
import type { SecretBox } from '../domain/secrets.js';
import { fieldSeal, sealedChatbots, sealedConversations } from './sealed-fields.js';
import type { Database } from './tables.js';
import { tokensRepository } from './tokens.repository.js';
import { uploadLeasesRepository } from './upload-leases.repository.js';
import { visitorsRepository } from './visitors.repository.js';
import { webhooksRepository } from './webhooks.repository.js';

const groups = new WeakMap<Kysely<Database>, GroupCommit>();
const groupCommitOf = (db: Kysely<Database>) => {
  let group = groups.get(db);
  if (!group) groups.set(db, (group = new GroupCommit(db)));
  return group;
};

/** The dialect of a kysely handle, for callers that hold only `db` (prefer passing it). */
const dialectOf = (db: Kysely<Database>): DialectName =>
  db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';

/**
 * `options.secrets` encrypts the credentials stored inside rows (webhook tokens); the app always
 * passes it (plugins/services.ts), tools working on bare tables may not.
 */
export function createStore(db: Kysely<Database>, dialect: DialectName = dialectOf(db), options: { secrets?: SecretBox } = {}): Store {
  const sealed = fieldSeal(options.secrets);
  return {
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    transaction: (fn, how) => {
      if (db.isTransaction) return fn(createStore(db, dialect, options));
      // SQLite has one writer: concurrent small changes share a COMMIT (group-commit.ts).
      if (how?.group && dialect === 'sqlite') return groupCommitOf(db).run((trx) => fn(createStore(trx, dialect, options)));
      return db.transaction().execute((trx) => fn(createStore(trx, dialect, options)));
    },
    accounts: accountsRepository(db),
    users: usersRepository(db),
    tokens: tokensRepository(db),
    chatbots: sealedChatbots(chatbotsRepository(db), sealed),
    icons: iconsRepository(db),
    invoices: invoicesRepository(db),
    usage: usageRepository(db),
    knowledge: createKnowledgeStore(db, dialect),
    resources: resourcesRepository(db),
    conversations: sealedConversations(conversationStore(db), sealed),
    visitors: visitorsRepository(db),
    webhooks: webhooksRepository(db),
    oauth: oauthRepository(db),
    uploadLeases: uploadLeasesRepository(db, dialect),
  };
}
