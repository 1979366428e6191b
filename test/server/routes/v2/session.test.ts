/**
 * The console's sign-in over HTTP: GET /session hands out the CSRF token, POST /session signs in
 * with e-mail and password and sets the session cookie, which then works on the v2 API as the
 * user (their role, their chatbots), every change with the CSRF header; sign-out and sign-out
 * everywhere end sessions. Each test signs in from an address of its own (the per-IP limit).
 */
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

const PASSWORD = 'a long enough passphrase';

let t: TestApp;
let ownerToken: string;
let ownerEmail: string;
let address = 0;

beforeAll(async () => {
  t = await buildTestApp();
  ownerToken = (await t.token({ access: 'full' })).token;
  const account = await t.app.services.accounts.resolve();
  const owner = (await t.app.services.store.users.owner(account.id))!;
  ownerEmail = owner.email;
  await t.app.services.signIn.setPassword(owner, PASSWORD);
});
afterAll(() => t?.close());

/** A browser over app.inject: keeps cookies, sends the CSRF token it was given on changes. */
class Jar {
  readonly cookies = new Map<string, string>();
  setCookies: string[] = [];
  csrf = '';
  constructor(readonly ip = `10.0.0.${++address}`) {}

  async call(method: InjectOptions['method'], url: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await t.app.inject({
      method,
      url: `/api/v2${url}`,
      remoteAddress: this.ip,
      headers: {
        ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    const lines = res.headers['set-cookie'];
    this.setCookies = lines === undefined ? [] : [lines].flat();
    for (const line of this.setCookies) {
      const [pair] = line.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (!value || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.statusCode, headers: res.headers, body: res.json() };
  }

  async signIn(email: string, password: string) {
    this.csrf = (await this.call('GET', '/session')).body.data.csrfToken;
    return this.call('POST', '/session', { email, password }, { 'x-csrf-token': this.csrf });
  }

  change(method: InjectOptions['method'], url: string, body?: unknown) {
    return this.call(method, url, body, { 'x-csrf-token': this.csrf });
  }
}

async function memberOf(chatbotId: string): Promise<string> {
  const email = `agent-${Date.now()}@team.test`;
  const invited = await t.call('POST', `/api/v2/chatbots/${chatbotId}/members`, ownerToken, { email, role: 'member' });
  expect(invited.status).toBe(201);
  const user = (await t.app.services.store.users.get(invited.body.data.member.userId))!;
  await t.app.services.signIn.setPassword(user, PASSWORD);
  return email;
}

describe('signing in', () => {
  test('GET /session: nobody signed in, a CSRF token, its secret in an HttpOnly cookie; never cached', async () => {
    const jar = new Jar();
    const res = await jar.call('GET', '/session');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ user: null, csrfToken: expect.any(String), firstRun: false });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(jar.setCookies.find((c) => c.startsWith('parley_csrf='))).toMatch(/HttpOnly/i);
  });

  test('a sign-in without the CSRF token is refused and sets no session', async () => {
    const jar = new Jar();
    await jar.call('GET', '/session');
    const res = await jar.call('POST', '/session', { email: ownerEmail, password: PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ ok: false, error: { code: 'CSRF_TOKEN_NOT_VALID' } });
    expect(jar.cookies.has('parley_session')).toBe(false);
  });

  test('a wrong password and an unknown e-mail get the same answer', async () => {
    const wrong = await new Jar().signIn(ownerEmail, 'not the password');
    const unknown = await new Jar().signIn('nobody@nowhere.test', PASSWORD);
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('CREDENTIALS_NOT_VALID');
    }
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
  });

  test('the right password: the user, an HttpOnly SameSite=Lax cookie for the whole site, not Secure on http', async () => {
    const jar = new Jar();
    const res = await jar.signIn(ownerEmail.toUpperCase(), PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ email: ownerEmail, role: 'owner' });
    const cookie = jar.setCookies.find((c) => c.startsWith('parley_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\/;/i);
    expect(cookie).toMatch(/Max-Age=43200/i);
    expect(cookie).not.toMatch(/Secure/i);
    expect((await jar.call('GET', '/session')).body.data.user.email).toBe(ownerEmail);
  });

  test('five wrong passwords lock the e-mail, even for the right one', async () => {
    const email = await memberOf(
      (await t.call('POST', '/api/v2/chatbots', ownerToken, { title: 'Locked' })).body.data.chatbot.id,
    );
    for (let i = 0; i < 5; i++) expect((await new Jar().signIn(email, `guess ${i}`)).status).toBe(401);
    const res = await new Jar().signIn(email, PASSWORD);
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  test('one address gets ten sign-ins a minute', async () => {
    const jar = new Jar();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await jar.signIn(`someone${i}@nowhere.test`, 'x')).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  test('over https the cookies are Secure', async () => {
    const secure = await buildTestApp({ env: { SITE_URL: 'https://parley.example' } });
    try {
      const account = await secure.app.services.accounts.resolve();
      const owner = (await secure.app.services.store.users.owner(account.id))!;
      await secure.app.services.signIn.setPassword(owner, PASSWORD);
      const get = await secure.app.inject({ method: 'GET', url: '/api/v2/session' });
      const csrfCookie = [get.headers['set-cookie']].flat().find((c) => c?.startsWith('parley_csrf='))!;
      expect(csrfCookie).toMatch(/Secure/);
      const res = await secure.app.inject({
        method: 'POST',
        url: '/api/v2/session',
        headers: {
          'content-type': 'application/json',
          cookie: csrfCookie.split(';')[0],
          'x-csrf-token': get.json().data.csrfToken,
        },
        payload: JSON.stringify({ email: owner.email, password: PASSWORD }),
      });
      expect(res.statusCode).toBe(200);
      expect([res.headers['set-cookie']].flat().find((c) => c?.startsWith('parley_session='))).toMatch(/Secure/);
    } finally {
      await secure.close();
    }
  });
});

describe('the session cookie on the v2 API', () => {
  test("acts as the owner: every scope of the role; changes need the CSRF header, reads don't", async () => {
    const jar = new Jar();
    await jar.signIn(ownerEmail, PASSWORD);
    const me = await jar.call('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body.data.user.email).toBe(ownerEmail);
    expect(me.body.data.scopes).toContain('chatbots:delete');

    const before = (await jar.call('GET', '/chatbots')).body.data.chatbots.length;
    const forged = await jar.call('POST', '/chatbots', { title: 'Forged' });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe('CSRF_TOKEN_NOT_VALID');
    const wrongToken = await jar.call('POST', '/chatbots', { title: 'Forged' }, { 'x-csrf-token': 'made-up' });
    expect(wrongToken.status).toBe(403);
    expect((await jar.call('GET', '/chatbots')).body.data.chatbots.length).toBe(before);

    const made = await jar.change('POST', '/chatbots', { title: 'From the console' });
    expect(made.status).toBe(201);
    const deleted = await jar.change('DELETE', `/chatbots/${made.body.data.chatbot.id}?confirm=true`);
    expect(deleted.status).toBe(200);
  });

  test('a bearer token still works beside the cookie, and needs no CSRF header', async () => {
    const jar = new Jar();
    await jar.signIn(ownerEmail, PASSWORD);
    const res = await jar.call('POST', '/chatbots', { title: 'By token' }, { authorization: `Bearer ${ownerToken}` });
    expect(res.status).toBe(201);
  });

  test('a member reaches only the chatbots they were added to, and cannot create one', async () => {
    const theirs = (await t.call('POST', '/api/v2/chatbots', ownerToken, { title: 'Theirs' })).body.data.chatbot.id;
    const other = (await t.call('POST', '/api/v2/chatbots', ownerToken, { title: 'Not theirs' })).body.data.chatbot.id;
    const jar = new Jar();
    expect((await jar.signIn(await memberOf(theirs), PASSWORD)).body.data.user.role).toBe('member');
    const list = await jar.call('GET', '/chatbots');
    expect(list.body.data.chatbots.map((c: { id: string }) => c.id)).toEqual([theirs]);
    expect((await jar.call('GET', `/chatbots/${other}`)).status).toBe(404);
    const create = await jar.change('POST', '/chatbots', { title: 'Mine' });
    expect(create.status).toBe(403);
    expect(create.body.error).toMatchObject({ code: 'TOKEN_SCOPE_NOT_ALLOWED' });
    expect((await jar.change('DELETE', `/chatbots/${theirs}?confirm=true`)).status).toBe(403);
  });

  test('signing out ends the session; the cookie then is no credential', async () => {
    const jar = new Jar();
    await jar.signIn(ownerEmail, PASSWORD);
    const cookie = jar.cookies.get('parley_session')!;
    expect((await jar.change('DELETE', '/session')).body.data).toEqual({ signedOut: true });
    expect(jar.cookies.has('parley_session')).toBe(false);
    jar.cookies.set('parley_session', cookie);
    const after = await jar.call('GET', '/me');
    expect(after.status).toBe(401);
    expect((await jar.call('GET', '/session')).body.data.user).toBeNull();
  });

  test('sign out everywhere ends every session of the user, not those of others', async () => {
    const chatbotId = (await t.call('POST', '/api/v2/chatbots', ownerToken, { title: 'Team' })).body.data.chatbot.id;
    const agentEmail = await memberOf(chatbotId);
    const [laptop, phone, agent] = [new Jar(), new Jar(), new Jar()];
    await laptop.signIn(ownerEmail, PASSWORD);
    await phone.signIn(ownerEmail, PASSWORD);
    await agent.signIn(agentEmail, PASSWORD);
    expect((await laptop.change('DELETE', '/sessions')).status).toBe(200);
    expect((await laptop.call('GET', '/me')).status).toBe(401);
    expect((await phone.call('GET', '/me')).status).toBe(401);
    expect((await agent.call('GET', '/me')).status).toBe(200);
    // A token is no session: nothing ends.
    expect((await t.call('DELETE', '/api/v2/session', ownerToken)).body.data).toEqual({ signedOut: false });
  });
});

describe('first run', () => {
  test('nobody has a password: GET /session says so; the set-up link sets the owner’s password once and signs in', async () => {
    const fresh = await buildTestApp();
    try {
      const call = async (method: InjectOptions['method'], url: string, cookies: string, body?: unknown, csrf = '') => {
        const res = await fresh.app.inject({
          method,
          url: `/api/v2${url}`,
          headers: {
            cookie: cookies,
            ...(csrf ? { 'x-csrf-token': csrf } : {}),
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          ...(body ? { payload: JSON.stringify(body) } : {}),
        });
        const set = [res.headers['set-cookie'] ?? []].flat().map((c) => c.split(';')[0]);
        return { status: res.statusCode, body: res.json(), cookies: [cookies, ...set].filter(Boolean).join('; ') };
      };
      const first = await call('GET', '/session', '');
      expect(first.body.data).toMatchObject({ user: null, firstRun: true });
      const csrf = first.body.data.csrfToken;
      const account = await fresh.app.services.accounts.resolve();
      const owner = (await fresh.app.services.store.users.owner(account.id))!;
      const token = (await fresh.app.services.signIn.setupToken(owner))!;

      const noCsrf = await call('POST', '/session/setup', first.cookies, { token, password: 'the owner password' });
      expect(noCsrf.body.error.code).toBe('CSRF_TOKEN_NOT_VALID');
      const done = await call('POST', '/session/setup', first.cookies, { token, password: 'the owner password' }, csrf);
      expect(done.status).toBe(200);
      expect(done.body.data.user).toMatchObject({ id: owner.id, role: 'owner' });
      expect((await call('GET', '/me', done.cookies)).body.data.user.id).toBe(owner.id);

      const again = await call(
        'POST',
        '/session/setup',
        first.cookies,
        { token, password: 'a takeover password' },
        csrf,
      );
      expect(again.status).toBe(400);
      expect(again.body.error.code).toBe('SETUP_LINK_NOT_VALID');
      expect((await call('GET', '/session', '')).body.data.firstRun).toBe(false);
      expect((await fresh.app.services.signIn.signIn(owner.email, 'the owner password')).ok).toBe(true);
    } finally {
      await fresh.close();
    }
  });
});
