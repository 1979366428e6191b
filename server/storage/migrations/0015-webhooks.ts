import { type Kysely, sql } from 'kysely';
import { type DialectName, idType } from './column-types.js';

/**
 * The webhook outbox: one row per event and target, written in the transaction of the change
 * that caused it and updated by the dispatcher after each attempt; the targets a receiver's
 * repeated failures disabled; each chatbot's signing secret (sealed, with the previous one
 * during a rotation's overlap).
 */
export function webhooks(dialect: DialectName) {
  const id = sql.raw(idType(dialect));
  return {
    async up(db: Kysely<unknown>) {
      const text = 'text' as const;
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('conversation_id', text)
        .addColumn('event', text, (c) => c.notNull())
        .addColumn('variant', text, (c) => c.notNull())
        .addColumn('target_url', text, (c) => c.notNull())
        .addColumn('target_source', text, (c) => c.notNull())
        .addColumn('token', text)
        .addColumn('body', text, (c) => c.notNull())
        .addColumn('status', text, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('total_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', text)
        .addColumn('lease_until', text)
        .addColumn('last_status', 'integer')
        .addColumn('last_error', text)
        .addColumn('last_attempt_at', text)
        .addColumn('delivered_at', text)
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('updated_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('webhook_deliveries_chatbot_created').on('webhook_deliveries').columns(['chatbot_id', 'created_at', 'id']).execute();

      await db.schema
        .createTable('webhook_targets')
        .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('url', text, (c) => c.notNull())
        .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('disabled_at', text)
        .addColumn('disabled_reason', text)
        .addColumn('updated_at', text, (c) => c.notNull())
        .addPrimaryKeyConstraint('webhook_targets_pk', ['chatbot_id', 'url'])
        .execute();

      await db.schema
        .createTable('webhook_secrets')
        .addColumn('chatbot_id', text, (c) => c.primaryKey().references('chatbots.id').onDelete('cascade'))
        .addColumn('secret', text, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('previous_secret', text)
        .addColumn('previous_until', text)
        .execute();
    },
  };
}
