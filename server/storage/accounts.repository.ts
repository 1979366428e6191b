import type { Kysely } from 'kysely';
import type { AccountRecord, Plan, Store, UserRecord } from '../domain/ports.js';
import type { Role } from '../../shared/scopes.js';
import type { Account, Database, User } from './tables.js';

export const toAccount = (r: Account): AccountRecord => ({
  id: r.id,
  name: r.name,
  plan: {
    name: r.plan_name,
    maxChatbots: r.max_chatbots,
    maxPages: r.max_pages,
    webhooks: !!r.webhooks_enabled,
    analytics: !!r.analytics_enabled,
    brandingRemoval: !!r.branding_removal,
    active: !!r.active,
  },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const planColumns = (p: Partial<Plan>) => ({
  ...(p.name !== undefined && { plan_name: p.name }),
  ...(p.maxChatbots !== undefined && { max_chatbots: p.maxChatbots }),
  ...(p.maxPages !== undefined && { max_pages: p.maxPages }),
  ...(p.webhooks !== undefined && { webhooks_enabled: +p.webhooks }),
  ...(p.analytics !== undefined && { analytics_enabled: +p.analytics }),
  ...(p.brandingRemoval !== undefined && { branding_removal: +p.brandingRemoval }),
  ...(p.active !== undefined && { active: +p.active }),
});

export const accountsRepository = (db: Kysely<Database>): Store['accounts'] => ({
  async insert(a) {
    await db
      .insertInto('accounts')
      .values({
        id: a.id,
        name: a.name,
        plan_name: a.plan.name,
        max_chatbots: a.plan.maxChatbots,
        max_pages: a.plan.maxPages,
        webhooks_enabled: +a.plan.webhooks,
        analytics_enabled: +a.plan.analytics,
        branding_removal: +a.plan.brandingRemoval,
        active: +a.plan.active,
        created_at: a.createdAt,
        updated_at: a.updatedAt,
      })
      .execute();
  },
  async get(id) {
    const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toAccount(row) : null;
  },
  async list() {
    const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toAccount);
  },
  async update(id, patch, at) {
    await db
      .updateTable('accounts')
      .set({ ...(patch.name !== undefined && { name: patch.name }), ...planColumns(patch.plan ?? {}), updated_at: at })
      .where('id', '=', id)
      .execute();
  },
});

export const toUser = (r: User): UserRecord => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  name: r.name,
  role: r.role as Role,
  createdAt: r.created_at,
});

export const usersRepository = (db: Kysely<Database>): Store['users'] => ({
  async insert(u) {
    await db
      .insertInto('users')
      .values({
        id: u.id,
        account_id: u.accountId,
        email: u.email,
        name: u.name,
        role: u.role,
        created_at: u.createdAt,
      })
      .execute();
  },
  async get(id) {
    const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toUser(row) : null;
  },
  async owner(accountId) {
    const row = await db
      .selectFrom('users')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('role', '=', 'owner')
      .orderBy('created_at')
      .executeTakeFirst();
    return row ? toUser(row) : null;
  },
  async byEmail(accountId, email) {
    const row = await db
      .selectFrom('users')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('email', '=', email.trim().toLowerCase())
      .executeTakeFirst();
    return row ? toUser(row) : null;
  },
});
