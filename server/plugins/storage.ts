/**
 * storage: the database handle and the one Store over it (every repository, the queue's jobs too). Opens the database from config unless
 * the caller hands one in (main.ts, the CLI and tests migrate it first); closes only what it opened.
 */
import fp from 'fastify-plugin';
import { SecretBox } from '../domain/secrets.js';
import { openDatabase, type DatabaseHandle } from '../storage/dialects/index.js';
import { createStore, type AppStore } from '../storage/store.js';

declare module 'fastify' {
  interface FastifyInstance {
    database: DatabaseHandle;
    store: AppStore;
  }
}

export interface StorageOptions {
  /** An open, migrated database; the caller closes it. */
  database?: DatabaseHandle;
}

export default fp<StorageOptions>(
  async (app, options) => {
    const database =
      options.database ?? openDatabase({ url: app.config.databaseUrl, sqlitePath: app.config.sqlitePath });
    app.decorate('database', database);
    // The secret key seals the credentials stored inside rows (webhook tokens: storage/sealed-fields.ts).
    app.decorate('store', createStore(database.db, { secrets: new SecretBox(app.config.secretKey) }));
    if (!options.database) app.addHook('onClose', () => database.close());
  },
  { name: 'storage', decorators: { fastify: ['config'] } },
);
