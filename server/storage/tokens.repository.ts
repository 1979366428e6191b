import type { Kysely } from 'kysely';
import type { Store, TokenKind, TokenRecord } from '../domain/ports.js';
import type { Scope, TokenAccess } from '../../shared/scopes.js';
import { toAccount, toUser } from './accounts.repository.js';
import { compileOnce } from './compile-once.js';
import { keysetPage } from './keyset.js';
import type { Database, TokenRow } from './tables.js';

const toToken = (r: TokenRow): TokenRecord => ({
  id: r.id,
  accountId: r.account_id,
  userId: r.user_id,
  kind: r.kind as TokenKind,
  name: r.name,
  access: r.access as TokenAccess,
  scopes: JSON.parse(r.scopes) as Scope[],
  chatbotIds: r.chatbot_ids === null ? null : (JSON.parse(r.chatbot_ids) as string[]),
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

/** Every authenticated request needs these three rows: one read instead of three. */
const tokenWithOwner = compileOnce((db) =>
  db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .innerJoin('accounts', 'accounts.id', 'tokens.account_id')
    .selectAll('tokens')
    .select([
      'users.account_id as user_account_id',
      'users.email as user_email',
      'users.name as user_name',
      'users.role as user_role',
      'users.created_at as user_created_at',
      'accounts.name as account_name',
      'accounts.plan_name as account_plan_name',
      'accounts.max_chatbots as account_max_chatbots',
      'accounts.max_pages as account_max_pages',
      'accounts.webhooks_enabled as account_webhooks_enabled',
      'accounts.analytics_enabled as account_analytics_enabled',
      'accounts.branding_removal as account_branding_removal',
      'accounts.active as account_active',
      'accounts.created_at as account_created_at',
      'accounts.updated_at as account_updated_at',
    ])
    .where('tokens.token_hash', '=', '<hash>'),
);

export const tokensRepository = (db: Kysely<Database>): Store['tokens'] => ({
  async insert(t, hash) {
    await db
      .insertInto('tokens')
      .values({
        id: t.id,
        account_id: t.accountId,
        user_id: t.userId,
        kind: t.kind,
        name: t.name,
        token_hash: hash,
        access: t.access,
        scopes: JSON.stringify(t.scopes),
        chatbot_ids: t.chatbotIds === null ? null : JSON.stringify(t.chatbotIds),
        created_at: t.createdAt,
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
  },
  async byHash(hash) {
    const row = await db.selectFrom('tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
    return row ? toToken(row) : null;
  },
  async withOwner(hash) {
    const row = await tokenWithOwner(db, hash);
    if (!row) return null;
    return {
      token: toToken(row),
      user: toUser({
        id: row.user_id,
        account_id: row.user_account_id,
        email: row.user_email,
        name: row.user_name,
        role: row.user_role,
        created_at: row.user_created_at,
      }),
      account: toAccount({
        id: row.account_id,
        name: row.account_name,
        plan_name: row.account_plan_name,
        max_chatbots: row.account_max_chatbots,
        max_pages: row.account_max_pages,
        webhooks_enabled: row.account_webhooks_enabled,
        analytics_enabled: row.account_analytics_enabled,
        branding_removal: row.account_branding_removal,
        active: row.account_active,
        created_at: row.account_created_at,
        updated_at: row.account_updated_at,
      }),
    };
  },
  async get(accountId, id) {
    const row = await db
      .selectFrom('tokens')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toToken(row) : null;
  },
  page(accountId, page, userId) {
    let q = db.selectFrom('tokens').selectAll().where('account_id', '=', accountId).where('kind', '=', 'api');
    if (userId) q = q.where('user_id', '=', userId);
    return keysetPage(q, page, toToken, 'tokens');
  },
  async listAll(accountId) {
    let q = db.selectFrom('tokens').selectAll();
    if (accountId) q = q.where('account_id', '=', accountId);
    return (await q.orderBy('created_at', 'desc').orderBy('id', 'desc').execute()).map(toToken);
  },
  async revoke(id, at) {
    await db
      .updateTable('tokens')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  },
  async touch(id, at) {
    await db.updateTable('tokens').set({ last_used_at: at }).where('id', '=', id).execute();
  },
});
