/**
 * The route x scope matrix. Walks every registered route (app.routeTable, filled by the access
 * hook) so a new route is covered the day it is added: each declares its access, each protected
 * route refuses a request without a token, and each scoped route refuses a token holding every
 * scope but its own with 403 TOKEN_SCOPE_NOT_ALLOWED naming exactly the route's scopes.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SCOPES, type Scope } from '../../../shared/scopes.js';
import { installAccess, scopesOf as declared, type RouteAccess } from '../../../server/http/access.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

/** The only routes anyone may call without a token. Adding one is a deliberate change here. */
const PUBLIC_ROUTES = [
  'GET /api/v2/health',
  // The landing page and the orchestrators' probes: no secret, nothing but status.
  'GET /',
  'GET /healthz',
  'GET /readyz',
  'GET /api/v2/openapi.json',
  'GET /api/v2/openapi.yaml',
  'GET /openapi.yaml',
  'GET /openapi.json',
  'GET /icons/:file',
  'GET /widget.js',
  'GET /widget/:file',
  'GET /chat/:chatbotId',
  'GET /demo',
  'GET /demo/assets/:file',
  // The visitor gateway: rate-limited, origin-checked; the socket and stream take a visitor session.
  'GET /api/widget/:chatbotId/config',
  'POST /api/widget/:chatbotId/session',
  'GET /api/widget/ws',
  'POST /api/widget/sse',
  'POST /api/widget/frames',
  'OPTIONS /api/widget/:chatbotId/config',
  'OPTIONS /api/widget/:chatbotId/session',
  'OPTIONS /api/widget/sse',
  'OPTIONS /api/widget/frames',
  // The team's live stream authenticates its v2 token itself (header, subprotocol or hello): conversations:read.
  'GET /api/v2/stream',
  // OAuth (RFC 8628, 7009) and its discovery documents; the verification page signs in itself.
  'GET /.well-known/oauth-authorization-server',
  'GET /.well-known/oauth-protected-resource',
  'GET /.well-known/oauth-protected-resource/api/v2',
  'GET /.well-known/oauth-protected-resource/mcp',
  'POST /oauth/device_authorization',
  'POST /oauth/token',
  'POST /oauth/revoke',
  'GET /device',
  'POST /device',
  'GET /device/style.css',
  'POST /device/sign-in',
  'POST /device/sign-out',
  'POST /device/decision',
  // The authorization code grant (RFC 7591 registration, RFC 6749 4.1): the page signs in itself.
  'POST /oauth/register',
  'GET /oauth/authorize',
  'POST /oauth/authorize',
  'POST /oauth/authorize/sign-in',
  // The console: its page and files; signing in (GET hands out the CSRF token, POST needs it).
  'GET /console',
  'GET /console/*',
  'GET /console/assets/:file',
  'GET /api/v2/session',
  'POST /api/v2/session',
  'POST /api/v2/session/setup',
];

let t: TestApp;
let routes: RouteAccess[];
let ids: Record<string, string>;
beforeAll(async () => {
  t = await buildTestApp();
  // HEAD routes are fastify's automatic twins of GET routes; they share the GET route's config.
  routes = t.app.routeTable.filter((r) => r.method !== 'HEAD');
  const { token } = await t.token();
  const chatbot = await t.call('POST', '/api/v2/chatbots', token, { title: 'matrix' });
  const other = await t.token({ access: 'standard' });
  ids = { chatbotId: chatbot.body.data.chatbot.id, tokenId: other.id, iconType: 'icon', file: 'x.png' };
});
afterAll(() => t.close());

/** The route's URL with real ids (or a placeholder) in its parameters. */
const fill = (url: string) =>
  url.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeURIComponent(ids[name] ?? 'x'));
const key = (r: RouteAccess) => `${r.method} ${r.url}`;
const legacy = (r: RouteAccess) => !r.access.public && r.access.legacyKey === true;
/** The scopes a v2 token needs (legacy routes take no v2 token; their scopes are a role check, tested in legacy.test.ts). */
const scopesOf = (r: RouteAccess): Scope[] => (legacy(r) ? [] : declared(r.access));

test('the route table holds every route fastify serves, the v2 core among them', () => {
  const keys = routes.map(key);
  for (const expected of [
    'GET /api/v2/me',
    'POST /api/v2/chatbots',
    'GET /api/v2/chatbots',
    'GET /api/v2/chatbots/:chatbotId',
    'DELETE /api/v2/chatbots/:chatbotId',
    'PATCH /api/v2/chatbots/:chatbotId/settings',
    'PATCH /api/v2/chatbots/:chatbotId/settings/webhooks',
    'POST /api/v2/chatbots/:chatbotId/icons',
    'DELETE /api/v2/chatbots/:chatbotId/icons/:iconType',
    'GET /api/v2/tokens',
    'POST /api/v2/tokens',
    'DELETE /api/v2/tokens/:tokenId',
    'GET /api/v2/account',
    'PATCH /api/v2/account',
    'GET /api/v2/usage',
    'GET /api/v2/billing/invoices',
    'GET /api/v2/chatbots/:chatbotId/analytics',
    ...PUBLIC_ROUTES,
  ]) {
    expect(keys).toContain(expected);
  }
  for (const r of routes) expect(t.app.hasRoute({ method: r.method as 'GET', url: r.url }), key(r)).toBe(true);
});

test('every route declares its access: public, a legacy key (exactly the /api/v0 and /api/v1 routes), or a list of known scopes', () => {
  for (const r of routes) {
    expect(r.access, key(r)).toBeTypeOf('object');
    if (r.access.public) continue;
    expect(legacy(r), key(r)).toBe(/^\/api\/v[01]\//.test(r.url));
    // Legacy routes declare their v2 twin's scopes, which the key owner's role must allow.
    if (r.access.legacyKey) expect(r.access.scopes.length, key(r)).toBeGreaterThan(0);
    expect(Array.isArray(r.access.scopes), key(r)).toBe(true);
    for (const s of r.access.scopes) expect(SCOPES, `${key(r)} declares ${s}`).toContain(s);
  }
});

test('only the known public routes are public', () => {
  expect(
    routes
      .filter((r) => r.access.public)
      .map(key)
      .sort(),
  ).toEqual([...PUBLIC_ROUTES].sort());
});

test('only /me (who am I), signing out and /mcp (which checks the scopes of each tool) take any valid credential without a scope', () => {
  expect(
    routes
      .filter((r) => !r.access.public && !legacy(r) && scopesOf(r).length === 0)
      .map(key)
      .sort(),
  ).toEqual(['DELETE /api/v2/session', 'DELETE /api/v2/sessions', 'GET /api/v2/me', 'POST /mcp']);
});

test('registering a route without an access or response declaration fails at start', async () => {
  const bare = Fastify({ logger: false });
  installAccess(bare, t.app.services.tokens, 'http://parley.test', () => null);
  expect(() => bare.get('/open', async () => 'open')).toThrow(/declares no access/);
  // A declared route also declares how its reply is written: a response schema, or raw.
  expect(() => bare.get('/unwritten', { config: { access: { public: true } } }, async () => 'unwritten')).toThrow(
    /declares no response schema/,
  );
  bare.get('/declared', { config: { access: { public: true }, raw: true } }, async () => 'declared');
  await bare.ready();
  expect(bare.routeTable.map(key)).toEqual(expect.arrayContaining(['GET /declared']));
  expect(bare.routeTable.map(key)).not.toContain('GET /open');
  await bare.close();
});

describe('every legacy route', () => {
  test('refuses a v2 token (even one with every scope) with 401 TOKEN_NOT_VALID in the legacy body, and passes the check with a legacy key', async () => {
    const legacyRoutes = routes.filter(legacy);
    expect(legacyRoutes.length).toBeGreaterThan(30);
    const { token } = await t.token();
    const owner = await t.app.services.store.users.owner((await t.app.services.accounts.resolve()).id);
    const key = (await t.app.services.tokens.createLegacyKey(owner!)).token;
    for (const r of legacyRoutes) {
      const refused = await t.call(r.method as 'GET', fill(r.url), token);
      expect(refused.status, `${r.method} ${r.url}`).toBe(401);
      expect(refused.body, `${r.method} ${r.url}`).toMatchObject({
        success: false,
        data: null,
        error: { code: 'TOKEN_NOT_VALID' },
      });
      // No body and made-up ids (a v0 delete needs no confirmation): the key passes the access check.
      const passed = await t.call(r.method as 'GET', r.url.replace(/:([A-Za-z0-9_]+)/g, 'x'), key);
      expect([401, 403], `${r.method} ${r.url} -> ${passed.status}`).not.toContain(passed.status);
      expect(passed.status, `${r.method} ${r.url}`).toBeLessThan(500);
    }
    expect((await t.call('GET', `/api/v2/chatbots/${ids.chatbotId}`, token)).status).toBe(200);
  });
});

describe('every protected route without a token', () => {
  test('is 401 AUTHORIZATION_HEADER_REQUIRED', async () => {
    const protectedRoutes = routes.filter((r) => !r.access.public);
    expect(protectedRoutes.length).toBeGreaterThan(10);
    for (const r of protectedRoutes) {
      const res = await t.call(r.method as 'GET', fill(r.url));
      expect(res.status, key(r)).toBe(401);
      expect(res.body.error?.code, key(r)).toBe('AUTHORIZATION_HEADER_REQUIRED');
    }
  });
});

describe('every scoped route with a token holding every scope but its own', () => {
  test("is 403 TOKEN_SCOPE_NOT_ALLOWED with details.requiredScopes equal to the route's scopes", async () => {
    const scoped = routes.filter((r) => scopesOf(r).length > 0);
    expect(scoped.length).toBeGreaterThan(10);
    const tokens = new Map<string, string>();
    for (const r of scoped) {
      const required = scopesOf(r);
      const sig = [...required].sort().join(',');
      if (!tokens.has(sig)) {
        const rest = SCOPES.filter((s) => !required.includes(s));
        tokens.set(sig, (await t.token({ access: 'custom', scopes: rest })).token);
      }
      const res = await t.call(r.method as 'GET', fill(r.url), tokens.get(sig));
      expect(res.status, key(r)).toBe(403);
      expect(res.body.ok, key(r)).toBe(false);
      expect(res.body.error.code, key(r)).toBe('TOKEN_SCOPE_NOT_ALLOWED');
      expect([...res.body.error.details.requiredScopes].sort(), key(r)).toEqual([...required].sort());
    }
  });

  test('HEAD twins of GET routes are refused the same way', async () => {
    const heads = t.app.routeTable.filter((r) => r.method === 'HEAD' && scopesOf(r).length > 0);
    expect(heads.length).toBeGreaterThan(0);
    for (const r of heads) {
      const rest = SCOPES.filter((s) => !scopesOf(r).includes(s));
      const { token } = await t.token({ access: 'custom', scopes: rest });
      const res = await t.call('HEAD', fill(r.url), token);
      expect(res.status, key(r)).toBe(403);
    }
  });

  test("with exactly the route's scopes the scope check passes (no 401 or 403)", async () => {
    for (const r of routes.filter((x) => scopesOf(x).length > 0)) {
      const { token } = await t.token({ access: 'custom', scopes: scopesOf(r) });
      // No confirm and no body: deletes answer 400 and nothing changes.
      const res = await t.call(r.method as 'GET', fill(r.url), token);
      expect([401, 403], `${key(r)} -> ${res.status} ${res.body?.error?.code}`).not.toContain(res.status);
    }
    // The matrix's own chatbot and token are still there.
    const { token } = await t.token();
    expect((await t.call('GET', `/api/v2/chatbots/${ids.chatbotId}`, token)).status).toBe(200);
  });
});

/** What an inactive account may still reach: who it is, its account, usage, billing and tokens (to see why and fix it). */
const WHILE_INACTIVE = [
  'GET /api/v2/me',
  'DELETE /api/v2/session',
  'DELETE /api/v2/sessions',
  'GET /api/v2/account',
  'PATCH /api/v2/account',
  'GET /api/v2/usage',
  'GET /api/v2/billing/invoices',
  'GET /api/v2/tokens',
  'POST /api/v2/tokens',
  'DELETE /api/v2/tokens/:tokenId',
];

describe('every route of an inactive account', () => {
  test('is 403 ACCOUNT_INACTIVE with a full token or a legacy key, but the few that help it out of that state', async () => {
    const { account } = await t.app.services.accounts.create('dormant@x.test');
    const { token } = await t.token({ access: 'full' }, account.id);
    const chatbot = await t.call('POST', '/api/v2/chatbots', token, { title: 'dormant' });
    const owner = await t.app.services.store.users.owner(account.id);
    const legacyKey = (await t.app.services.tokens.createLegacyKey(owner!)).token;
    const own = {
      chatbotId: chatbot.body.data.chatbot.id as string,
      tokenId: (await t.token({ access: 'standard' }, account.id)).id,
    };
    const fillOwn = (url: string) =>
      url.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) =>
        encodeURIComponent(own[name as keyof typeof own] ?? ids[name] ?? 'x'),
      );
    await t.app.services.accounts.setPlan(account.id, { active: false });

    const guarded = routes.filter((r) => !r.access.public && !WHILE_INACTIVE.includes(key(r)));
    expect(guarded.length).toBeGreaterThan(50);
    for (const r of guarded) {
      const res = await t.call(r.method as 'GET', fillOwn(r.url), legacy(r) ? legacyKey : token);
      expect([res.status, res.body?.error?.code], key(r)).toEqual([403, 'ACCOUNT_INACTIVE']);
    }
    // Nothing was changed on the way.
    expect(
      (await t.database.db.selectFrom('chatbots').select('id').where('account_id', '=', account.id).execute()).length,
    ).toBe(1);
    for (const k of WHILE_INACTIVE) {
      const r = routes.find((x) => key(x) === k)!;
      expect(r, k).toBeDefined();
      const res = await t.call(
        r.method as 'GET',
        fillOwn(r.url),
        token,
        r.method === 'PATCH'
          ? { name: 'Dormant' }
          : r.method === 'POST'
            ? { access: 'custom', scopes: ['chatbots:read'] }
            : undefined,
      );
      expect(res.status, `${k}: ${JSON.stringify(res.body?.error)}`).toBeLessThan(300);
    }
  });
});
