/**
 * The device flow over HTTP as its two parties use it: the client posts form-encoded OAuth
 * requests; a person signs in on the verification page and approves with the page's own CSRF
 * token. Also the discovery documents the 401 challenge points to.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SCOPES } from '../../../../shared/scopes.js';
import { readdirSync } from 'node:fs';
import { LOCALES, stringsFor } from '../../../../server/routes/oauth/i18n/locales.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { answerDeviceCode, csrfToken, FormBrowser, injectSend } from '../../../helpers/browser-form.js';
import { postgresReady } from '../../../helpers/dialects.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const PASSWORD = 'correct horse battery staple';

let t: TestApp;
let ownerEmail: string;

beforeAll(async () => {
  t = await buildTestApp();
  const account = await t.app.services.accounts.resolve();
  const owner = (await t.app.services.store.users.owner(account.id))!;
  ownerEmail = owner.email;
  await t.app.services.signIn.setPassword(owner, PASSWORD);
});
afterAll(() => t?.close());

/** A form-encoded POST, as RFC 8628 clients send. */
async function form(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
  return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : null };
}
const authorize = (fields: Record<string, string> = {}) =>
  form('/oauth/device_authorization', { client_id: 'parley-cli', ...fields });
const poll = (deviceCode: string, clientId = 'parley-cli') =>
  form('/oauth/token', { grant_type: GRANT, client_id: clientId, device_code: deviceCode });
const browser = (headers: Record<string, string> = {}) => new FormBrowser(injectSend(t.app), headers);

describe('discovery', () => {
  test('authorization server metadata (RFC 8414) names the device, code, registration and token endpoints', async () => {
    const res = await t.app.inject('/.well-known/oauth-authorization-server');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({
      issuer: 'http://parley.test',
      device_authorization_endpoint: 'http://parley.test/oauth/device_authorization',
      token_endpoint: 'http://parley.test/oauth/token',
      revocation_endpoint: 'http://parley.test/oauth/revoke',
      authorization_endpoint: 'http://parley.test/oauth/authorize',
      registration_endpoint: 'http://parley.test/oauth/register',
      grant_types_supported: ['authorization_code', GRANT],
      token_endpoint_auth_methods_supported: ['none'],
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: [...SCOPES],
    });
  });

  test('the 401 challenge points to protected resource metadata (RFC 9728) that names its resource and server', async () => {
    const denied = await t.call('GET', '/api/v2/chatbots');
    expect(denied.status).toBe(401);
    const challenge = String(denied.headers['www-authenticate']);
    const url = /^Bearer resource_metadata="([^"]+)"$/.exec(challenge)?.[1];
    expect(url).toBe('http://parley.test/.well-known/oauth-protected-resource/api/v2');
    const doc = (await t.app.inject(new URL(url!).pathname)).json();
    expect(doc).toEqual({
      resource: 'http://parley.test/api/v2',
      authorization_servers: ['http://parley.test'],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Parley API',
      resource_documentation: 'http://parley.test/api/v2/openapi.json',
    });
    const root = (await t.app.inject('/.well-known/oauth-protected-resource')).json();
    expect(root).toMatchObject({ resource: 'http://parley.test', authorization_servers: ['http://parley.test'] });
    // The metadata's issuer is the server the resource names.
    const as = (await t.app.inject('/.well-known/oauth-authorization-server')).json();
    expect(doc.authorization_servers).toContain(as.issuer);
  });
});

describe('device authorization and token endpoints', () => {
  test('a device code answer has every RFC 8628 field; the complete URI carries the code', async () => {
    const res = await authorize({ scope: 'chatbots:read' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      device_code: expect.any(String),
      user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: 'http://parley.test/device',
      verification_uri_complete: `http://parley.test/device?user_code=${res.body.user_code.replace('-', '')}`,
      expires_in: 600,
      interval: 5,
    });
  });

  test('errors are RFC 6749 bodies: unknown client 401 invalid_client, bad scope, repeated parameter, other grant types', async () => {
    const unknown = await form('/oauth/device_authorization', { client_id: 'evil-cli' });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect((await form('/oauth/device_authorization', {})).body.error).toBe('invalid_client');
    expect((await authorize({ scope: 'everything' })).body.error).toBe('invalid_scope');
    const twice = await t.app.inject({
      method: 'POST',
      url: '/oauth/device_authorization',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'client_id=parley-cli&client_id=parley-cli',
    });
    expect([twice.statusCode, twice.json().error]).toEqual([400, 'invalid_request']);
    const grant = await form('/oauth/token', { grant_type: 'password', client_id: 'parley-cli' });
    expect([grant.status, grant.body.error]).toEqual([400, 'unsupported_grant_type']);
    expect((await form('/oauth/token', { client_id: 'parley-cli' })).body.error).toBe('invalid_request');
    expect((await poll('no-such-code')).body.error).toBe('invalid_grant');
    const garbage = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect([garbage.statusCode, garbage.json().error]).toEqual([400, 'invalid_request']);
  });

  test('pending, then slow_down for a poll sooner than the interval (the interval grows by 5 s)', async () => {
    const { body: started } = await authorize();
    const first = await poll(started.device_code);
    expect([first.status, first.body.error]).toEqual([400, 'authorization_pending']);
    const fast = await poll(started.device_code);
    expect([fast.status, fast.body.error]).toEqual([400, 'slow_down']);
    expect(fast.body.error_description).toMatch(/10 seconds/);
    expect((await poll(started.device_code, 'other-client')).body.error).toBe('invalid_client');
  });
});

describe('the verification page', () => {
  test('sign in, enter the code in any case without the dash, approve: one scoped token, listed and revocable', async () => {
    const { body: started } = await authorize({ scope: 'chatbots:read tokens:read' });
    const b = browser();
    const page = await b.get('/device');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(page.headers.get('content-security-policy')).not.toMatch(/unsafe-inline/);
    expect(page.body).not.toMatch(/<script|\son\w+=/i);
    expect(page.body).toMatch(/<html lang="en">/);
    expect(page.body).toMatch(/<label for="email">/);

    const signedIn = await b.submit(page, '/device/sign-in', { email: ownerEmail.toUpperCase(), password: PASSWORD });
    expect(signedIn.status).toBe(303);
    const session = b.lastSetCookie.find((c) => c.startsWith('parley_session='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    expect(session).toMatch(/Path=\/;/i);
    expect(session).not.toMatch(/Secure/i);

    const codeForm = await b.get('/device');
    expect(codeForm.body).toContain('action="/device"');
    const typed = started.user_code.toLowerCase().replace('-', ' ');
    const approval = await b.submit(codeForm, '/device', { user_code: typed });
    expect(approval.status).toBe(200);
    expect(approval.body).toContain(started.user_code);
    expect(approval.body).toContain('<code>chatbots:read</code>');
    expect(approval.body).toContain('<code>tokens:read</code>');

    const pending = await poll(started.device_code);
    expect(pending.body.error).toBe('authorization_pending');
    const done = await b.submit(approval, '/device/decision', { user_code: started.user_code, decision: 'approve' });
    expect(done.status).toBe(200);
    expect(done.body).toContain('Device approved');

    // The first poll after the interval... the app's clock is real: the row's last poll is
    // moved back instead of sleeping.
    await t.database.db.updateTable('oauth_device_codes').set({ last_polled_at: null }).execute();
    const granted = await poll(started.device_code);
    expect(granted.status).toBe(200);
    expect(granted.headers['cache-control']).toBe('no-store');
    expect(granted.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      scope: 'tokens:read chatbots:read',
    });
    const me = await t.call('GET', '/api/v2/tokens', granted.body.access_token);
    expect(me.status).toBe(200);
    const listed = me.body.data.tokens.find((x: { name: string }) => x.name === 'Parley CLI (device sign-in)');
    expect(listed).toMatchObject({ access: 'custom', scopes: ['tokens:read', 'chatbots:read'] });
    expect((await t.call('POST', '/api/v2/chatbots', granted.body.access_token, { title: 'x' })).status).toBe(403);

    // Revoked through the v2 API like any token.
    const { token: admin } = await t.token();
    expect((await t.call('DELETE', `/api/v2/tokens/${listed.id}`, admin)).status).toBe(200);
    expect((await t.call('GET', '/api/v2/tokens', granted.body.access_token)).status).toBe(401);
  });

  test('deny: the client hears access_denied', async () => {
    const { body: started } = await authorize();
    const done = await answerDeviceCode(browser(), {
      email: ownerEmail,
      password: PASSWORD,
      userCode: started.user_code,
      approve: false,
    });
    expect(done.body).toContain('Request denied');
    expect((await poll(started.device_code)).body.error).toBe('access_denied');
  });

  test('a code past its expiry: approved in time but polled after, expired_token and no token; pending, the page no longer takes it', async () => {
    const rows = async () =>
      (await t.database.db.selectFrom('oauth_device_codes').select('id').execute()).map((r) => r.id);
    const tokens = async () => (await t.database.db.selectFrom('tokens').select('id').execute()).length;
    // The app's clock is real: the row's expiry is moved into the past instead of sleeping ten minutes.
    const expire = (id: string) =>
      t.database.db
        .updateTable('oauth_device_codes')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString(), last_polled_at: null })
        .where('id', '=', id)
        .execute();

    const before = await rows();
    const { body: approvedLate } = await authorize({ scope: 'chatbots:read' });
    const [approvedId] = (await rows()).filter((id) => !before.includes(id));
    const done = await answerDeviceCode(browser(), {
      email: ownerEmail,
      password: PASSWORD,
      userCode: approvedLate.user_code,
    });
    expect(done.body).toContain('Device approved');
    await expire(approvedId);
    const tokensBefore = await tokens();
    const late = await poll(approvedLate.device_code);
    expect([late.status, late.body.error]).toEqual([400, 'expired_token']);
    expect(await tokens()).toBe(tokensBefore);

    const seen = await rows();
    const { body: unanswered } = await authorize();
    const [pendingId] = (await rows()).filter((id) => !seen.includes(id));
    await expire(pendingId);
    await expect(
      answerDeviceCode(browser(), { email: ownerEmail, password: PASSWORD, userCode: unanswered.user_code }),
    ).rejects.toThrow(/not accepted/);
    expect((await poll(unanswered.device_code)).body.error).toBe('expired_token');
  });

  test('concurrent polls of an approved code over HTTP: exactly one access token', async () => {
    const { body: started } = await authorize({ scope: 'chatbots:read' });
    await answerDeviceCode(browser(), { email: ownerEmail, password: PASSWORD, userCode: started.user_code });
    const results = await Promise.all(Array.from({ length: 6 }, () => poll(started.device_code)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results) if (r.status !== 200) expect(['slow_down', 'invalid_grant']).toContain(r.body.error);
  });

  test('a form without the CSRF token, or with a token of another browser, is refused and changes nothing', async () => {
    const b = browser();
    await b.get('/device');
    const missing = await b.post('/device/sign-in', { email: ownerEmail, password: PASSWORD });
    expect(missing.status).toBe(403);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    expect(b.cookies.has('parley_session')).toBe(false);

    const other = browser();
    const theirPage = await other.get('/device');
    const forged = await b.post('/device/sign-in', {
      _csrf: csrfToken(theirPage.body),
      email: ownerEmail,
      password: PASSWORD,
    });
    expect(forged.status).toBe(403);
    expect(b.cookies.has('parley_session')).toBe(false);

    // Signed in, an approval posted without the token is refused and the code stays pending.
    const { body: started } = await authorize();
    const page = await b.get('/device');
    expect((await b.submit(page, '/device/sign-in', { email: ownerEmail, password: PASSWORD })).status).toBe(303);
    const forgedDecision = await b.post('/device/decision', { user_code: started.user_code, decision: 'approve' });
    expect(forgedDecision.status).toBe(403);
    expect((await poll(started.device_code)).body.error).toBe('authorization_pending');
  });

  test('a wrong password is refused; after 5 in a row even the right one waits', async () => {
    const { app } = await buildIsolated();
    try {
      const b = new FormBrowser(injectSend(app.app));
      let page = await b.get('/device');
      for (let i = 0; i < 5; i++) {
        page = await b.submit(page, '/device/sign-in', { email: 'boss@example.com', password: `wrong password ${i}` });
        expect(page.status).toBe(401);
        expect(page.body).toContain('The e-mail or the password is not right.');
        expect(page.body).toContain('role="alert"');
      }
      const right = await b.submit(page, '/device/sign-in', { email: 'boss@example.com', password: PASSWORD });
      expect(right.status).toBe(429);
      expect(right.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(b.cookies.has('parley_session')).toBe(false);
      // Unknown e-mails answer exactly like wrong passwords.
      const stranger = await b.submit(right, '/device/sign-in', { email: 'nobody@example.com', password: PASSWORD });
      expect(stranger.status).toBe(401);
      expect(stranger.body).toContain('The e-mail or the password is not right.');
    } finally {
      await app.close();
    }
  });

  // Ten real password checks (scrypt) before the 429: CPU-bound, slow under four forks.
  test('sign-in posts are limited per address: the 11th within a minute is 429', { timeout: 90_000 }, async () => {
    const { app } = await buildIsolated();
    try {
      const b = new FormBrowser(injectSend(app.app));
      let page = await b.get('/device');
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await b.submit(page, '/device/sign-in', {
          email: `someone${i}@example.com`,
          password: 'whatever it is',
        });
        statuses.push(res.status);
        if (res.status !== 429) page = res;
      }
      expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
      expect(statuses[10]).toBe(429);
    } finally {
      await app.close();
    }
  });

  test('wrong codes on the page are limited: 10, then the page says to wait', async () => {
    const { app } = await buildIsolated();
    try {
      const b = new FormBrowser(injectSend(app.app));
      let page = await b.get('/device');
      page = await b.submit(page, '/device/sign-in', { email: 'boss@example.com', password: PASSWORD });
      page = await b.get('/device');
      for (let i = 0; i < 10; i++) {
        page = await b.submit(page, '/device', { user_code: 'BBBB-BBBB' });
        expect(page.status).toBe(400);
        expect(page.body).toContain('This code is not valid');
      }
      const blocked = await b.submit(page, '/device', { user_code: 'BBBB-BBBB' });
      expect(blocked.status).toBe(429);
      expect(blocked.body).toContain('Too many tries');
    } finally {
      await app.close();
    }
  });

  test('German when the browser prefers it; Secure cookies when the site is https', async () => {
    const { app } = await buildIsolated({ SITE_URL: 'https://chat.example.com' });
    try {
      const b = new FormBrowser(injectSend(app.app), { 'accept-language': 'fr;q=0.9, de-CH, en;q=0.5' });
      const page = await b.get('/device');
      expect(page.body).toContain('<html lang="de">');
      expect(page.body).toContain('Anmelden');
      expect(b.lastSetCookie.find((c) => c.startsWith('parley_csrf='))).toMatch(/Secure/);
      await b.submit(page, '/device/sign-in', { email: 'boss@example.com', password: PASSWORD });
      expect(b.lastSetCookie.find((c) => c.startsWith('parley_session='))).toMatch(/Secure/);
      const doc = (await app.app.inject('/.well-known/oauth-authorization-server')).json();
      expect(doc.issuer).toBe('https://chat.example.com');
    } finally {
      await app.close();
    }
  });
});

describe('the verification page in every language of the widget', () => {
  test("the page's languages are the widget's; each has every string, non-empty, with English's placeholders", () => {
    const widget = readdirSync(new URL('../../../../widget/i18n/', import.meta.url))
      .filter((f) => /^[a-z]{2}\.ts$/.test(f))
      .map((f) => f.slice(0, 2));
    expect([...LOCALES].sort()).toEqual(widget.sort());
    const en = stringsFor('en');
    const placeholders = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();
    for (const locale of LOCALES) {
      const t = stringsFor(locale);
      expect(Object.keys(t).sort(), locale).toEqual(Object.keys(en).sort());
      for (const [k, text] of Object.entries(t)) {
        expect(text.trim(), `${locale}.${k}`).not.toBe('');
        expect(placeholders(text), `${locale}.${k}`).toEqual(placeholders(en[k as keyof typeof en]));
        // Translated, not English left in place (words that are the same in both are allowed).
        if (locale !== 'en' && text === en[k as keyof typeof en])
          expect(['codeLabel', 'chatbotsHeading', 'email', 'password'], `${locale}.${k}`).toContain(k);
      }
    }
  });

  test('Japanese for ja, Portuguese for pt-BR, English for a language we lack', async () => {
    const cases: [string, string, string][] = [
      ['ja,en;q=0.5', 'ja', 'デバイスを承認するにはサインインしてください'],
      ['pt-BR, en;q=0.8', 'pt', 'Inicie sessão para aprovar um dispositivo'],
      ['fi, sv;q=0.4', 'sv', 'Logga in för att godkänna en enhet'],
      ['fi', 'en', 'Sign in to approve a device'],
    ];
    for (const [header, lang, heading] of cases) {
      const page = await new FormBrowser(injectSend(t.app), { 'accept-language': header }).get('/device');
      expect(page.status, header).toBe(200);
      expect(page.body, header).toContain(`<html lang="${lang}">`);
      expect(page.body, header).toContain(heading);
    }
  });
});

/** Its own app (its own throttles and rate limits) with an owner boss@example.com who has a password. */
async function buildIsolated(env: Record<string, string> = {}) {
  const app = await buildTestApp({ env: { OWNER_EMAIL: 'boss@example.com', ...env } });
  const account = await app.app.services.accounts.resolve();
  await app.app.services.signIn.setPassword((await app.app.services.store.users.owner(account.id))!, PASSWORD);
  return { app };
}

describe('roles and databases', () => {
  test("a member's approval page shows the scopes their role withholds, and the token acts without them", async () => {
    const account = await t.app.services.accounts.resolve();
    const member = {
      id: 'member-of-test',
      accountId: account.id,
      email: 'member@example.com',
      name: null,
      role: 'member' as const,
      createdAt: new Date().toISOString(),
    };
    await t.app.services.store.users.insert(member);
    await t.app.services.signIn.setPassword(member, PASSWORD);
    const { body: started } = await authorize({ scope: 'chatbots:read chatbots:delete' });
    const b = browser();
    const page = await b.get('/device');
    await b.submit(page, '/device/sign-in', { email: member.email, password: PASSWORD });
    const approval = await b.submit(await b.get('/device'), '/device', { user_code: started.user_code });
    expect(approval.body).toMatch(/Your role does not allow these[^]*<code>chatbots:delete<\/code>/);
    await b.submit(approval, '/device/decision', { user_code: started.user_code, decision: 'approve' });
    const granted = await poll(started.device_code);
    expect(granted.status).toBe(200);
    // The token response reports what the token can do, as /me does.
    expect(granted.body.scope).toBe('chatbots:read');
    const me = await t.call('GET', '/api/v2/me', granted.body.access_token);
    expect(me.body.data).toMatchObject({
      user: { email: 'member@example.com' },
      scopes: ['chatbots:read'],
      withheldByRole: ['chatbots:delete'],
    });
  });

  test.skipIf(!postgresReady)(
    'on PostgreSQL too: concurrent polls of an approved code give exactly one token',
    async () => {
      const pg = await buildTestApp({ dialect: 'postgres', env: { OWNER_EMAIL: 'boss@example.com' } });
      try {
        const account = await pg.app.services.accounts.resolve();
        await pg.app.services.signIn.setPassword((await pg.app.services.store.users.owner(account.id))!, PASSWORD);
        const post = async (url: string, fields: Record<string, string>) =>
          pg.app.inject({
            method: 'POST',
            url,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            payload: new URLSearchParams(fields).toString(),
          });
        const started = (
          await post('/oauth/device_authorization', { client_id: 'parley-cli', scope: 'chatbots:read' })
        ).json();
        await answerDeviceCode(new FormBrowser(injectSend(pg.app)), {
          email: 'boss@example.com',
          password: PASSWORD,
          userCode: started.user_code,
        });
        const polls = await Promise.all(
          Array.from({ length: 6 }, () =>
            post('/oauth/token', { grant_type: GRANT, client_id: 'parley-cli', device_code: started.device_code }),
          ),
        );
        expect(polls.filter((r) => r.statusCode === 200)).toHaveLength(1);
        const tokens = await pg.app.services.tokens.listAll(account.id);
        expect(tokens.filter((x) => x.name === 'Parley CLI (device sign-in)')).toHaveLength(1);
      } finally {
        await pg.close();
      }
    },
  );
});

test('the approval page names the chatbots asked for, their titles escaped', async () => {
  const { token } = await t.token();
  const created = await t.call('POST', '/api/v2/chatbots', token, {
    title: '<img src=x onerror=alert(1)> & "Support"',
  });
  const id = created.body.data.chatbot.id as string;
  const { body: started } = await authorize({ chatbots: `${id} unknownBot` });
  const b = browser();
  await b.submit(await b.get('/device'), '/device/sign-in', { email: ownerEmail, password: PASSWORD });
  const approval = await b.submit(await b.get('/device'), '/device', { user_code: started.user_code });
  expect(approval.body).not.toContain('<img');
  expect(approval.body).toContain('&#60;img src=x onerror=alert(1)&#62; &#38; &#34;Support&#34;');
  expect(approval.body).toContain('unknownBot: not a chatbot of your account');
  // A request naming a chatbot outside the account offers no Approve button, and a forged approval is refused.
  expect(approval.body).not.toContain('value="approve"');
  const forced = await b.submit(approval, '/device/decision', { user_code: started.user_code, decision: 'approve' });
  expect(forced.status).toBe(409);
  expect((await poll(started.device_code)).body.error).toBe('authorization_pending');
});
