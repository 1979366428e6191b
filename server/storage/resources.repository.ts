/** The owner's resources (domain/resources/ports.ts) over kysely, for SQLite and PostgreSQL. */
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Role } from '../../shared/scopes.js';
import type {
  CustomResponseRecord,
  DirectiveRecord,
  DirectiveStore,
  KnowledgeGapRecord,
  LeadRecord,
  MemberRecord,
  PromptRecord,
  PromptStore,
  ResourcesStore,
  TagRecord,
} from '../domain/resources/ports.js';
import { toUser } from './accounts.repository.js';
import type { Dialect } from './dialects/dialect.js';
import { keysetPage } from './keyset.js';
import type { Database } from './tables.js';

type Row<T extends keyof Database> = Selectable<Database[T]>;

const count = (row: { n: number | string | bigint } | undefined) => Number(row?.n ?? 0);

/** The tables of a chatbot's resources: each row has an `id` and belongs to one `chatbot_id`. */
type OwnedTable =
  'starters' | 'followups' | 'instructions' | 'personas' | 'custom_responses' | 'tags' | 'leads' | 'knowledge_gaps';

// Kysely types a query on one named table; these helpers read only `id` and `chatbot_id`, which all have.
const owned = (db: Kysely<Database>, table: OwnedTable, chatbotId: string) =>
  db
    .selectFrom(table as 'tags')
    .selectAll()
    .where('chatbot_id', '=', chatbotId);

/** One row of a chatbot's by id, mapped (null when absent, or another chatbot's). */
async function getOne<T extends OwnedTable, R>(
  db: Kysely<Database>,
  table: T,
  map: (row: Row<T>) => R,
  chatbotId: string,
  id: string,
): Promise<R | null> {
  const row = await owned(db, table, chatbotId).where('id', '=', id).executeTakeFirst();
  return row ? map(row as unknown as Row<T>) : null;
}

/** A chatbot's rows of `table` in `order` (columns, each ascending unless `desc`), mapped. */
async function listOf<T extends OwnedTable, R>(
  db: Kysely<Database>,
  table: T,
  map: (row: Row<T>) => R,
  chatbotId: string,
  order: [column: keyof Row<T> & string, direction?: 'desc'][],
): Promise<R[]> {
  let query = owned(db, table, chatbotId);
  for (const [column, direction] of order) query = query.orderBy(sql.ref(column), direction ?? 'asc');
  return (await query.execute()).map((row) => map(row as unknown as Row<T>));
}

/** Newest first, the id breaking ties (rows made in the same millisecond). */
const NEWEST: [column: 'created_at' | 'id', direction: 'desc'][] = [
  ['created_at', 'desc'],
  ['id', 'desc'],
];

/**
 * Row `id` of `table` takes the fields `patch` gives (a field left undefined keeps its value),
 * each in the column `columns` names, and `updated_at`.
 */
async function updateRow<P extends object>(
  db: Kysely<Database>,
  table: OwnedTable,
  id: string,
  patch: P,
  columns: { [K in keyof P]-?: string },
  at: string,
): Promise<void> {
  const set: Record<string, unknown> = { updated_at: at };
  for (const field of Object.keys(columns) as (keyof P)[]) {
    if (patch[field] !== undefined) set[columns[field]] = patch[field];
  }
  await db
    .updateTable(table as 'tags')
    .set(set)
    .where('id', '=', id)
    .execute();
}

/** How many rows a chatbot has in `table`. */
async function countOf(db: Kysely<Database>, table: OwnedTable, chatbotId: string): Promise<number> {
  return count(
    await db
      .selectFrom(table as 'tags')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('chatbot_id', '=', chatbotId)
      .executeTakeFirst(),
  );
}

const toPrompt = (r: Row<'starters'>): PromptRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  title: r.title,
  description: r.description,
  link: r.link,
  isEscalationPrompt: !!r.is_escalation_prompt,
  position: Number(r.position),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

function promptStore(db: Kysely<Database>, table: 'starters' | 'followups'): PromptStore {
  // Both tables share one shape; kysely needs one of them named to type the queries.
  const t = table as 'starters';
  return {
    list: (chatbotId) => listOf(db, t, toPrompt, chatbotId, [['position'], ['created_at'], ['id']]),
    get: (chatbotId, id) => getOne(db, t, toPrompt, chatbotId, id),
    count: (chatbotId) => countOf(db, t, chatbotId),
    async maxPosition(chatbotId) {
      const row = await db
        .selectFrom(t)
        .select((eb) => eb.fn.max('position').as('m'))
        .where('chatbot_id', '=', chatbotId)
        .executeTakeFirst();
      return row?.m === null || row?.m === undefined ? null : Number(row.m);
    },
    async insert(p) {
      await db
        .insertInto(t)
        .values({
          id: p.id,
          chatbot_id: p.chatbotId,
          title: p.title,
          description: p.description,
          link: p.link,
          is_escalation_prompt: +p.isEscalationPrompt,
          position: p.position,
          created_at: p.createdAt,
          updated_at: p.updatedAt,
        })
        .execute();
    },
    update: (id, patch, at) =>
      updateRow(
        db,
        t,
        id,
        {
          ...patch,
          isEscalationPrompt: patch.isEscalationPrompt === undefined ? undefined : +patch.isEscalationPrompt,
        },
        {
          title: 'title',
          description: 'description',
          link: 'link',
          isEscalationPrompt: 'is_escalation_prompt',
          position: 'position',
        },
        at,
      ),
    async clearEscalation(chatbotId, exceptId, at) {
      await db
        .updateTable(t)
        .set({ is_escalation_prompt: 0, updated_at: at })
        .where('chatbot_id', '=', chatbotId)
        .where('id', '!=', exceptId)
        .where('is_escalation_prompt', '!=', 0)
        .execute();
    },
    async delete(id) {
      await db.deleteFrom(t).where('id', '=', id).execute();
    },
  };
}

const toDirective = (r: Row<'instructions'>): DirectiveRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  title: r.title,
  description: r.description,
  instructions: r.instructions,
  temperature: r.temperature === null ? null : Number(r.temperature),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

function directiveStore(db: Kysely<Database>, table: 'instructions' | 'personas'): DirectiveStore {
  const t = table as 'instructions';
  return {
    list: (chatbotId) => listOf(db, t, toDirective, chatbotId, NEWEST),
    get: (chatbotId, id) => getOne(db, t, toDirective, chatbotId, id),
    count: (chatbotId) => countOf(db, t, chatbotId),
    async insert(d) {
      await db
        .insertInto(t)
        .values({
          id: d.id,
          chatbot_id: d.chatbotId,
          title: d.title,
          description: d.description,
          instructions: d.instructions,
          temperature: d.temperature,
          created_at: d.createdAt,
          updated_at: d.updatedAt,
        })
        .execute();
    },
    update: (id, patch, at) =>
      updateRow(
        db,
        t,
        id,
        patch,
        { title: 'title', description: 'description', instructions: 'instructions', temperature: 'temperature' },
        at,
      ),
    async delete(id) {
      await db.deleteFrom(t).where('id', '=', id).execute();
    },
  };
}

const toCustomResponse = (r: Row<'custom_responses'>): CustomResponseRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  question: r.question,
  answer: r.answer,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toTag = (r: Row<'tags'>): TagRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  name: r.name,
  color: r.color,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toMember = (r: Row<'chatbot_members'>): MemberRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  userId: r.user_id,
  role: r.role as Role,
  invitedById: r.invited_by_id,
  createdAt: r.created_at,
});

const toLead = (r: Row<'leads'>): LeadRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  conversationId: r.conversation_id,
  chatUserId: r.chat_user_id,
  name: r.name,
  email: r.email,
  phone: r.phone,
  customFields: JSON.parse(r.custom_fields) as LeadRecord['customFields'],
  source: r.source,
  createdAt: r.created_at,
});

const toGap = (r: Row<'knowledge_gaps'>): KnowledgeGapRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  conversationId: r.conversation_id,
  messageId: r.message_id,
  question: r.question,
  customResponseId: r.custom_response_id,
  answeredAt: r.answered_at,
  createdAt: r.created_at,
});

/** Member rows joined with their users: user columns under a `u_` prefix. */
function membersWithUsers(db: Kysely<Database>) {
  return db
    .selectFrom('chatbot_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .selectAll('m')
    .select([
      'u.account_id as u_account_id',
      'u.email as u_email',
      'u.name as u_name',
      'u.role as u_role',
      'u.created_at as u_created_at',
    ]);
}

type MemberJoinRow = Row<'chatbot_members'> & {
  u_account_id: string;
  u_email: string;
  u_name: string | null;
  u_role: string;
  u_created_at: string;
};

const toMemberWithUser = (r: MemberJoinRow) => ({
  member: toMember(r),
  user: toUser({
    id: r.user_id,
    account_id: r.u_account_id,
    email: r.u_email,
    name: r.u_name,
    role: r.u_role,
    created_at: r.u_created_at,
  }),
});

export function resourcesRepository(db: Kysely<Database>, dialect: Dialect): ResourcesStore {
  return {
    starters: promptStore(db, 'starters'),
    followups: promptStore(db, 'followups'),
    instructions: directiveStore(db, 'instructions'),
    personas: directiveStore(db, 'personas'),

    customResponses: {
      page(chatbotId, page) {
        return keysetPage(
          db.selectFrom('custom_responses').selectAll().where('chatbot_id', '=', chatbotId),
          page,
          toCustomResponse,
          'custom_responses',
        );
      },
      all: (chatbotId) => listOf(db, 'custom_responses', toCustomResponse, chatbotId, NEWEST),
      get: (chatbotId, id) => getOne(db, 'custom_responses', toCustomResponse, chatbotId, id),
      async insert(r) {
        await db
          .insertInto('custom_responses')
          .values({
            id: r.id,
            chatbot_id: r.chatbotId,
            question: r.question,
            answer: r.answer,
            created_at: r.createdAt,
            updated_at: r.updatedAt,
          })
          .execute();
      },
      update: (id, patch, at) =>
        updateRow(db, 'custom_responses', id, patch, { question: 'question', answer: 'answer' }, at),
      async delete(id) {
        await db.deleteFrom('custom_responses').where('id', '=', id).execute();
      },
    },

    tags: {
      list: (chatbotId) => listOf(db, 'tags', toTag, chatbotId, [['name'], ['id']]),
      get: (chatbotId, id) => getOne(db, 'tags', toTag, chatbotId, id),
      async byName(chatbotId, name) {
        const row = await db
          .selectFrom('tags')
          .selectAll()
          .where('chatbot_id', '=', chatbotId)
          .where(sql<string>`lower(name)`, '=', name.toLowerCase())
          .executeTakeFirst();
        return row ? toTag(row) : null;
      },
      count: (chatbotId) => countOf(db, 'tags', chatbotId),
      async conversationCounts(tagIds) {
        const out = new Map<string, number>();
        if (!tagIds.length) return out;
        const rows = await db
          .selectFrom('conversation_tags')
          .select(['tag_id', (eb) => eb.fn.countAll<number>().as('n')])
          .where('tag_id', 'in', tagIds)
          .groupBy('tag_id')
          .execute();
        for (const r of rows) out.set(r.tag_id, Number(r.n));
        return out;
      },
      async insert(tag) {
        try {
          await db
            .insertInto('tags')
            .values({
              id: tag.id,
              chatbot_id: tag.chatbotId,
              name: tag.name,
              color: tag.color,
              created_at: tag.createdAt,
              updated_at: tag.updatedAt,
            })
            .execute();
          return true;
        } catch (err) {
          if (dialect.isUniqueViolation(err)) return false;
          throw err;
        }
      },
      async update(id, patch, at) {
        try {
          await updateRow(db, 'tags', id, patch, { name: 'name', color: 'color' }, at);
          return true;
        } catch (err) {
          if (dialect.isUniqueViolation(err)) return false;
          throw err;
        }
      },
      async delete(id) {
        // The foreign key cascades too; said here so it holds whatever the pragma.
        await db.deleteFrom('conversation_tags').where('tag_id', '=', id).execute();
        await db.deleteFrom('tags').where('id', '=', id).execute();
      },
    },

    members: {
      async list(chatbotId) {
        const rows = await membersWithUsers(db)
          .where('m.chatbot_id', '=', chatbotId)
          .orderBy('m.created_at', 'desc')
          .orderBy('m.id', 'desc')
          .execute();
        return rows.map((r) => toMemberWithUser(r as MemberJoinRow));
      },
      async get(chatbotId, id) {
        const row = await membersWithUsers(db)
          .where('m.chatbot_id', '=', chatbotId)
          .where('m.id', '=', id)
          .executeTakeFirst();
        return row ? toMemberWithUser(row as MemberJoinRow) : null;
      },
      async byUser(chatbotId, userId) {
        const row = await db
          .selectFrom('chatbot_members')
          .selectAll()
          .where('chatbot_id', '=', chatbotId)
          .where('user_id', '=', userId)
          .executeTakeFirst();
        return row ? toMember(row) : null;
      },
      async insert(m) {
        await db
          .insertInto('chatbot_members')
          .values({
            id: m.id,
            chatbot_id: m.chatbotId,
            user_id: m.userId,
            role: m.role,
            invited_by_id: m.invitedById,
            created_at: m.createdAt,
          })
          .execute();
      },
      async delete(id) {
        await db.deleteFrom('chatbot_members').where('id', '=', id).execute();
      },
      async userByEmail(accountId, email) {
        const row = await db
          .selectFrom('users')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('email', '=', email.toLowerCase())
          .executeTakeFirst();
        return row ? toUser(row) : null;
      },
      async setUserRole(userId, role) {
        await db.updateTable('users').set({ role }).where('id', '=', userId).execute();
        await db.updateTable('chatbot_members').set({ role }).where('user_id', '=', userId).execute();
      },
      async setUserName(userId, name) {
        await db.updateTable('users').set({ name }).where('id', '=', userId).execute();
      },
    },

    leads: {
      page(chatbotId, page, filter) {
        let q = db.selectFrom('leads').selectAll().where('chatbot_id', '=', chatbotId);
        if (filter.from) q = q.where('created_at', '>=', filter.from);
        if (filter.to) q = q.where('created_at', '<', filter.to);
        return keysetPage(q, page, toLead, 'leads');
      },
      get: (chatbotId, id) => getOne(db, 'leads', toLead, chatbotId, id),
      async many(chatbotId, ids) {
        if (!ids.length) return [];
        const rows = await db
          .selectFrom('leads')
          .selectAll()
          .where('chatbot_id', '=', chatbotId)
          .where('id', 'in', ids)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .execute();
        return rows.map(toLead);
      },
      async insert(l) {
        await db
          .insertInto('leads')
          .values({
            id: l.id,
            chatbot_id: l.chatbotId,
            conversation_id: l.conversationId,
            chat_user_id: l.chatUserId,
            name: l.name,
            email: l.email,
            phone: l.phone,
            custom_fields: JSON.stringify(l.customFields),
            source: l.source,
            created_at: l.createdAt,
          })
          .execute();
      },
      async delete(ids) {
        if (ids.length) await db.deleteFrom('leads').where('id', 'in', ids).execute();
      },
    },

    knowledgeGaps: {
      page(chatbotId, page, filter) {
        let q = db.selectFrom('knowledge_gaps').selectAll().where('chatbot_id', '=', chatbotId);
        if (filter.answered === true) q = q.where('answered_at', 'is not', null);
        if (filter.answered === false) q = q.where('answered_at', 'is', null);
        return keysetPage(q, page, toGap, 'knowledge_gaps');
      },
      get: (chatbotId, id) => getOne(db, 'knowledge_gaps', toGap, chatbotId, id),
      async insert(g) {
        await db
          .insertInto('knowledge_gaps')
          .values({
            id: g.id,
            chatbot_id: g.chatbotId,
            conversation_id: g.conversationId,
            message_id: g.messageId,
            question: g.question,
            custom_response_id: g.customResponseId,
            answered_at: g.answeredAt,
            created_at: g.createdAt,
          })
          .execute();
      },
      async markAnswered(id, customResponseId, at, was) {
        const r = await db
          .updateTable('knowledge_gaps')
          .set({ custom_response_id: customResponseId, answered_at: at })
          .where('id', '=', id)
          .where('custom_response_id', was === null ? 'is' : '=', was)
          .executeTakeFirst();
        return Number(r.numUpdatedRows) === 1;
      },
      async delete(id) {
        await db.deleteFrom('knowledge_gaps').where('id', '=', id).execute();
      },
    },
  };
}
