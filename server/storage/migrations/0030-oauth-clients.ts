import { type Kysely, sql } from 'kysely';
import { type DialectName, idType } from './column-types.js';

/**
 * OAuth clients that registered themselves (RFC 7591, MCP clients) and the authorization codes
 * they are given (the code stored as its SHA-256 hash only; `used_at` makes it single-use).
 */
export function oauthClients(dialect: DialectName) {
  const id = sql.raw(idType(dialect));
  return {
    async up(db: Kysely<unknown>) {
      const text = 'text' as const;
      await db.schema
        .createTable('oauth_clients')
        .addColumn('client_id', id, (c) => c.primaryKey())
        .addColumn('client_name', text, (c) => c.notNull())
        .addColumn('redirect_uris', text, (c) => c.notNull())
        .addColumn('client_uri', text)
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('last_used_at', text)
        .execute();
      await db.schema.createIndex('oauth_clients_created').on('oauth_clients').column('created_at').execute();

      await db.schema
        .createTable('oauth_authorization_codes')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('code_hash', text, (c) => c.notNull().unique())
        .addColumn('client_id', id, (c) => c.notNull().references('oauth_clients.client_id').onDelete('cascade'))
        .addColumn('user_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('redirect_uri', text, (c) => c.notNull())
        .addColumn('code_challenge', text, (c) => c.notNull())
        .addColumn('scopes', text, (c) => c.notNull())
        .addColumn('resource', text)
        .addColumn('expires_at', text, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('used_at', text)
        .addColumn('token_id', text)
        .execute();
      await db.schema
        .createIndex('oauth_authorization_codes_expires')
        .on('oauth_authorization_codes')
        .column('expires_at')
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('oauth_authorization_codes').execute();
      await db.schema.dropTable('oauth_clients').execute();
    },
  };
}
