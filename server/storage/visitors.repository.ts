/** Visitor accounts (domain/visitors/ports.ts) on SQLite and PostgreSQL. */
import { type Kysely, sql } from 'kysely';
import type { CodeRecord, VisitorsStore } from '../domain/visitors/ports.js';
import { type Row, toChatUser, toConversation } from './conversations.repository.js';
import type { Database } from './tables.js';

const toCode = (r: Row<'visitor_codes'>): CodeRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  email: r.email,
  codeHash: r.code_hash,
  name: r.name,
  phone: r.phone,
  attempts: Number(r.attempts),
  expiresAt: r.expires_at,
  consumedAt: r.consumed_at,
  createdAt: r.created_at,
});

export function visitorsRepository(db: Kysely<Database>): VisitorsStore {
  return {
    codes: {
      async put(c) {
        const values = {
          id: c.id,
          code_hash: c.codeHash,
          name: c.name,
          phone: c.phone,
          attempts: c.attempts,
          expires_at: c.expiresAt,
          consumed_at: c.consumedAt,
          created_at: c.createdAt,
        };
        // One statement: the old code and the new one never both exist.
        await db
          .insertInto('visitor_codes')
          .values({ ...values, chatbot_id: c.chatbotId, email: c.email })
          .onConflict((oc) => oc.columns(['chatbot_id', 'email']).doUpdateSet(values))
          .execute();
      },
      async get(chatbotId, email) {
        const r = await db
          .selectFrom('visitor_codes')
          .selectAll()
          .where('chatbot_id', '=', chatbotId)
          .where('email', '=', email)
          .executeTakeFirst();
        return r ? toCode(r as Row<'visitor_codes'>) : null;
      },
      async attempt(id, now, maxAttempts) {
        const res = await db
          .updateTable('visitor_codes')
          .set({ attempts: sql`attempts + 1` })
          .where('id', '=', id)
          .where('consumed_at', 'is', null)
          .where('expires_at', '>', now)
          .where('attempts', '<', maxAttempts)
          .executeTakeFirst();
        return Number(res.numUpdatedRows) === 1;
      },
      async consume(id, codeHash, now) {
        // The conditions and the write are one statement: a row lock (PostgreSQL) or the write
        // lock (SQLite) lets exactly one of concurrent callers see `consumed_at is null`.
        const res = await db
          .updateTable('visitor_codes')
          .set({ consumed_at: now })
          .where('id', '=', id)
          .where('code_hash', '=', codeHash)
          .where('consumed_at', 'is', null)
          .where('expires_at', '>', now)
          .executeTakeFirst();
        return Number(res.numUpdatedRows) === 1;
      },
      async deleteExpired(before) {
        await db.deleteFrom('visitor_codes').where('expires_at', '<', before).execute();
      },
    },
    throttle: {
      async hit(key, expiresAt) {
        const r = await db
          .insertInto('visitor_throttle')
          .values({ key, count: 1, expires_at: expiresAt })
          .onConflict((oc) => oc.column('key').doUpdateSet({ count: sql`visitor_throttle.count + 1` }))
          .returning('count')
          .executeTakeFirstOrThrow();
        return Number(r.count);
      },
      async deleteExpired(before) {
        await db.deleteFrom('visitor_throttle').where('expires_at', '<', before).execute();
      },
    },
    identitySecrets: {
      async get(chatbotId) {
        const r = await db
          .selectFrom('identity_secrets')
          .select(['sealed', 'created_at'])
          .where('chatbot_id', '=', chatbotId)
          .executeTakeFirst();
        return r ? { sealed: r.sealed, createdAt: r.created_at } : null;
      },
      async put(chatbotId, sealed, at) {
        await db
          .insertInto('identity_secrets')
          .values({ chatbot_id: chatbotId, sealed, created_at: at })
          .onConflict((oc) => oc.column('chatbot_id').doUpdateSet({ sealed, created_at: at }))
          .execute();
      },
      async delete(chatbotId) {
        const res = await db.deleteFrom('identity_secrets').where('chatbot_id', '=', chatbotId).executeTakeFirst();
        return Number(res.numDeletedRows) > 0;
      },
    },
    chatUsers: {
      async verified(chatbotId, email) {
        const r = await db
          .selectFrom('chat_users')
          .selectAll()
          .where('chatbot_id', '=', chatbotId)
          .where('email', '=', email)
          .where('verified', '=', 1)
          .executeTakeFirst();
        return r ? toChatUser(r as Row<'chat_users'>) : null;
      },
      async conversations(chatbotId, chatUserId, limit) {
        const rows = await db
          .selectFrom('conversations')
          .selectAll()
          .where('chatbot_id', '=', chatbotId)
          .where('chat_user_id', '=', chatUserId)
          .orderBy(sql`coalesce(last_message_at, created_at)`, 'desc')
          .orderBy('id', 'desc')
          .limit(limit)
          .execute();
        return rows.map((r) => toConversation(r as Row<'conversations'>));
      },
      async merge(chatbotId, fromUserId, toUserId) {
        await db
          .updateTable('conversations')
          .set({ chat_user_id: toUserId })
          .where('chatbot_id', '=', chatbotId)
          .where('chat_user_id', '=', fromUserId)
          .execute();
        await db
          .updateTable('leads')
          .set({ chat_user_id: toUserId })
          .where('chatbot_id', '=', chatbotId)
          .where('chat_user_id', '=', fromUserId)
          .execute();
      },
    },
    sessions: {
      async revoke(sessionId, chatUserId, expiresAt) {
        await db
          .insertInto('visitor_session_revocations')
          .values({ session_id: sessionId, chat_user_id: chatUserId, expires_at: expiresAt })
          .onConflict((oc) => oc.column('session_id').doNothing())
          .execute();
      },
      async isRevoked(sessionId) {
        return !!(await db
          .selectFrom('visitor_session_revocations')
          .select('session_id')
          .where('session_id', '=', sessionId)
          .executeTakeFirst());
      },
      async deleteExpired(before) {
        await db.deleteFrom('visitor_session_revocations').where('expires_at', '<', before).execute();
      },
    },
    gapDeliveries: {
      async claim(gapId, conversationId, messageId, at) {
        const res = await db
          .insertInto('knowledge_gap_deliveries')
          .values({
            gap_id: gapId,
            conversation_id: conversationId,
            message_id: messageId,
            emailed_at: null,
            created_at: at,
          })
          .onConflict((oc) => oc.column('gap_id').doNothing())
          .executeTakeFirst();
        return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
      },
      async emailed(gapId) {
        const r = await db
          .selectFrom('knowledge_gap_deliveries')
          .select('emailed_at')
          .where('gap_id', '=', gapId)
          .executeTakeFirst();
        return !!r?.emailed_at;
      },
      async markEmailed(gapId, at) {
        const res = await db
          .updateTable('knowledge_gap_deliveries')
          .set({ emailed_at: at })
          .where('gap_id', '=', gapId)
          .where('emailed_at', 'is', null)
          .executeTakeFirst();
        return Number(res.numUpdatedRows) === 1;
      },
    },
  };
}
