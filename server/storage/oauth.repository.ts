/** The device flow's and the sign-in's tables (migration 0019), registered clients and authorization codes (0030). */
import { type Kysely, sql } from 'kysely';
import type { Scope } from '../../shared/scopes.js';
import type {
  AuthorizationCodeRecord,
  DeviceCodeRecord,
  DeviceCodeStatus,
  OAuthClientRecord,
  OAuthStore,
} from '../domain/oauth/ports.js';
import type { Database, OAuthDatabase } from './tables.js';

type DeviceRow = OAuthDatabase['oauth_device_codes'];

const toDeviceCode = (r: DeviceRow): DeviceCodeRecord => ({
  id: r.id,
  clientId: r.client_id,
  scopes: r.scopes === null ? null : (JSON.parse(r.scopes) as Scope[]),
  chatbotIds: r.chatbot_ids === null ? null : (JSON.parse(r.chatbot_ids) as string[]),
  status: r.status as DeviceCodeStatus,
  userId: r.user_id,
  intervalSeconds: Number(r.interval_seconds),
  lastPolledAt: r.last_polled_at,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  tokenId: r.token_id,
});

type ClientRow = OAuthDatabase['oauth_clients'];
type CodeRow = OAuthDatabase['oauth_authorization_codes'];

const toClient = (r: ClientRow): OAuthClientRecord => ({
  clientId: r.client_id,
  clientName: r.client_name,
  redirectUris: JSON.parse(r.redirect_uris) as string[],
  clientUri: r.client_uri,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

const toCode = (r: CodeRow): AuthorizationCodeRecord => ({
  id: r.id,
  clientId: r.client_id,
  userId: r.user_id,
  redirectUri: r.redirect_uri,
  codeChallenge: r.code_challenge,
  scopes: JSON.parse(r.scopes) as Scope[],
  resource: r.resource,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  usedAt: r.used_at,
  tokenId: r.token_id,
});

export const oauthRepository = (k: Kysely<Database>): OAuthStore => {
  return {
    deviceCodes: {
      async insert(r, deviceCodeHash, userCodeHash) {
        await k
          .insertInto('oauth_device_codes')
          .values({
            id: r.id,
            device_code_hash: deviceCodeHash,
            user_code_hash: userCodeHash,
            client_id: r.clientId,
            scopes: r.scopes === null ? null : JSON.stringify(r.scopes),
            chatbot_ids: r.chatbotIds === null ? null : JSON.stringify(r.chatbotIds),
            status: r.status,
            user_id: r.userId,
            interval_seconds: r.intervalSeconds,
            last_polled_at: r.lastPolledAt,
            expires_at: r.expiresAt,
            created_at: r.createdAt,
            decided_at: null,
            token_id: r.tokenId,
          })
          .execute();
      },
      async byDeviceCode(hash) {
        const row = await k
          .selectFrom('oauth_device_codes')
          .selectAll()
          .where('device_code_hash', '=', hash)
          .executeTakeFirst();
        return row ? toDeviceCode(row) : null;
      },
      async byUserCode(hash, now) {
        const row = await k
          .selectFrom('oauth_device_codes')
          .selectAll()
          .where('user_code_hash', '=', hash)
          .where('expires_at', '>', now)
          .orderBy('created_at', 'desc')
          .limit(1)
          .executeTakeFirst();
        return row ? toDeviceCode(row) : null;
      },
      async recordPoll(id, at, notAfter) {
        const res = await k
          .updateTable('oauth_device_codes')
          .set({ last_polled_at: at })
          .where('id', '=', id)
          .where((eb) => eb.or([eb('last_polled_at', 'is', null), eb('last_polled_at', '<=', notAfter)]))
          .executeTakeFirst();
        return Number(res.numUpdatedRows) === 1;
      },
      async slowDown(id, seconds) {
        const row = await k
          .updateTable('oauth_device_codes')
          .set({ interval_seconds: sql<number>`interval_seconds + ${seconds}` })
          .where('id', '=', id)
          .returning(['interval_seconds', 'last_polled_at'])
          .executeTakeFirst();
        return row ? { intervalSeconds: Number(row.interval_seconds), lastPolledAt: row.last_polled_at } : null;
      },
      async decide(id, status, userId, at) {
        const res = await k
          .updateTable('oauth_device_codes')
          .set({ status, user_id: userId, decided_at: at })
          .where('id', '=', id)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        return Number(res.numUpdatedRows) === 1;
      },
      async claim(id, tokenId) {
        const res = await k
          .updateTable('oauth_device_codes')
          .set({ status: 'issued', token_id: tokenId })
          .where('id', '=', id)
          .where('status', '=', 'approved')
          .executeTakeFirst();
        return Number(res.numUpdatedRows) === 1;
      },
      async purge(before) {
        await k.deleteFrom('oauth_device_codes').where('expires_at', '<', before).execute();
      },
    },
    clients: {
      async insert(r) {
        await k
          .insertInto('oauth_clients')
          .values({
            client_id: r.clientId,
            client_name: r.clientName,
            redirect_uris: JSON.stringify(r.redirectUris),
            client_uri: r.clientUri,
            created_at: r.createdAt,
            last_used_at: r.lastUsedAt,
          })
          .execute();
      },
      async get(clientId) {
        const row = await k
          .selectFrom('oauth_clients')
          .selectAll()
          .where('client_id', '=', clientId)
          .executeTakeFirst();
        return row ? toClient(row) : null;
      },
      async count() {
        const row = await k
          .selectFrom('oauth_clients')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        return Number(row.n);
      },
      async touch(clientId, at) {
        await k.updateTable('oauth_clients').set({ last_used_at: at }).where('client_id', '=', clientId).execute();
      },
      async purgeUnused(before) {
        await k
          .deleteFrom('oauth_clients')
          .where('last_used_at', 'is', null)
          .where('created_at', '<', before)
          .execute();
      },
    },
    authorizationCodes: {
      async insert(r, codeHash) {
        await k
          .insertInto('oauth_authorization_codes')
          .values({
            id: r.id,
            code_hash: codeHash,
            client_id: r.clientId,
            user_id: r.userId,
            redirect_uri: r.redirectUri,
            code_challenge: r.codeChallenge,
            scopes: JSON.stringify(r.scopes),
            resource: r.resource,
            expires_at: r.expiresAt,
            created_at: r.createdAt,
            used_at: r.usedAt,
            token_id: r.tokenId,
          })
          .execute();
      },
      async byCode(hash) {
        const row = await k
          .selectFrom('oauth_authorization_codes')
          .selectAll()
          .where('code_hash', '=', hash)
          .executeTakeFirst();
        return row ? toCode(row) : null;
      },
      async claim(id, at, tokenId) {
        const res = await k
          .updateTable('oauth_authorization_codes')
          .set({ used_at: at, token_id: tokenId })
          .where('id', '=', id)
          .where('used_at', 'is', null)
          .where('expires_at', '>', at)
          .executeTakeFirst();
        return Number(res.numUpdatedRows) === 1;
      },
      async purge(before) {
        await k.deleteFrom('oauth_authorization_codes').where('expires_at', '<', before).execute();
      },
    },
    credentials: {
      async any() {
        return (await k.selectFrom('user_passwords').select('user_id').limit(1).executeTakeFirst()) !== undefined;
      },
      async byEmail(email) {
        const rows = await k
          .selectFrom('user_passwords')
          .innerJoin('users', 'users.id', 'user_passwords.user_id')
          .select(['users.id as user_id', 'users.account_id', 'users.email', 'user_passwords.password_hash'])
          .where(sql`lower(users.email)`, '=', email.toLowerCase())
          .execute();
        return rows.map((r) => ({
          userId: r.user_id,
          accountId: r.account_id,
          email: r.email,
          passwordHash: r.password_hash,
        }));
      },
      async set(userId, passwordHash, at) {
        await k
          .insertInto('user_passwords')
          .values({ user_id: userId, password_hash: passwordHash, updated_at: at })
          .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash: passwordHash, updated_at: at }))
          .execute();
        // A new password ends every session signed in with the old one.
        await k.deleteFrom('owner_sessions').where('user_id', '=', userId).execute();
      },
    },
    sessions: {
      async insert(hash, userId, createdAt, expiresAt) {
        await k.deleteFrom('owner_sessions').where('expires_at', '<=', createdAt).execute();
        await k
          .insertInto('owner_sessions')
          .values({ session_hash: hash, user_id: userId, created_at: createdAt, expires_at: expiresAt })
          .execute();
      },
      async live(hash, now, idleSince) {
        const row = await k
          .selectFrom('owner_sessions')
          .select(['user_id', 'created_at', 'last_seen_at'])
          .where('session_hash', '=', hash)
          .where('expires_at', '>', now)
          .executeTakeFirst();
        if (!row) return null;
        const lastSeenAt = row.last_seen_at ?? row.created_at;
        return lastSeenAt > idleSince ? { userId: row.user_id, createdAt: row.created_at, lastSeenAt } : null;
      },
      async touch(hash, at) {
        await k.updateTable('owner_sessions').set({ last_seen_at: at }).where('session_hash', '=', hash).execute();
      },
      async remove(hash) {
        await k.deleteFrom('owner_sessions').where('session_hash', '=', hash).execute();
      },
      async removeUser(userId) {
        await k.deleteFrom('owner_sessions').where('user_id', '=', userId).execute();
      },
    },
    throttle: {
      async get(key) {
        const row = await k.selectFrom('auth_throttle').selectAll().where('key', '=', key).executeTakeFirst();
        return row ? { failures: Number(row.failures), windowStartedAt: row.window_started_at } : null;
      },
      async fail(key, at, windowStart) {
        // One statement: concurrent failures all count (each sees its own count), and an old window restarts at `at`.
        const row = await k
          .insertInto('auth_throttle')
          .values({ key, failures: 1, window_started_at: at })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet({
              failures: sql<number>`case when auth_throttle.window_started_at <= ${windowStart} then 1 else auth_throttle.failures + 1 end`,
              window_started_at: sql<string>`case when auth_throttle.window_started_at <= ${windowStart} then ${at} else auth_throttle.window_started_at end`,
            }),
          )
          .returning(['failures', 'window_started_at'])
          .executeTakeFirstOrThrow();
        return { failures: Number(row.failures), windowStartedAt: row.window_started_at };
      },
      async clear(key) {
        await k.deleteFrom('auth_throttle').where('key', '=', key).execute();
      },
      async purge(before) {
        await k.deleteFrom('auth_throttle').where('window_started_at', '<', before).execute();
      },
    },
  };
};
