import type { Kysely } from 'kysely';
import type { Store, TokenKind, TokenRecord } from '../domain/ports.js';
import type { Scope, TokenAccess } from '../../shared/scopes.js';
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
  async get(accountId, id) {
    const row = await db.selectFrom('tokens').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return row ? toToken(row) : null;
  },
  page(accountId, page) {
    return keysetPage(
      db.selectFrom('tokens').selectAll().where('account_id', '=', accountId).where('kind', '=', 'api'),
      page,
      toToken,
      'tokens',
    );
  },
  async listAll(accountId) {
    let q = db.selectFrom('tokens').selectAll();
    if (accountId) q = q.where('account_id', '=', accountId);
    return (await q.orderBy('created_at', 'desc').orderBy('id', 'desc').execute()).map(toToken);
  },
  async revoke(id, at) {
    await db.updateTable('tokens').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  },
  async touch(id, at) {
    await db.updateTable('tokens').set({ last_used_at: at }).where('id', '=', id).execute();
  },
});
