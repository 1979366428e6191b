import { type Kysely, sql } from 'kysely';
import { type DialectName, idType } from './column-types.js';

/**
 * Conversations and everything around them: visitors (chat users), conversations with their
 * event sequence, messages, the event log written in the same transaction as each change (the
 * source of the realtime feed and the webhook outbox), tags, knowledge gaps, and the owner's
 * resources (starters, follow-ups, instructions, personas, custom responses, members, leads).
 */
export function conversations(dialect: DialectName) {
  // Ids order keyset pages: byte order on both dialects.
  const id = sql.raw(idType(dialect));
  return {
    async up(db: Kysely<unknown>) {
      const text = 'text' as const;
      await db.schema
        .createTable('chat_users')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('email', text)
        .addColumn('name', text)
        .addColumn('phone', text)
        .addColumn('verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('metadata', text, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('updated_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('chat_users_chatbot_email').on('chat_users').columns(['chatbot_id', 'email']).execute();

      await db.schema
        .createTable('conversations')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('chat_user_id', text, (c) => c.references('chat_users.id').onDelete('set null'))
        .addColumn('status', text, (c) => c.notNull())
        .addColumn('mode', text, (c) => c.notNull())
        .addColumn('escalated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('agent_id', text)
        .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('webhook_url', text)
        .addColumn('webhook_token', text)
        .addColumn('total_messages_read', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('message_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_message_at', text)
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('updated_at', text, (c) => c.notNull())
        .addColumn('ended_at', text)
        .execute();
      await db.schema.createIndex('conversations_chatbot_created').on('conversations').columns(['chatbot_id', 'created_at', 'id']).execute();

      await db.schema
        .createTable('messages')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('conversation_id', text, (c) => c.notNull().references('conversations.id').onDelete('cascade'))
        .addColumn('chatbot_id', text, (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('author', text, (c) => c.notNull())
        .addColumn('text', text, (c) => c.notNull())
        .addColumn('sources', text, (c) => c.notNull())
        .addColumn('agent_id', text)
        .addColumn('agent_name', text)
        .addColumn('feedback', text)
        .addColumn('feedback_comment', text)
        .addColumn('original_text', text)
        .addColumn('meta', text, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('updated_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('messages_conversation_seq').on('messages').columns(['conversation_id', 'seq']).execute();
      await db.schema.createIndex('messages_chatbot_created').on('messages').columns(['chatbot_id', 'created_at']).execute();

      await db.schema
        .createTable('conversation_events')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('conversation_id', text, (c) => c.notNull().references('conversations.id').onDelete('cascade'))
        .addColumn('chatbot_id', text, (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('type', text, (c) => c.notNull())
        .addColumn('payload', text, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('conversation_events_seq').unique().on('conversation_events').columns(['conversation_id', 'seq']).execute();
      await db.schema.createIndex('conversation_events_chatbot').on('conversation_events').columns(['chatbot_id', 'created_at']).execute();

      await db.schema
        .createTable('tags')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('color', text)
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('updated_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('tags_chatbot_name').unique().on('tags').columns(['chatbot_id', 'name']).execute();
      await db.schema
        .createTable('conversation_tags')
        .addColumn('conversation_id', text, (c) => c.notNull().references('conversations.id').onDelete('cascade'))
        .addColumn('tag_id', text, (c) => c.notNull().references('tags.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('conversation_tags_pk', ['conversation_id', 'tag_id'])
        .execute();
      await db.schema.createIndex('conversation_tags_tag').on('conversation_tags').column('tag_id').execute();

      await db.schema
        .createTable('knowledge_gaps')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('conversation_id', text, (c) => c.references('conversations.id').onDelete('set null'))
        .addColumn('message_id', text)
        .addColumn('question', text, (c) => c.notNull())
        .addColumn('custom_response_id', text)
        .addColumn('answered_at', text)
        .addColumn('created_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('knowledge_gaps_chatbot_created').on('knowledge_gaps').columns(['chatbot_id', 'created_at', 'id']).execute();

      // Owner-defined resources: one shape of table each, ordered by position where it matters.
      for (const table of ['starters', 'followups'] as const) {
        await db.schema
          .createTable(table)
          .addColumn('id', id, (c) => c.primaryKey())
          .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
          .addColumn('title', text, (c) => c.notNull())
          .addColumn('description', text, (c) => c.notNull())
          .addColumn('link', text)
          .addColumn('is_escalation_prompt', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('position', 'integer', (c) => c.notNull())
          .addColumn('created_at', text, (c) => c.notNull())
          .addColumn('updated_at', text, (c) => c.notNull())
          .execute();
        await db.schema.createIndex(`${table}_chatbot_created`).on(table).columns(['chatbot_id', 'created_at', 'id']).execute();
      }
      for (const table of ['instructions', 'personas'] as const) {
        await db.schema
          .createTable(table)
          .addColumn('id', id, (c) => c.primaryKey())
          .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
          .addColumn('title', text, (c) => c.notNull())
          .addColumn('description', text, (c) => c.notNull())
          .addColumn('instructions', text, (c) => c.notNull())
          .addColumn('temperature', 'real')
          .addColumn('created_at', text, (c) => c.notNull())
          .addColumn('updated_at', text, (c) => c.notNull())
          .execute();
        await db.schema.createIndex(`${table}_chatbot_created`).on(table).columns(['chatbot_id', 'created_at', 'id']).execute();
      }
      await db.schema
        .createTable('custom_responses')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('question', text, (c) => c.notNull())
        .addColumn('answer', text, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('updated_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('custom_responses_chatbot_created').on('custom_responses').columns(['chatbot_id', 'created_at', 'id']).execute();

      await db.schema
        .createTable('chatbot_members')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('user_id', text, (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', text, (c) => c.notNull())
        .addColumn('invited_by_id', text)
        .addColumn('created_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('chatbot_members_unique').unique().on('chatbot_members').columns(['chatbot_id', 'user_id']).execute();
      await db.schema.createIndex('chatbot_members_user').on('chatbot_members').columns(['user_id', 'created_at']).execute();

      await db.schema
        .createTable('leads')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('conversation_id', text, (c) => c.references('conversations.id').onDelete('set null'))
        .addColumn('chat_user_id', text, (c) => c.references('chat_users.id').onDelete('set null'))
        .addColumn('name', text)
        .addColumn('email', text)
        .addColumn('phone', text)
        .addColumn('custom_fields', text, (c) => c.notNull())
        .addColumn('source', text, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('leads_chatbot_created').on('leads').columns(['chatbot_id', 'created_at', 'id']).execute();
    },
  };
}
