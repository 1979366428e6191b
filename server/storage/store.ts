/**
 * The one entry point into storage: every repository, over one kysely handle (the database or a
 * transaction), with the dialect (dialects/) chosen once from that handle and handed to the
 * repositories that differ. The domain sees the `Store` port; the queue its `jobs` table.
 */
import { type Kysely, sql } from 'kysely';
import type { Store } from '../domain/ports.js';
import type { SecretBox } from '../domain/secrets.js';
import type { JobsStore } from '../queue/ports.js';
import { accountsRepository, usersRepository } from './accounts.repository.js';
import { analyticsStore } from './analytics.repository.js';
import { answerContextRepository } from './answers.repository.js';
import { invoicesRepository, usageRepository } from './billing.repository.js';
import { chatbotsRepository, iconsRepository } from './chatbots.repository.js';
import { conversationStore } from './conversations.repository.js';
import type { Dialect } from './dialects/dialect.js';
import { dialectOf } from './dialects/index.js';
import { jobsRepository } from './jobs.repository.js';
import { createKnowledgeStore } from './knowledge.repository.js';
import { oauthRepository } from './oauth.repository.js';
import { resourcesRepository } from './resources.repository.js';
import { fieldSeal, sealedChatbots, sealedConversations, type FieldSeal } from './sealed-fields.js';
import type { Database } from './tables.js';
import { tokensRepository } from './tokens.repository.js';
import { vectorIndex } from './vectors.repository.js';
import { uploadLeasesRepository } from './upload-leases.repository.js';
import { visitorsRepository } from './visitors.repository.js';
import { webhooksRepository } from './webhooks.repository.js';

/** The domain's Store and what the app's own machinery keeps in the database (the queue's jobs). */
export interface AppStore extends Store {
  jobs: JobsStore;
}

/**
 * `options.secrets` encrypts the credentials stored inside rows (webhook tokens); the app always
 * passes it (plugins/storage.ts), tools working on bare tables may not.
 */
export function createStore(db: Kysely<Database>, options: { secrets?: SecretBox } = {}): AppStore {
  return storeOver(db, dialectOf(db), fieldSeal(options.secrets));
}

/** The transactions of one group share its handle: one Store over it serves them all (fewer objects per message). */
const groupStores = new WeakMap<Kysely<Database>, Map<FieldSeal, AppStore>>();
function storeOfGroup(trx: Kysely<Database>, dialect: Dialect, sealed: FieldSeal): AppStore {
  let bySeal = groupStores.get(trx);
  if (!bySeal) groupStores.set(trx, (bySeal = new Map()));
  let store = bySeal.get(sealed);
  if (!store) bySeal.set(sealed, (store = storeOver(trx, dialect, sealed)));
  return store;
}

function storeOver(db: Kysely<Database>, dialect: Dialect, sealed: FieldSeal): AppStore {
  return {
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    transaction: (fn, how) => {
      if (db.isTransaction) return fn(storeOver(db, dialect, sealed));
      // SQLite has one writer: concurrent small changes share a COMMIT (dialects/sqlite/group-commit.ts).
      if (how?.group) return dialect.groupedTransaction(db, (trx) => fn(storeOfGroup(trx, dialect, sealed)));
      return db.transaction().execute((trx) => fn(storeOver(trx, dialect, sealed)));
    },
    accounts: accountsRepository(db),
    users: usersRepository(db),
    tokens: tokensRepository(db),
    chatbots: sealedChatbots(chatbotsRepository(db), sealed),
    icons: iconsRepository(db),
    invoices: invoicesRepository(db),
    usage: usageRepository(db),
    knowledge: createKnowledgeStore(db, dialect),
    resources: resourcesRepository(db, dialect),
    conversations: sealedConversations(conversationStore(db, dialect), sealed),
    visitors: visitorsRepository(db),
    webhooks: webhooksRepository(db),
    oauth: oauthRepository(db),
    answers: answerContextRepository(db),
    analytics: analyticsStore(db),
    vectors: (space) => vectorIndex(db, dialect, space),
    jobs: jobsRepository(db, dialect),
    uploadLeases: uploadLeasesRepository(db, dialect),
  };
}
