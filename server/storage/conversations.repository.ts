import { type Kysely, sql } from 'kysely';
import {
  type ChatUserRecord,
  type ConversationEventRecord,
  type ConversationRecord,
  type ConversationStore,
  DuplicateClientId,
  type MessageRecord,
} from '../domain/conversations/ports.js';
import type { Mode, Status } from '../domain/conversations/state.js';
import { compileOnce, compileOnceAll, compileOnceWrite } from './compile-once.js';
import type { Dialect } from './dialects/dialect.js';
import { keysetPage } from './keyset.js';
import type { Database } from './tables.js';

export type Row<T extends keyof Database> = {
  [K in keyof Database[T]]: Database[T][K] extends import('kysely').Generated<infer U> ? U : Database[T][K];
};

export const toChatUser = (r: Row<'chat_users'>): ChatUserRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  email: r.email,
  name: r.name,
  phone: r.phone,
  verified: !!r.verified,
  metadata: JSON.parse(r.metadata),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toConversation = (r: Row<'conversations'>): ConversationRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  chatUserId: r.chat_user_id,
  status: r.status as Status,
  mode: r.mode as Mode,
  escalated: !!r.escalated,
  agentId: r.agent_id,
  seq: Number(r.seq),
  webhookUrl: r.webhook_url,
  webhookToken: r.webhook_token,
  totalMessagesRead: Number(r.total_messages_read),
  messageCount: Number(r.message_count),
  lastMessageAt: r.last_message_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  endedAt: r.ended_at,
});

const toMessage = (r: Row<'messages'>): MessageRecord => ({
  id: r.id,
  conversationId: r.conversation_id,
  chatbotId: r.chatbot_id,
  seq: Number(r.seq),
  author: r.author as MessageRecord['author'],
  text: r.text,
  sources: JSON.parse(r.sources),
  agentId: r.agent_id,
  agentName: r.agent_name,
  feedback: r.feedback as MessageRecord['feedback'],
  feedbackComment: r.feedback_comment,
  originalText: r.original_text,
  meta: JSON.parse(r.meta),
  clientMessageId: r.client_message_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const conversationColumns = (c: Partial<ConversationRecord>) => ({
  ...(c.chatUserId !== undefined && { chat_user_id: c.chatUserId }),
  ...(c.status !== undefined && { status: c.status }),
  ...(c.mode !== undefined && { mode: c.mode }),
  ...(c.escalated !== undefined && { escalated: +c.escalated }),
  ...(c.agentId !== undefined && { agent_id: c.agentId }),
  ...(c.webhookUrl !== undefined && { webhook_url: c.webhookUrl }),
  ...(c.webhookToken !== undefined && { webhook_token: c.webhookToken }),
  ...(c.totalMessagesRead !== undefined && { total_messages_read: c.totalMessagesRead }),
  ...(c.messageCount !== undefined && { message_count: c.messageCount }),
  ...(c.lastMessageAt !== undefined && { last_message_at: c.lastMessageAt }),
  ...(c.updatedAt !== undefined && { updated_at: c.updatedAt }),
  ...(c.endedAt !== undefined && { ended_at: c.endedAt }),
});

// The reads of every visitor message and of the realtime gateway after each change: compiled
// once, and outside a transaction on SQLite answered by the read-only connection, so they never
// queue behind the writer (which group-commits the changes meanwhile).
const conversationById = compileOnce((db) => db.selectFrom('conversations').selectAll().where('id', '=', '<id>'), {
  remember: false,
});
/** A conversation with its visitor's name, in one read (the visitor's message needs both: conversationWithVisitorName). */
const conversationWithVisitor = compileOnce(
  (db) =>
    db
      .selectFrom('conversations')
      .leftJoin('chat_users', 'chat_users.id', 'conversations.chat_user_id')
      .selectAll('conversations')
      .select('chat_users.name as visitor_name')
      .where('conversations.id', '=', '<id>'),
  { remember: false },
);
const chatUserById = compileOnce((db) => db.selectFrom('chat_users').selectAll().where('id', '=', '<id>'), {
  remember: false,
});
const messageById = compileOnce(
  (db) => db.selectFrom('messages').selectAll().where('conversation_id', '=', '<c>').where('id', '=', '<id>'),
  { remember: false },
);
const messageByClientId = compileOnce(
  (db) => db.selectFrom('messages').selectAll().where('chatbot_id', '=', '<b>').where('client_message_id', '=', '<k>'),
  { remember: false },
);
const eventsAfter = compileOnceAll((db) =>
  db
    .selectFrom('conversation_events')
    .selectAll()
    .where('conversation_id', '=', '<c>')
    .where('seq', '>', 0)
    .orderBy('seq')
    .limit(1),
);

// The writes of every change, compiled once: rows are built by one function each, so their
// values are bound in the order of their columns.
const messageRow = (m: MessageRecord) => ({
  id: m.id,
  conversation_id: m.conversationId,
  chatbot_id: m.chatbotId,
  seq: m.seq,
  author: m.author,
  text: m.text,
  sources: JSON.stringify(m.sources),
  agent_id: m.agentId,
  agent_name: m.agentName,
  feedback: m.feedback,
  feedback_comment: m.feedbackComment,
  original_text: m.originalText,
  meta: JSON.stringify(m.meta),
  client_message_id: m.clientMessageId,
  created_at: m.createdAt,
  updated_at: m.updatedAt,
});
const eventRow = (e: ConversationEventRecord) => ({
  id: e.id,
  conversation_id: e.conversationId,
  chatbot_id: e.chatbotId,
  seq: e.seq,
  type: e.type,
  payload: JSON.stringify(e.payload),
  created_at: e.createdAt,
});
const placeholders = <T extends object>(row: T) => Object.fromEntries(Object.keys(row).map((k) => [k, '<v>'])) as never;
const insertMessage = compileOnceWrite((db) =>
  db.insertInto('messages').values(placeholders(messageRow({ sources: [], meta: {} } as unknown as MessageRecord))),
);
/** A change's events in one statement, compiled once per number of rows (changes emit one to a few). */
const eventInserts = new Map<number, ReturnType<typeof compileOnceWrite>>();
const insertEventsOf = (n: number) => {
  let insert = eventInserts.get(n);
  if (!insert) {
    const row = placeholders(eventRow({ payload: {} } as unknown as ConversationEventRecord));
    insert = compileOnceWrite((db) =>
      db.insertInto('conversation_events').values(Array.from({ length: n }, () => row)),
    );
    eventInserts.set(n, insert);
  }
  return insert;
};
const insertOwed = compileOnceWrite((db) =>
  db.insertInto('answers_owed').values({
    message_id: '<m>',
    conversation_id: '<c>',
    chatbot_id: '<b>',
    lease_until: '<l>',
    attempts: 0,
    created_at: '<t>',
  }),
);
/** The compare-and-set, compiled once per set of columns it writes (a handful of shapes). */
const casShapes = new Map<string, ReturnType<typeof compileOnceWrite>>();
const casOf = (columns: string[]) => {
  const key = columns.join(',');
  let cas = casShapes.get(key);
  if (!cas) {
    cas = compileOnceWrite((db) =>
      db
        .updateTable('conversations')
        .set(Object.fromEntries(columns.map((c) => [c, '<v>'])) as never)
        .where('id', '=', '<id>')
        .where('seq', '=', 0),
    );
    casShapes.set(key, cas);
  }
  return cas;
};

export function conversationStore(db: Kysely<Database>, dialect: Dialect): ConversationStore {
  return {
    chatUsers: {
      async insert(u) {
        await db
          .insertInto('chat_users')
          .values({
            id: u.id,
            chatbot_id: u.chatbotId,
            email: u.email,
            name: u.name,
            phone: u.phone,
            verified: +u.verified,
            metadata: JSON.stringify(u.metadata),
            created_at: u.createdAt,
            updated_at: u.updatedAt,
          })
          .execute();
      },
      async get(id) {
        const r = await chatUserById(db, id);
        return r ? toChatUser(r as Row<'chat_users'>) : null;
      },
      async many(ids) {
        const wanted = [...new Set(ids)];
        if (!wanted.length) return [];
        const rows = await db.selectFrom('chat_users').selectAll().where('id', 'in', wanted).execute();
        return rows.map((r) => toChatUser(r as Row<'chat_users'>));
      },
      async update(id, p) {
        await db
          .updateTable('chat_users')
          .set({
            ...(p.email !== undefined && { email: p.email }),
            ...(p.name !== undefined && { name: p.name }),
            ...(p.phone !== undefined && { phone: p.phone }),
            ...(p.verified !== undefined && { verified: +p.verified }),
            ...(p.metadata !== undefined && { metadata: JSON.stringify(p.metadata) }),
            ...(p.updatedAt !== undefined && { updated_at: p.updatedAt }),
          })
          .where('id', '=', id)
          .execute();
      },
    },
    async insert(c) {
      await db
        .insertInto('conversations')
        .values({
          id: c.id,
          chatbot_id: c.chatbotId,
          seq: c.seq,
          created_at: c.createdAt,
          ...conversationColumns(c),
          status: c.status,
          mode: c.mode,
          updated_at: c.updatedAt,
        } as never)
        .execute();
    },
    async get(id) {
      const r = await conversationById(db, id);
      return r ? toConversation(r as Row<'conversations'>) : null;
    },
    async withVisitorName(id) {
      const r = (await conversationWithVisitor(db, id)) as
        (Row<'conversations'> & { visitor_name: string | null }) | undefined;
      return r ? { conversation: toConversation(r), visitorName: r.visitor_name } : null;
    },
    page(chatbotId, page, f) {
      let q = db.selectFrom('conversations').selectAll().where('chatbot_id', '=', chatbotId);
      if (f.status) q = q.where('status', '=', f.status);
      if (f.mode) q = q.where('mode', '=', f.mode);
      if (f.escalated !== undefined) q = q.where('escalated', '=', +f.escalated);
      if (f.from) q = q.where('created_at', '>=', f.from);
      if (f.to) q = q.where('created_at', '<', f.to);
      if (f.text) {
        // As the documents' search: LIKE's wildcards in the text match themselves.
        const p = `%${f.text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        q = q.where(
          sql<boolean>`(exists (select 1 from chat_users u where u.id = conversations.chat_user_id and (lower(coalesce(u.name, '')) like ${p} escape '\\' or lower(coalesce(u.email, '')) like ${p} escape '\\')) or exists (select 1 from messages m where m.conversation_id = conversations.id and lower(m.text) like ${p} escape '\\'))`,
        );
      }
      if (f.tagId) {
        const tagId = f.tagId;
        q = q.where((eb) =>
          eb.exists(
            eb
              .selectFrom('conversation_tags')
              .select('tag_id')
              .whereRef('conversation_tags.conversation_id', '=', 'conversations.id')
              .where('tag_id', '=', tagId),
          ),
        );
      }
      return keysetPage(q, page, (r) => toConversation(r as Row<'conversations'>), 'conversations');
    },
    async cas(id, expectedSeq, newSeq, patch) {
      const set = { ...conversationColumns(patch), seq: newSeq };
      return (await casOf(Object.keys(set))(db, ...Object.values(set), id, expectedSeq)) === 1n;
    },
    async delete(ids) {
      if (ids.length) await db.deleteFrom('conversations').where('id', 'in', ids).execute();
    },
    async tags(ids) {
      const out = new Map<string, { id: string; name: string; color: string | null }[]>(ids.map((id) => [id, []]));
      if (!ids.length) return out;
      const rows = await db
        .selectFrom('conversation_tags')
        .innerJoin('tags', 'tags.id', 'conversation_tags.tag_id')
        .select(['conversation_tags.conversation_id as cid', 'tags.id', 'tags.name', 'tags.color'])
        .where('conversation_tags.conversation_id', 'in', ids)
        .orderBy('tags.name')
        .execute();
      for (const r of rows) out.get(r.cid)?.push({ id: r.id, name: r.name, color: r.color });
      return out;
    },
    async knownTags(chatbotId, tagIds) {
      if (!tagIds.length) return [];
      const rows = await db
        .selectFrom('tags')
        .select('id')
        .where('chatbot_id', '=', chatbotId)
        .where('id', 'in', tagIds)
        .execute();
      return rows.map((r) => r.id);
    },
    async setTags(conversationId, tagIds) {
      await db.deleteFrom('conversation_tags').where('conversation_id', '=', conversationId).execute();
      if (tagIds.length)
        await db
          .insertInto('conversation_tags')
          .values(tagIds.map((tag_id) => ({ conversation_id: conversationId, tag_id })))
          .execute();
    },
    messages: {
      async insert(m) {
        try {
          await insertMessage(db, ...Object.values(messageRow(m)));
        } catch (err) {
          if (m.clientMessageId && dialect.isUniqueViolation(err)) throw new DuplicateClientId();
          throw err;
        }
      },
      async get(conversationId, id) {
        const r = await messageById(db, conversationId, id);
        return r ? toMessage(r as Row<'messages'>) : null;
      },
      async conversationOf(chatbotId, id) {
        const r = await db
          .selectFrom('messages')
          .select('conversation_id')
          .where('chatbot_id', '=', chatbotId)
          .where('id', '=', id)
          .executeTakeFirst();
        return r ? r.conversation_id : null;
      },
      async page(conversationId, limit, afterSeq) {
        let q = db.selectFrom('messages').selectAll().where('conversation_id', '=', conversationId);
        if (afterSeq !== null) q = q.where('seq', '>', afterSeq);
        const rows = await q
          .orderBy('seq', 'asc')
          .limit(limit + 1)
          .execute();
        return { items: rows.slice(0, limit).map((r) => toMessage(r as Row<'messages'>)), more: rows.length > limit };
      },
      async last(conversationId, n) {
        if (n <= 0) return [];
        const rows = await db
          .selectFrom('messages')
          .selectAll()
          .where('conversation_id', '=', conversationId)
          .orderBy('seq', 'desc')
          .limit(n)
          .execute();
        return rows.reverse().map((r) => toMessage(r as Row<'messages'>));
      },
      async latest(conversationIds) {
        if (!conversationIds.length) return [];
        const rows = await db
          .selectFrom('messages as m')
          .selectAll('m')
          .where('m.conversation_id', 'in', conversationIds)
          .where((eb) =>
            eb(
              'm.seq',
              '=',
              eb
                .selectFrom('messages as l')
                .select((l) => l.fn.max('l.seq').as('s'))
                .whereRef('l.conversation_id', '=', 'm.conversation_id'),
            ),
          )
          .execute();
        return rows.map((r) => toMessage(r as Row<'messages'>));
      },
      async update(id, p) {
        await db
          .updateTable('messages')
          .set({
            ...(p.text !== undefined && { text: p.text }),
            ...(p.feedback !== undefined && { feedback: p.feedback }),
            ...(p.feedbackComment !== undefined && { feedback_comment: p.feedbackComment }),
            ...(p.originalText !== undefined && { original_text: p.originalText }),
            ...(p.meta !== undefined && { meta: JSON.stringify(p.meta) }),
            ...(p.updatedAt !== undefined && { updated_at: p.updatedAt }),
          })
          .where('id', '=', id)
          .execute();
      },
      async byClientId(chatbotId, clientMessageId) {
        const r = await messageByClientId(db, chatbotId, clientMessageId);
        return r ? toMessage(r as Row<'messages'>) : null;
      },
    },
    owed: {
      async insert(o) {
        await insertOwed(db, o.messageId, o.conversationId, o.chatbotId, o.leaseUntil, o.attempts, o.createdAt);
      },
      async settle(messageId) {
        const res = await db.deleteFrom('answers_owed').where('message_id', '=', messageId).executeTakeFirst();
        return Number(res.numDeletedRows) === 1;
      },
      async settleConversation(conversationId) {
        await db.deleteFrom('answers_owed').where('conversation_id', '=', conversationId).execute();
      },
      async extend(messageIds, leaseUntil) {
        if (messageIds.length)
          await db
            .updateTable('answers_owed')
            .set({ lease_until: leaseUntil })
            .where('message_id', 'in', messageIds)
            .execute();
      },
      async expired(now, limit) {
        const rows = await db
          .selectFrom('answers_owed')
          .selectAll()
          .where('lease_until', '<', now)
          .orderBy('created_at')
          .limit(limit)
          .execute();
        return rows.map((r) => ({
          messageId: r.message_id,
          conversationId: r.conversation_id,
          chatbotId: r.chatbot_id,
          leaseUntil: r.lease_until,
          attempts: Number(r.attempts),
          createdAt: r.created_at,
        }));
      },
      async claim(messageId, expectedLease, leaseUntil) {
        const res = await db
          .updateTable('answers_owed')
          .set({ lease_until: leaseUntil, attempts: sql`attempts + 1` })
          .where('message_id', '=', messageId)
          .where('lease_until', '=', expectedLease)
          .executeTakeFirst();
        return Number(res.numUpdatedRows) === 1;
      },
    },
    events: {
      async insert(events) {
        // Beyond a handful (none of today's changes) in slices, so the shapes compiled stay few.
        for (let i = 0; i < events.length; i += 8) {
          const slice = events.slice(i, i + 8);
          await insertEventsOf(slice.length)(db, ...slice.flatMap((e) => Object.values(eventRow(e))));
        }
      },
      async after(conversationId, afterSeq, limit) {
        const rows = await eventsAfter(db, conversationId, afterSeq, limit);
        return rows.map((r) => ({
          id: r.id,
          conversationId: r.conversation_id,
          chatbotId: r.chatbot_id,
          seq: Number(r.seq),
          type: r.type as ConversationEventRecord['type'],
          payload: JSON.parse(r.payload),
          createdAt: r.created_at,
        }));
      },
    },
  };
}
