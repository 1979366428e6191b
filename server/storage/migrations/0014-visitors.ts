import { type Kysely, sql } from 'kysely';
import { type DialectName, idType } from './column-types.js';

/**
 * Visitor accounts: e-mail codes (only their HMAC), send counters of the code throttles, the
 * per-chatbot identity secret (sealed), revoked visitor sessions, and the knowledge-gap answers
 * delivered to the conversation they came from. One verified chat user per address and chatbot.
 */
export function visitors(dialect: DialectName) {
  const id = sql.raw(idType(dialect));
  return {
    async up(db: Kysely<unknown>) {
      const text = 'text' as const;
      await db.schema
        .createTable('visitor_codes')
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('chatbot_id', text, (c) => c.notNull().references('chatbots.id').onDelete('cascade'))
        .addColumn('email', text, (c) => c.notNull())
        .addColumn('code_hash', text, (c) => c.notNull())
        .addColumn('name', text)
        .addColumn('phone', text)
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('expires_at', text, (c) => c.notNull())
        .addColumn('consumed_at', text)
        .addColumn('created_at', text, (c) => c.notNull())
        .execute();
      // One live code per address: a new code replaces (voids) the previous one.
      await db.schema.createIndex('visitor_codes_address').unique().on('visitor_codes').columns(['chatbot_id', 'email']).execute();
      await db.schema.createIndex('visitor_codes_expires').on('visitor_codes').column('expires_at').execute();

      await db.schema
        .createTable('visitor_throttle')
        .addColumn('key', id, (c) => c.primaryKey())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('expires_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('visitor_throttle_expires').on('visitor_throttle').column('expires_at').execute();

      await db.schema
        .createTable('identity_secrets')
        .addColumn('chatbot_id', id, (c) => c.primaryKey().references('chatbots.id').onDelete('cascade'))
        .addColumn('sealed', text, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('visitor_session_revocations')
        .addColumn('session_id', id, (c) => c.primaryKey())
        .addColumn('chat_user_id', text, (c) => c.notNull())
        .addColumn('expires_at', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('visitor_session_revocations_expires').on('visitor_session_revocations').column('expires_at').execute();

      await db.schema
        .createTable('knowledge_gap_deliveries')
        .addColumn('gap_id', id, (c) => c.primaryKey().references('knowledge_gaps.id').onDelete('cascade'))
        .addColumn('conversation_id', text, (c) => c.notNull().references('conversations.id').onDelete('cascade'))
        .addColumn('message_id', text)
        .addColumn('emailed_at', text)
        .addColumn('created_at', text, (c) => c.notNull())
        .execute();

      // A verified address is one visitor per chatbot: every device that proves it joins that history.
      await db.schema
        .createIndex('chat_users_verified_email')
        .unique()
        .on('chat_users')
        .columns(['chatbot_id', 'email'])
        .where(sql.ref('verified'), '=', 1)
        .execute();
    },
  };
}
