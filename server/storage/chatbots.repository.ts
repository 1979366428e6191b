import { type Kysely, sql } from 'kysely';
import type { ChatbotRecord, IconRecord, Store } from '../domain/ports.js';
import { compileOnce } from './compile-once.js';
import { keysetPage } from './keyset.js';
import type { ChatbotRow, Database } from './tables.js';

const toChatbot = (r: ChatbotRow): ChatbotRecord => ({
  id: r.id,
  accountId: r.account_id,
  createdById: r.created_by_id,
  title: r.title,
  description: r.description,
  settings: JSON.parse(r.settings) as Record<string, unknown>,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Read on every chatbot route: compiled once. */
const chatbotById = compileOnce((db) => db.selectFrom('chatbots').selectAll().where('id', '=', '<id>'));

export const chatbotsRepository = (db: Kysely<Database>): Store['chatbots'] => ({
  async insert(c) {
    await db
      .insertInto('chatbots')
      .values({
        id: c.id,
        account_id: c.accountId,
        created_by_id: c.createdById,
        title: c.title,
        description: c.description,
        settings: JSON.stringify(c.settings),
        created_at: c.createdAt,
        updated_at: c.updatedAt,
      })
      .execute();
  },
  async get(id) {
    const row = await chatbotById(db, id);
    return row ? toChatbot(row) : null;
  },
  page(accountId, page, only) {
    let q = db.selectFrom('chatbots').selectAll().where('account_id', '=', accountId);
    if (only) q = only.length ? q.where('id', 'in', only) : q.where(sql<boolean>`1 = 0`);
    return keysetPage(q, page, toChatbot, 'chatbots');
  },
  async memberPage(userId, page, only) {
    // Keyset over the membership (when the user was added), not the chatbot's creation.
    let q = db
      .selectFrom('chatbot_members as m')
      .innerJoin('chatbots as c', 'c.id', 'm.chatbot_id')
      .selectAll('c')
      .select(['m.created_at as m_created_at', 'm.id as m_id'])
      .where('m.user_id', '=', userId);
    if (only) q = only.length ? q.where('c.id', 'in', only) : q.where(sql<boolean>`1 = 0`);
    if (page.after) {
      const { createdAt, id } = page.after;
      q = q.where((eb) =>
        eb.or([eb('m.created_at', '<', createdAt), eb.and([eb('m.created_at', '=', createdAt), eb('m.id', '<', id)])]),
      );
    }
    const rows = await q
      .orderBy('m.created_at', 'desc')
      .orderBy('m.id', 'desc')
      .limit(page.limit + 1)
      .execute();
    const items = rows.slice(0, page.limit);
    const last = items.at(-1);
    return {
      items: items.map(toChatbot),
      next: rows.length > page.limit && last ? { createdAt: last.m_created_at, id: last.m_id } : null,
    };
  },
  async count(accountId) {
    const row = await db
      .selectFrom('chatbots')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
  async update(id, patch, at) {
    await db
      .updateTable('chatbots')
      .set({
        ...(patch.title !== undefined && { title: patch.title }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.settings !== undefined && { settings: JSON.stringify(patch.settings) }),
        updated_at: at,
      })
      .where('id', '=', id)
      .execute();
  },
  async delete(id) {
    await db.deleteFrom('chatbots').where('id', '=', id).execute();
  },
});

const toIcon = (r: {
  id: string;
  chatbot_id: string;
  type: string;
  mime: string;
  size: number;
  created_at: string;
}): IconRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  type: r.type,
  mime: r.mime,
  size: r.size,
  createdAt: r.created_at,
});

export const iconsRepository = (db: Kysely<Database>): Store['icons'] => ({
  async insert(i, bytes) {
    await db
      .insertInto('icons')
      .values({
        id: i.id,
        chatbot_id: i.chatbotId,
        type: i.type,
        mime: i.mime,
        size: i.size,
        bytes,
        created_at: i.createdAt,
      })
      .execute();
  },
  async get(id) {
    const row = await db.selectFrom('icons').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? { ...toIcon(row), bytes: Buffer.from(row.bytes) } : null;
  },
  async ofType(chatbotId, type) {
    const rows = await db
      .selectFrom('icons')
      .select(['id', 'chatbot_id', 'type', 'mime', 'size', 'created_at'])
      .where('chatbot_id', '=', chatbotId)
      .where('type', '=', type)
      .execute();
    return rows.map(toIcon);
  },
  async delete(ids) {
    if (ids.length) await db.deleteFrom('icons').where('id', 'in', ids).execute();
  },
});
