/**
 * Token authentication and authorisation (spec 5): the three 401s with their challenge, revocation,
 * last-used time, hashed storage, the creator's current role, scopes, and path tricks that must
 * never reach a protected route without a token.
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SCOPES, STANDARD_SCOPES } from '../../../shared/scopes.js';
import { newId } from '../../../server/domain/ids.js';
import type { UserRecord } from '../../../server/domain/ports.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

const CHALLENGE = 'Bearer resource_metadata="http://parley.test/.well-known/oauth-protected-resource/api/v2"';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
});
afterAll(() => t.close());

function expect401(res: { status: number; body: any; headers: Record<string, unknown> }, code: string) {
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({ ok: false, error: { code } });
  expect(res.headers['www-authenticate']).toBe(CHALLENGE);
}

const tokenRows = () => t.database.db.selectFrom('tokens').selectAll().execute();

async function userWithRole(role: 'owner' | 'admin' | 'member'): Promise<UserRecord> {
  const account = await t.app.services.accounts.resolve();
  const user: UserRecord = {
    id: newId(),
    accountId: account.id,
    email: `${role}-${newId()}@x.test`,
    name: null,
    role,
    createdAt: new Date().toISOString(),
  };
  await t.app.services.store.users.insert(user);
  return user;
}

async function setRole(userId: string, role: string) {
  await t.database.db.updateTable('users').set({ role }).where('id', '=', userId).execute();
}

describe('401', () => {
  test('no Authorization header: AUTHORIZATION_HEADER_REQUIRED with the challenge', async () => {
    expect401(await t.call('GET', '/api/v2/me'), 'AUTHORIZATION_HEADER_REQUIRED');
  });

  test('an empty Authorization header: AUTHORIZATION_HEADER_REQUIRED', async () => {
    expect401(
      await t.call('GET', '/api/v2/me', null, undefined, { authorization: '' }),
      'AUTHORIZATION_HEADER_REQUIRED',
    );
  });

  test.each([
    ['Basic credentials', () => `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['the scheme alone', () => 'Bearer'],
    ['the scheme and a space', () => 'Bearer '],
    ['two spaces', () => `Bearer  ${token}`],
    ['a tab', () => `Bearer\t${token}`],
    ['the token alone', () => token],
    ['a trailing word', () => `Bearer ${token} extra`],
    ['a token with a space', () => 'Bearer abc def'],
    ['a token with a quote', () => 'Bearer "abc"'],
    ['another scheme', () => `Token ${token}`],
  ])('%s: AUTHORIZATION_HEADER_NOT_VALID with the challenge', async (_label, header) => {
    expect401(
      await t.call('GET', '/api/v2/me', null, undefined, { authorization: header() }),
      'AUTHORIZATION_HEADER_NOT_VALID',
    );
  });

  test('the scheme name is case-insensitive (RFC 7235): "bearer <token>" works', async () => {
    const res = await t.call('GET', '/api/v2/me', null, undefined, { authorization: `bearer ${token}` });
    expect(res.status).toBe(200);
    const upper = await t.call('GET', '/api/v2/me', null, undefined, { authorization: `BEARER ${token}` });
    expect(upper.status).toBe(200);
  });

  test('an unknown token: TOKEN_NOT_VALID with the challenge', async () => {
    expect401(await t.call('GET', '/api/v2/me', 'A'.repeat(43)), 'TOKEN_NOT_VALID');
  });

  test('a token differing in one character is unknown', async () => {
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    expect401(await t.call('GET', '/api/v2/me', token.slice(0, -1) + last), 'TOKEN_NOT_VALID');
  });

  test('the stored hash presented as the token is unknown', async () => {
    const hash = createHash('sha256').update(token).digest('hex');
    expect401(await t.call('GET', '/api/v2/me', hash), 'TOKEN_NOT_VALID');
  });

  test('a 401 carries no data and names a next step', async () => {
    const res = await t.call('GET', '/api/v2/chatbots');
    expect(res.body).not.toHaveProperty('data');
    expect(res.body.error.hint).toEqual(expect.any(String));
  });
});

describe('revocation', () => {
  test('DELETE /tokens/:id takes effect on the next request', async () => {
    const victim = await t.token({ access: 'standard' });
    expect((await t.call('GET', '/api/v2/chatbots', victim.token)).status).toBe(200);
    const revoked = await t.call('DELETE', `/api/v2/tokens/${victim.id}`, token);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revokedToken).toMatchObject({ id: victim.id, revokedAt: expect.any(String) });
    expect401(await t.call('GET', '/api/v2/chatbots', victim.token), 'TOKEN_NOT_VALID');
    expect401(await t.call('GET', '/api/v2/me', victim.token), 'TOKEN_NOT_VALID');
  });

  test('a token can revoke itself and is refused right after', async () => {
    const self = await t.token({ access: 'full' });
    expect((await t.call('DELETE', `/api/v2/tokens/${self.id}`, self.token)).status).toBe(200);
    expect401(await t.call('GET', '/api/v2/me', self.token), 'TOKEN_NOT_VALID');
  });

  test('a revoked token stays listed with its revocation time', async () => {
    const gone = await t.token({ access: 'standard', name: 'to revoke' });
    await t.call('DELETE', `/api/v2/tokens/${gone.id}`, token);
    const rows = await tokenRows();
    expect(rows.find((r) => r.id === gone.id)?.revoked_at).toEqual(expect.any(String));
  });

  test("another account's token id is 404 and stays valid", async () => {
    const other = await t.app.services.accounts.create(`rev-${newId()}@x.test`);
    const theirs = await t.token({ access: 'full' }, other.account.id);
    const res = await t.call('DELETE', `/api/v2/tokens/${theirs.id}`, token);
    expect(res.status).toBe(404);
    expect(res.body.ok).toBe(false);
    expect((await t.call('GET', '/api/v2/me', theirs.token)).status).toBe(200);
  });
});

describe('storage of secrets', () => {
  test('last-used time is set by use', async () => {
    const fresh = await t.token({ access: 'standard' });
    const before = (await tokenRows()).find((r) => r.id === fresh.id)!;
    expect(before.last_used_at).toBeNull();
    const me = await t.call('GET', '/api/v2/me', fresh.token);
    expect(me.status).toBe(200);
    const after = (await tokenRows()).find((r) => r.id === fresh.id)!;
    expect(after.last_used_at).toEqual(expect.any(String));
    expect(Number.isNaN(Date.parse(after.last_used_at!))).toBe(false);
    expect(after.last_used_at! >= after.created_at).toBe(true);
    const listed = await t.call('GET', '/api/v2/tokens?limit=100', token);
    const view = listed.body.data.tokens.find((x: { id: string }) => x.id === fresh.id);
    expect(view.lastUsedAt).toBe(after.last_used_at);
  });

  test('only a SHA-256 hash is stored; the plaintext is nowhere in the table nor in any listing', async () => {
    const created = await t.call('POST', '/api/v2/tokens', token, {
      access: 'custom',
      scopes: ['chatbots:read'],
      name: 'hash check',
    });
    expect(created.status).toBe(201);
    const plaintext: string = created.body.data.token;
    expect(plaintext).toEqual(expect.any(String));
    const row = (await tokenRows()).find((r) => r.id === created.body.data.id)!;
    expect(row.token_hash).toBe(createHash('sha256').update(plaintext, 'utf8').digest('hex'));
    const everything = JSON.stringify(await tokenRows());
    expect(everything).not.toContain(plaintext);
    // Shown once: neither the list nor /me return it again.
    const listed = await t.call('GET', '/api/v2/tokens?limit=100', token);
    expect(JSON.stringify(listed.body)).not.toContain(plaintext);
    for (const item of listed.body.data.tokens) expect(item).not.toHaveProperty('token');
    const me = await t.call('GET', '/api/v2/me', plaintext);
    expect(JSON.stringify(me.body)).not.toContain(plaintext);
  });

  test('tokens carry at least 256 random bits and never repeat', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const { token: plaintext } = await t.token({ access: 'standard' });
      expect(plaintext).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(plaintext, 'base64url').length).toBeGreaterThanOrEqual(32);
      seen.add(plaintext);
    }
    expect(seen.size).toBe(20);
  });
});

describe("the creator's current role", () => {
  test("a member's full token cannot do what a member cannot; promotion and demotion apply on the next request", async () => {
    const user = await userWithRole('member');
    const { token: memberToken } = await t.app.services.tokens.create(user, { access: 'full' });

    const me = await t.call('GET', '/api/v2/me', memberToken);
    expect(me.status).toBe(200);
    expect(me.body.data.user.role).toBe('member');
    expect(me.body.data.scopes).not.toContain('chatbots:write');
    expect(me.body.data.withheldByRole).toContain('chatbots:write');

    const refused = await t.call('POST', '/api/v2/chatbots', memberToken, { title: 'by member' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'TOKEN_SCOPE_NOT_ALLOWED',
      details: { requiredScopes: ['chatbots:write'] },
    });
    expect((await t.call('GET', '/api/v2/chatbots', memberToken)).status).toBe(200);

    await setRole(user.id, 'owner');
    const allowed = await t.call('POST', '/api/v2/chatbots', memberToken, { title: 'by promoted member' });
    expect(allowed.status).toBe(201);

    await setRole(user.id, 'member');
    const again = await t.call('DELETE', `/api/v2/chatbots/${allowed.body.data.chatbot.id}?confirm=true`, memberToken);
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('TOKEN_SCOPE_NOT_ALLOWED');
    expect((await t.call('GET', `/api/v2/chatbots/${allowed.body.data.chatbot.id}`, token)).status).toBe(200);
  });

  test('an admin cannot change the account (account:write) even with a full token', async () => {
    const user = await userWithRole('admin');
    const { token: adminToken } = await t.app.services.tokens.create(user, { access: 'full' });
    const res = await t.call('PATCH', '/api/v2/account', adminToken, { name: 'renamed by admin' });
    expect(res.status).toBe(403);
    expect(res.body.error.details.requiredScopes).toEqual(['account:write']);
  });
});

describe('scopes', () => {
  test('403 TOKEN_SCOPE_NOT_ALLOWED names the required scopes and a hint', async () => {
    const { token: readOnly } = await t.token({ access: 'custom', scopes: ['chatbots:read'] });
    const res = await t.call('POST', '/api/v2/chatbots', readOnly, { title: 'nope' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      ok: false,
      error: { code: 'TOKEN_SCOPE_NOT_ALLOWED', details: { requiredScopes: ['chatbots:write'] } },
    });
    expect(res.body.error.hint).toContain('chatbots:write');
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  test('the scope check comes before validation: a bad body still gets 403, not 400', async () => {
    const { token: readOnly } = await t.token({ access: 'custom', scopes: ['chatbots:read'] });
    const res = await t.call('POST', '/api/v2/chatbots', readOnly, { bogus: true });
    expect(res.status).toBe(403);
  });

  test('a token cannot mint a token with scopes it lacks, and nothing is stored', async () => {
    const { token: minter } = await t.token({ access: 'custom', scopes: ['tokens:write', 'chatbots:read'] });
    const before = (await tokenRows()).length;
    for (const body of [
      { access: 'custom', scopes: ['chatbots:read', 'chatbots:write'] },
      { access: 'full' },
      { access: 'standard' },
    ]) {
      const res = await t.call('POST', '/api/v2/tokens', minter, body);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('TOKEN_SCOPE_NOT_ALLOWED');
      expect(res.body.error.details.requiredScopes.length).toBeGreaterThan(0);
    }
    expect((await tokenRows()).length).toBe(before);
    const ok = await t.call('POST', '/api/v2/tokens', minter, { access: 'custom', scopes: ['chatbots:read'] });
    expect(ok.status).toBe(201);
    expect(ok.body.data.scopes).toEqual(['chatbots:read']);
  });

  test('a member cannot mint a full token through the API either', async () => {
    const user = await userWithRole('member');
    const { token: memberToken } = await t.app.services.tokens.create(user, { access: 'full' });
    const res = await t.call('POST', '/api/v2/tokens', memberToken, { access: 'full' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('TOKEN_SCOPE_NOT_ALLOWED');
  });

  test('a restricted token cannot mint an unrestricted one', async () => {
    const chatbot = (await t.call('POST', '/api/v2/chatbots', token, { title: 'restrict' })).body.data.chatbot;
    const { token: restricted } = await t.token({ access: 'full', chatbotIds: [chatbot.id] });
    const res = await t.call('POST', '/api/v2/tokens', restricted, { access: 'custom', scopes: ['chatbots:read'] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    const ok = await t.call('POST', '/api/v2/tokens', restricted, {
      access: 'custom',
      scopes: ['chatbots:read'],
      chatbotIds: [chatbot.id],
    });
    expect(ok.status).toBe(201);
  });

  test('Standard access holds no delete scope and none of the sensitive writes', async () => {
    const { token: standard } = await t.token({ access: 'standard' });
    const me = await t.call('GET', '/api/v2/me', standard);
    const scopes: string[] = me.body.data.scopes;
    expect(scopes.filter((s) => s.endsWith(':delete'))).toEqual([]);
    for (const s of ['billing:write', 'tokens:write', 'account:write', 'members:write'])
      expect(scopes).not.toContain(s);
    expect(scopes.sort()).toEqual([...STANDARD_SCOPES].sort());

    const chatbot = (await t.call('POST', '/api/v2/chatbots', standard, { title: 'standard made' })).body.data.chatbot;
    expect(chatbot.id).toEqual(expect.any(String));
    const del = await t.call('DELETE', `/api/v2/chatbots/${chatbot.id}?confirm=true`, standard);
    expect(del.status).toBe(403);
    expect(del.body.error.details.requiredScopes).toEqual(['chatbots:delete']);
    expect((await t.call('GET', `/api/v2/chatbots/${chatbot.id}`, standard)).status).toBe(200);
  });

  test('Full access holds every scope', async () => {
    const { token: full } = await t.token({ access: 'full' });
    const me = await t.call('GET', '/api/v2/me', full);
    expect([...me.body.data.scopes].sort()).toEqual([...SCOPES].sort());
  });

  test('POST /tokens refuses unknown scopes and scopes without custom access', async () => {
    const unknown = await t.call('POST', '/api/v2/tokens', token, { access: 'custom', scopes: ['chatbots:admin'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('VALIDATION_FAILED');
    const mixed = await t.call('POST', '/api/v2/tokens', token, { access: 'standard', scopes: ['chatbots:read'] });
    expect(mixed.status).toBe(400);
    const none = await t.call('POST', '/api/v2/tokens', token, { access: 'custom', scopes: [] });
    expect(none.status).toBe(400);
  });
});

describe('path variants never bypass auth', () => {
  const variants = [
    '/API/V2/chatbots',
    '/api/v2/Chatbots',
    '/Api/v2/chatbots',
    '/api/V2/chatbots',
    '/api/v2/CHATBOTS',
    '/api/v2/chatbots/',
    '/api/v2/chatbots//',
    '//api/v2/chatbots',
    '/api//v2/chatbots',
    '/api/v2//chatbots',
    '/api/v2%2Fchatbots',
    '/api%2Fv2%2Fchatbots',
    '/api/v2/chatbots%2F',
    '/api/v2/%63hatbots',
    '/api/v2/chatbots/..%2Fme',
    '/api/v2/chatbots/%2E%2E/me',
    '/api/v2/chatbots/../me',
    '/api/v2/health/../chatbots',
    '/api/v2/health/..%2Fchatbots',
    '/api/v2/health%2F..%2Fchatbots',
    '/api/v2/chatbots;',
    '/api/v2/chatbots;x=1',
    '/api/v2/health;/../chatbots',
    '/api/v2/me;',
    '/api/v2/me/',
    '/api/v2/ME',
    '/api/v2/tokens/',
    '/api/v2/tokens%00',
    '/api/v2/chatbots?x=/api/v2/health',
    '/api/v2/chatbots#/api/v2/health',
    '/icons/../api/v2/chatbots',
    '/api/v2/openapi.json/../chatbots',
    '/./api/v2/chatbots',
    '/api/./v2/chatbots',
    '/api/v2/./chatbots',
  ];

  test.each(variants)('GET %s without a token is never 200', async (url) => {
    const res = await t.call('GET', url);
    expect(res.status).not.toBe(200);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.body.ok).toBe(false);
    expect(res.body).not.toHaveProperty('data');
  });

  test.each(['/api/v2/chatbots/', '//api/v2/chatbots', '/api/v2//chatbots', '/api/v2/chatbots//'])(
    '%s reaches the protected route and asks for a token',
    async (url) => {
      expect401(await t.call('GET', url), 'AUTHORIZATION_HEADER_REQUIRED');
    },
  );

  test.each(['/API/V2/chatbots', '/api/v2/Chatbots', '/api/V2/me'])(
    '%s is not a route (paths are case-sensitive)',
    async (url) => {
      const res = await t.call('GET', url, token);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    },
  );

  test('over a real socket, raw paths (not normalised by a client) are never 200 either', async () => {
    const raw = await buildTestApp();
    try {
      await raw.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = raw.app.server.address() as AddressInfo;
      const get = (path: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on('error', reject);
          req.end();
        });
      for (const path of [
        ...variants.filter((v) => !v.includes('#')),
        '/api/v2/chatbots;/../health',
        '/api/v2/me/..;/',
      ]) {
        const res = await get(path);
        expect(res.status, path).not.toBe(200);
        expect(res.status, path).toBeGreaterThanOrEqual(400);
      }
      expect((await get('/api/v2/health')).status).toBe(200);
    } finally {
      await raw.close();
    }
  });

  test('POST and HEAD variants are refused too', async () => {
    for (const url of ['/api/v2/chatbots/', '//api/v2/chatbots', '/api/v2/Chatbots', '/api/v2%2Fchatbots']) {
      const post = await t.call('POST', url, null, { title: 'x' });
      expect(post.status).toBeGreaterThanOrEqual(400);
      const head = await t.call('HEAD', url);
      expect(head.status).toBeGreaterThanOrEqual(400);
    }
    const before = await t.database.db.selectFrom('chatbots').select('id').where('title', '=', 'x').execute();
    expect(before).toEqual([]);
  });
});
