/**
 * Shared pieces of the owner's-resource route tests (starters, follow-ups, instructions,
 * personas, custom responses, tags, members, leads, knowledge gaps): fresh accounts, row counts,
 * tokens of invited users, and `describeRouteErrors`, which puts every route of a file through
 * the errors every route can answer (401s, 403s, 404 for other chatbots and accounts, 405, and
 * for routes with a body 400 INVALID_JSON, 413 and 415).
 */
import { describe, expect, test } from 'vitest';
import { SCOPES, type Role, type Scope } from '../../shared/scopes.js';
import { newId } from '../../server/domain/ids.js';
import type { Database } from '../../server/storage/tables.js';
import type { TestApp } from './app.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteCase {
  method: Method;
  /** The path for a chatbot id (item ids of that chatbot may be baked in). */
  path: (chatbotId: string) => string;
  scopes: Scope[];
  /** A valid body, for routes that take one. */
  body?: unknown;
}

export const JSON_HEADERS = { 'content-type': 'application/json' };

/** A fresh account, a full token of its owner and one chatbot in it. */
export async function freshAccount(
  t: TestApp,
  title = 'bot',
): Promise<{ accountId: string; token: string; chatbotId: string }> {
  const { account } = await t.app.services.accounts.create(`${newId()}@x.test`);
  const { token } = await t.token({ access: 'full' }, account.id);
  return { accountId: account.id, token, chatbotId: await createChatbot(t, token, title) };
}

export async function createChatbot(t: TestApp, token: string, title = 'bot'): Promise<string> {
  const res = await t.call('POST', '/api/v2/chatbots', token, { title });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.chatbot.id as string;
}

/**
 * Resolves once the clock has passed `iso` (a stored createdAt): rows made in the same millisecond
 * have no "newest" between them, so a test of that order makes the next one a millisecond later.
 */
export async function afterMillisecond(iso: string): Promise<void> {
  while (new Date().toISOString() <= iso) await new Promise((r) => setTimeout(r, 1));
}

/** Rows of a table (of one chatbot when given). */
export async function rowCount(t: TestApp, table: keyof Database & string, chatbotId?: string): Promise<number> {
  let q = t.database.db.selectFrom(table as 'leads').select((eb) => eb.fn.countAll<number>().as('n'));
  if (chatbotId) q = q.where('chatbot_id', '=', chatbotId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** A user of the account with this role (created directly) and a full token of theirs. */
export async function userWithToken(t: TestApp, accountId: string, role: Role, email = `${newId()}@x.test`) {
  const user = {
    id: newId(),
    accountId,
    email: email.toLowerCase(),
    name: null,
    role,
    createdAt: new Date().toISOString(),
  };
  await t.app.services.store.users.insert(user);
  const created = await t.app.services.tokens.create(user, { access: 'full' });
  return { user, token: created.token };
}

/** A token of the user with this e-mail in the account. */
export async function tokenOf(t: TestApp, accountId: string, email: string, input: { chatbotIds?: string[] } = {}) {
  const user = await t.app.services.store.resources.members.userByEmail(accountId, email);
  if (!user) throw new Error(`no user ${email}`);
  return (await t.app.services.tokens.create(user, { access: 'full', ...input })).token;
}

export function expectError(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.ok).toBe(false);
  expect(res.body.error.code).toBe(code);
}

/**
 * The errors every route of `routes()` can answer, one test per error: called inside a file's
 * top level; `routes` is evaluated inside the tests (after beforeAll made the ids).
 */
export function describeRouteErrors(
  label: string,
  ctx: () => { t: TestApp; token: string; chatbotId: string; routes: RouteCase[] },
) {
  describe(`${label}: errors every route answers`, () => {
    const each = async (fn: (r: RouteCase, c: ReturnType<typeof ctx>) => Promise<void>) => {
      const c = ctx();
      expect(c.routes.length).toBeGreaterThan(0);
      for (const r of c.routes) await fn(r, c);
    };
    const call = (
      c: ReturnType<typeof ctx>,
      r: RouteCase,
      chatbotId: string,
      token: string | null,
      headers: Record<string, string> = {},
    ) =>
      c.t.call(
        r.method,
        `/api/v2${r.path(chatbotId)}`,
        token,
        r.body,
        r.body === undefined ? headers : { ...JSON_HEADERS, ...headers },
      );
    const where = (r: RouteCase) => `${r.method} ${r.path(':chatbotId')}`;

    test('401 AUTHORIZATION_HEADER_REQUIRED without a token', () =>
      each(async (r, c) => {
        const res = await call(c, r, c.chatbotId, null);
        expect([res.status, res.body.error?.code], where(r)).toEqual([401, 'AUTHORIZATION_HEADER_REQUIRED']);
        expect(res.headers['www-authenticate'], where(r)).toContain('resource_metadata=');
      }));

    test('401 AUTHORIZATION_HEADER_NOT_VALID for a header that is not "Bearer <token>"', () =>
      each(async (r, c) => {
        const res = await call(c, r, c.chatbotId, null, { authorization: `Basic ${c.token}` });
        expect([res.status, res.body.error?.code], where(r)).toEqual([401, 'AUTHORIZATION_HEADER_NOT_VALID']);
      }));

    test('401 TOKEN_NOT_VALID for an unknown token', () =>
      each(async (r, c) => {
        const res = await call(c, r, c.chatbotId, 'not-a-token-we-issued');
        expect([res.status, res.body.error?.code], where(r)).toEqual([401, 'TOKEN_NOT_VALID']);
      }));

    test("403 TOKEN_SCOPE_NOT_ALLOWED for a token with every scope but the route's, naming them", () =>
      each(async (r, c) => {
        const { token } = await c.t.token({ access: 'custom', scopes: SCOPES.filter((s) => !r.scopes.includes(s)) });
        const res = await call(c, r, c.chatbotId, token);
        expect([res.status, res.body.error?.code], where(r)).toEqual([403, 'TOKEN_SCOPE_NOT_ALLOWED']);
        expect(res.body.error.details.requiredScopes, where(r)).toEqual(r.scopes);
      }));

    test("403 TOKEN_SCOPE_NOT_ALLOWED when the creator's role withholds the scope (a member's full token)", async () => {
      const c = ctx();
      const account = (await c.t.app.services.store.chatbots.get(c.chatbotId))!.accountId;
      const { token } = await userWithToken(c.t, account, 'member');
      const { ROLE_SCOPES } = await import('../../shared/scopes.js');
      for (const r of c.routes.filter((x) => x.scopes.some((s) => !ROLE_SCOPES.member.includes(s)))) {
        const res = await call(c, r, c.chatbotId, token);
        expect([res.status, res.body.error?.code], where(r)).toEqual([403, 'TOKEN_SCOPE_NOT_ALLOWED']);
      }
    });

    test('403 ACCOUNT_INACTIVE when the account is inactive', async () => {
      const c = ctx();
      const own = await freshAccount(c.t);
      await c.t.app.services.accounts.setPlan(own.accountId, { active: false });
      for (const r of c.routes) {
        const res = await call(c, r, own.chatbotId, own.token);
        expect([res.status, res.body.error?.code], where(r)).toEqual([403, 'ACCOUNT_INACTIVE']);
      }
    });

    test("404 CHATBOT_NOT_FOUND for an unknown chatbot, another account's chatbot, and one outside the token's restriction", async () => {
      const c = ctx();
      const other = await freshAccount(c.t);
      const sibling = await createChatbot(c.t, c.token, 'sibling');
      const { token: restricted } = await c.t.token({ access: 'full', chatbotIds: [sibling] });
      for (const r of c.routes) {
        for (const [chatbotId, token] of [
          [newId(), c.token],
          [other.chatbotId, c.token],
          [c.chatbotId, restricted],
          [c.chatbotId, other.token],
        ]) {
          const res = await call(c, r, chatbotId, token);
          expect([res.status, res.body.error?.code], where(r)).toEqual([404, 'CHATBOT_NOT_FOUND']);
        }
      }
    });

    test('405 METHOD_NOT_ALLOWED for PUT, with Allow', () =>
      each(async (r, c) => {
        const res = await c.t.call('PUT', `/api/v2${r.path(c.chatbotId)}`, c.token);
        expect([res.status, res.body.error?.code], where(r)).toEqual([405, 'METHOD_NOT_ALLOWED']);
        expect(String(res.headers.allow), where(r)).toContain(r.method);
      }));

    test('bodies: 400 INVALID_JSON, 415 UNSUPPORTED_MEDIA_TYPE, 413 PAYLOAD_TOO_LARGE', async () => {
      const c = ctx();
      for (const r of c.routes.filter((x) => x.body !== undefined)) {
        const url = `/api/v2${r.path(c.chatbotId)}`;
        const bad = await c.t.call(r.method, url, c.token, '{"title": ', JSON_HEADERS);
        expect([bad.status, bad.body.error?.code], where(r)).toEqual([400, 'INVALID_JSON']);
        const text = await c.t.call(r.method, url, c.token, 'title=x', { 'content-type': 'text/plain' });
        expect([text.status, text.body.error?.code], where(r)).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
        const big = await c.t.call(r.method, url, c.token, JSON.stringify({ x: 'y'.repeat(1_100_000) }), JSON_HEADERS);
        expect([big.status, big.body.error?.code], where(r)).toEqual([413, 'PAYLOAD_TOO_LARGE']);
      }
    });
  });
}
