import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { type DialectName, idType } from './column-types.js';

/**
 * Message delivery guarantees (conversations.service.ts):
 * - `messages.client_message_id`: the client's own id for a message (the `Idempotency-Key`
 *   header, the widget's `clientId`), unique per chatbot, so a retried send is stored once;
 * - `answers_owed`: one row per visitor message the AI still has to answer, written in the
 *   transaction that stores the message and deleted in the one that stores its answer. A row
 *   whose lease ran out (its process died) is answered by whichever instance claims it first.
 */
export function delivery(dialect: DialectName) {
  const id = sql.raw(idType(dialect));
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('messages').addColumn('client_message_id', 'text').execute();
      // NULLs are distinct in a unique index on both dialects: messages without a key never collide.
      await db.schema.createIndex('messages_client_id').unique().on('messages').columns(['chatbot_id', 'client_message_id']).execute();
      await db.schema
        .createTable('answers_owed')
        .addColumn('message_id', id, (c) => c.primaryKey().references('messages.id').onDelete('cascade'))
        .addColumn('conversation_id', 'text', (c) => c.notNull())
        .addColumn('chatbot_id', 'text', (c) => c.notNull())
        .addColumn('lease_until', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('answers_owed_lease').on('answers_owed').column('lease_until').execute();
    },
  };
}
