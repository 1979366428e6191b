import { type Kysely, sql } from 'kysely';
import { type DialectName, idType } from './column-types.js';

/**
 * The OAuth device flow and the sign-in of its verification page: device codes (both codes
 * stored as SHA-256 hashes), users' scrypt password hashes, sign-in sessions (hashed) and the
 * fixed-window failure counters that throttle wrong passwords and wrong user codes.
 */
export function deviceFlow(dialect: DialectName) {
  const id = sql.raw(idType(dialect));
  return {
    async up(db: Kysely<unknown>) {
      const text = 'text' as const;
      await db.schema
        .createTable('oauth_device_codes')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('device_code_hash', text, (c) => c.notNull().unique())
        .addColumn('user_code_hash', text, (c) => c.notNull())
        .addColumn('client_id', text, (c) => c.notNull())
        .addColumn('scopes', text)
        .addColumn('chatbot_ids', text)
        .addColumn('status', text, (c) => c.notNull())
        .addColumn('user_id', id, (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('interval_seconds', 'integer', (c) => c.notNull())
        .addColumn('last_polled_at', text)
        .addColumn('expires_at', text, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('decided_at', text)
        .addColumn('token_id', text)
        .execute();
      await db.schema.createIndex('oauth_device_codes_user_code').on('oauth_device_codes').columns(['user_code_hash', 'expires_at']).execute();
      await db.schema.createIndex('oauth_device_codes_expires').on('oauth_device_codes').column('expires_at').execute();

      await db.schema
        .createTable('user_passwords')
        .addColumn('user_id', id, (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('password_hash', text, (c) => c.notNull())
        .addColumn('updated_at', text, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('owner_sessions')
        .addColumn('session_hash', text, (c) => c.primaryKey())
        .addColumn('user_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('expires_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('owner_sessions_expires').on('owner_sessions').column('expires_at').execute();

      await db.schema
        .createTable('auth_throttle')
        .addColumn('key', text, (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('window_started_at', text, (c) => c.notNull())
        .execute();
    },
  };
}
