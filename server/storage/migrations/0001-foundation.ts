import { type Kysely, sql } from 'kysely';
import { blobType, type DialectName, idType } from './column-types.js';

export function foundation(dialect: DialectName) {
  const id = sql.raw(idType(dialect));
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('plan_name', 'text', (c) => c.notNull())
        .addColumn('max_chatbots', 'integer', (c) => c.notNull())
        .addColumn('max_pages', 'integer', (c) => c.notNull())
        .addColumn('webhooks_enabled', 'integer', (c) => c.notNull())
        .addColumn('analytics_enabled', 'integer', (c) => c.notNull())
        .addColumn('branding_removal', 'integer', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('users')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('account_id', id, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('users_account_email').unique().on('users').columns(['account_id', 'email']).execute();
      await db.schema
        .createTable('tokens')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('account_id', id, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('user_id', id, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('access', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('chatbot_ids', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createIndex('tokens_account_created').on('tokens').columns(['account_id', 'created_at', 'id']).execute();
      await db.schema
        .createTable('chatbots')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('account_id', id, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('created_by_id', id, (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('settings', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('chatbots_account_created').on('chatbots').columns(['account_id', 'created_at', 'id']).execute();
      await db.schema
        .createTable('icons')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('chatbot_id', id, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('mime', 'text', (c) => c.notNull())
        .addColumn('bytes', sql.raw(blobType(dialect)), (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('icons_chatbot').on('icons').column('chatbot_id').execute();
      await db.schema
        .createTable('invoices')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('account_id', id, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('amount_cents', 'integer', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('period_start', 'text')
        .addColumn('period_end', 'text')
        .addColumn('url', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('invoices_account_created').on('invoices').columns(['account_id', 'created_at', 'id']).execute();
      await db.schema
        .createTable('usage_counters')
        .addColumn('account_id', id, (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('metric', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('value', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('usage_counters_pk', ['account_id', 'metric', 'period'])
        .execute();
    },
  };
}
