/**
 * The authorization code grant with PKCE and dynamic client registration, driven by oauth4webapi
 * (a client nobody here wrote) against the app listening on loopback; the user is played through
 * the authorization page's forms as a browser would. Then what must be refused: a wrong verifier,
 * a code used twice, a redirect URI the client did not register, scopes above the user's role,
 * plain-http redirects, and malformed input of every kind (never a 500).
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AuthorizationCodeService } from '../../../../server/domain/oauth/authorization-code.service.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { answerAuthorization, fetchSend, FormBrowser, injectSend } from '../../../helpers/browser-form.js';
import { postgresReady } from '../../../helpers/dialects.js';
import { listenWithOwnerAndMember } from '../../../helpers/sign-in-site.js';

const OWNER = 'boss@example.com';
const MEMBER = 'member@example.com';
const PASSWORD = 'correct horse battery staple';
const INSECURE = { [oauth.allowInsecureRequests]: true };

let t: TestApp;
let site: string;
let as: oauth.AuthorizationServer;
/** One registered client for most tests (registration is limited per address and hour). */
let client: oauth.Client;
const REGISTERED = 'http://127.0.0.1:4567/callback';

async function register(metadata: Record<string, unknown>) {
  const res = await fetch(`${site}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function token(fields: Record<string, string>) {
  const res = await fetch(`${site}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** An authorization request's path with a fresh PKCE pair (the verifier returned). */
async function request(overrides: Record<string, string | null> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const params: Record<string, string | null> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REGISTERED,
    scope: 'chatbots:read conversations:read',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    resource: `${site}/mcp`,
    ...overrides,
  };
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== null));
  return { path: `/oauth/authorize?${query}`, verifier, state, redirectUri: params.redirect_uri! };
}

const browser = () => new FormBrowser(fetchSend(site));

/** A code the owner allowed, with what is needed to trade it. */
async function allowedCode(b = browser(), overrides: Record<string, string | null> = {}) {
  const r = await request(overrides);
  const { answer } = await answerAuthorization(b, { path: r.path, email: OWNER, password: PASSWORD });
  expect(answer.status).toBe(303);
  const back = new URL(answer.headers.get('location')!);
  return { ...r, back, code: back.searchParams.get('code')! };
}

beforeAll(async () => {
  ({ t, site } = await listenWithOwnerAndMember({ owner: OWNER, member: MEMBER, password: PASSWORD }));

  as = await oauth.processDiscoveryResponse(
    new URL(site),
    await oauth.discoveryRequest(new URL(site), { ...INSECURE, algorithm: 'oauth2' }),
  );
  client = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      { client_name: 'Report builder', redirect_uris: [REGISTERED], token_endpoint_auth_method: 'none' },
      INSECURE,
    ),
  );
});
afterAll(() => t?.close());

test('the metadata names the authorization and registration endpoints, S256 and public clients', () => {
  expect(as).toMatchObject({
    issuer: site,
    authorization_endpoint: `${site}/oauth/authorize`,
    registration_endpoint: `${site}/oauth/register`,
    token_endpoint: `${site}/oauth/token`,
    code_challenge_methods_supported: ['S256'],
    response_types_supported: ['code'],
    token_endpoint_auth_methods_supported: ['none'],
  });
  expect(as.grant_types_supported).toEqual(
    expect.arrayContaining(['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code']),
  );
  expect(client).toMatchObject({
    client_name: 'Report builder',
    redirect_uris: [REGISTERED],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
  });
});

test('oauth4webapi: sign in, allow, trade the code with its verifier, and the token acts with the scopes asked for', async () => {
  const b = browser();
  // A loopback redirect may come back on another port than the one registered (RFC 8252 7.3).
  const r = await request({ redirect_uri: 'http://127.0.0.1:5678/callback' });
  const { consent, answer } = await answerAuthorization(b, { path: r.path, email: OWNER, password: PASSWORD });
  expect(consent.body).toContain('Report builder asks for access');
  expect(consent.body).toContain('you go back to 127.0.0.1:5678');
  expect(consent.body).toContain('<code>conversations:read</code>');
  // The answer may redirect to the client's origin, and nowhere else.
  expect(consent.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:5678;");
  expect(answer.status).toBe(303);

  const params = oauth.validateAuthResponse(as, client, new URL(answer.headers.get('location')!), r.state);
  expect(answer.headers.get('location')!.startsWith('http://127.0.0.1:5678/callback?')).toBe(true);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    r.redirectUri,
    r.verifier,
    {
      ...INSECURE,
      additionalParameters: { resource: `${site}/mcp` },
    },
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  expect(tokens.token_type).toBe('bearer');
  expect(tokens.scope?.split(' ').sort()).toEqual(['chatbots:read', 'conversations:read']);
  const me = await t.call('GET', '/api/v2/me', tokens.access_token);
  expect(me.status).toBe(200);
  expect(me.body.data.scopes.sort()).toEqual(['chatbots:read', 'conversations:read']);
  // Listed among the user's tokens under the client's name, revocable there or at /oauth/revoke.
  const listed = await t.call('GET', '/api/v2/tokens', (await t.token()).token);
  expect(listed.body.data.tokens.map((x: { name: string }) => x.name)).toContain('Report builder (OAuth sign-in)');
  const revoked = await fetch(`${site}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: client.client_id, token: tokens.access_token }),
  });
  expect(revoked.status).toBe(200);
  expect((await t.call('GET', '/api/v2/me', tokens.access_token)).status).toBe(401);

  // Already signed in (the console's session cookie): the next request goes straight to consent.
  const again = await b.get((await request()).path);
  expect(again.body).toContain('action="/oauth/authorize"');
  expect(again.body).not.toContain('type="password"');
});

describe('the token endpoint refuses', () => {
  test('a wrong code_verifier, a foreign redirect_uri, then the code twice: the token the code gave is revoked', async () => {
    const c = await allowedCode();
    const fields = {
      grant_type: 'authorization_code',
      client_id: client.client_id,
      code: c.code,
      redirect_uri: c.redirectUri,
    };
    const wrong = await token({ ...fields, code_verifier: oauth.generateRandomCodeVerifier() });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const elsewhere = await token({
      ...fields,
      redirect_uri: 'http://127.0.0.1:4567/other',
      code_verifier: c.verifier,
    });
    expect(elsewhere).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const noVerifier = await token(fields);
    expect(noVerifier).toMatchObject({ status: 400, body: { error: 'invalid_request' } });

    const first = await token({ ...fields, code_verifier: c.verifier });
    expect(first.status).toBe(200);
    expect((await t.call('GET', '/api/v2/me', first.body.access_token)).status).toBe(200);
    const reused = await token({ ...fields, code_verifier: c.verifier });
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // A code presented twice may have been stolen: what it gave no longer works.
    expect((await t.call('GET', '/api/v2/me', first.body.access_token)).status).toBe(401);
  });

  test("another client's code, an unknown client, a foreign resource and an unknown grant", async () => {
    const c = await allowedCode();
    const other = await register({ client_name: 'Other', redirect_uris: [REGISTERED] });
    const fields = {
      grant_type: 'authorization_code',
      code: c.code,
      redirect_uri: c.redirectUri,
      code_verifier: c.verifier,
    };
    expect(await token({ ...fields, client_id: other.body.client_id as string })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(await token({ ...fields, client_id: 'nobody' })).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    expect(
      await token({ ...fields, client_id: client.client_id, resource: 'https://elsewhere.example/mcp' }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    expect(await token({ ...fields, client_id: client.client_id, grant_type: 'refresh_token' })).toMatchObject({
      status: 400,
      body: { error: 'unsupported_grant_type' },
    });
    // Still unused after all that: the right request gets its token.
    expect((await token({ ...fields, client_id: client.client_id, resource: `${site}/api/v2` })).status).toBe(200);
  });
});

test('a code is good for a minute and no longer (the clock moved, not waited for)', async () => {
  let now = Date.now();
  const services = t.app.services;
  const codes = new AuthorizationCodeService(services.store, services.tokens, { issuer: site, now: () => now });
  const owner = (await services.store.users.owner((await services.accounts.resolve()).id))!;
  const mint = async () => {
    const r = await request();
    const checked = await codes.check(Object.fromEntries(new URLSearchParams(r.path.split('?')[1])));
    if (!checked.ok) throw new Error(checked.description);
    const code = new URL(await codes.decide(owner, checked.request, true)).searchParams.get('code')!;
    return { clientId: client.client_id, code, redirectUri: r.redirectUri, codeVerifier: r.verifier };
  };
  const late = await mint();
  now += 60_000;
  await expect(codes.exchange(late)).rejects.toMatchObject({ error: 'invalid_grant' });
  const inTime = await mint();
  now += 59_000;
  expect((await codes.exchange(inTime)).scopes.sort()).toEqual(['chatbots:read', 'conversations:read']);
});

describe('the authorization page', () => {
  test('signed in to the console in this browser: no password asked, straight to the consent', async () => {
    const b = browser();
    const session = await b.get('/api/v2/session');
    const csrf = (JSON.parse(session.body) as { data: { csrfToken: string } }).data.csrfToken;
    const signedIn = await fetch(`${site}/api/v2/session`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-csrf-token': csrf,
        cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      body: JSON.stringify({ email: OWNER, password: PASSWORD }),
    });
    expect(signedIn.status).toBe(200);
    for (const line of signedIn.headers.getSetCookie()) {
      const [pair] = line.split(';');
      b.cookies.set(pair.slice(0, pair.indexOf('=')).trim(), pair.slice(pair.indexOf('=') + 1).trim());
    }
    const page = await b.get((await request()).path);
    expect(page.body).toContain('Report builder asks for access');
    expect(page.body).toContain(`Signed in as ${OWNER}.`);
    expect(page.body).not.toContain('type="password"');
  });

  test('an unknown client or a redirect_uri the client did not register is shown on the page, never redirected', async () => {
    const b = browser();
    const refused: Record<string, string | null>[] = [
      { client_id: 'mcp_unknown' },
      { redirect_uri: 'https://attacker.example/callback' },
      { redirect_uri: 'http://localhost:4567/callback' },
      { redirect_uri: null },
    ];
    for (const overrides of refused) {
      const page = await b.get((await request(overrides)).path);
      expect(page.status, JSON.stringify(overrides)).toBe(400);
      expect(page.headers.get('location')).toBeNull();
      expect(page.body).toContain('This sign-in link cannot be used.');
    }
    const twice = await b.get(`${(await request()).path}&client_id=again`);
    expect(twice.status).toBe(400);
    expect(twice.body).toContain('client_id must be given once');
  });

  test('a trusted client hears what was wrong through its redirect, with its state', async () => {
    const b = browser();
    const cases: [Record<string, string | null>, string][] = [
      [{ code_challenge: null }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'chatbots:read everything' }, 'invalid_scope'],
      [{ resource: 'https://elsewhere.example/' }, 'invalid_target'],
    ];
    for (const [overrides, error] of cases) {
      const r = await request(overrides);
      const page = await b.get(r.path);
      expect(page.status, error).toBe(303);
      const back = new URL(page.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).toBe(REGISTERED);
      expect(Object.fromEntries(back.searchParams)).toMatchObject({ error, state: r.state, iss: site });
    }
  });

  test('Deny sends access_denied back with the state, and no code', async () => {
    const r = await request();
    const { answer } = await answerAuthorization(browser(), {
      path: r.path,
      email: OWNER,
      password: PASSWORD,
      decision: 'deny',
    });
    const back = new URL(answer.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe(r.state);
    expect(back.searchParams.get('code')).toBeNull();
  });

  test('a wrong password stays on the page; a form without its CSRF token is refused', async () => {
    const b = browser();
    const r = await request();
    const page = await b.get(r.path);
    const wrong = await b.submit(page, '/oauth/authorize/sign-in', {
      ...Object.fromEntries(new URLSearchParams(r.path.split('?')[1])),
      email: OWNER,
      password: 'not it',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('The e-mail or the password is not right.');
    const forged = await b.post('/oauth/authorize', {
      ...Object.fromEntries(new URLSearchParams(r.path.split('?')[1])),
      decision: 'allow',
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
  });

  test("a member's consent shows the scopes their role withholds; the token acts without them", async () => {
    const r = await request({ scope: 'chatbots:read account:write' });
    const { consent, answer } = await answerAuthorization(browser(), {
      path: r.path,
      email: MEMBER,
      password: PASSWORD,
    });
    expect(consent.body).toMatch(/Your role does not allow these[^]*<code>account:write<\/code>/);
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    const issued = await token({
      grant_type: 'authorization_code',
      client_id: client.client_id,
      code,
      redirect_uri: r.redirectUri,
      code_verifier: r.verifier,
    });
    expect(issued.body.scope).toBe('chatbots:read');
    const patched = await t.call('PATCH', '/api/v2/account', issued.body.access_token, { name: 'Taken over' });
    expect(patched.status).toBe(403);

    // Nothing the role allows: no Allow button, and a forged Allow gets invalid_scope, no code.
    const only = await request({ scope: 'account:write' });
    const refused = await answerAuthorization(browser(), { path: only.path, email: MEMBER, password: PASSWORD });
    expect(refused.consent.body).not.toContain('value="allow"');
    const b = browser();
    const signedIn = await answerAuthorization(b, { path: only.path, email: MEMBER, password: PASSWORD });
    const forced = await b.submit(signedIn.consent, '/oauth/authorize', {
      ...Object.fromEntries(new URLSearchParams(only.path.split('?')[1])),
      decision: 'allow',
    });
    const back = new URL(forced.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('invalid_scope');
    expect(back.searchParams.get('code')).toBeNull();
  });
});

describe('registration', () => {
  test('refuses plain-http redirects off loopback, other schemes, fragments and confidential clients', async () => {
    for (const uri of [
      'http://example.com/callback',
      'http://127.0.0.2.example.com/callback',
      'javascript:alert(1)',
      'cursor-like-app://callback',
      'https://app.example/callback#frag',
      'https://user:pw@app.example/callback',
      'not a url',
    ]) {
      const res = await register({ client_name: 'X', redirect_uris: [uri] });
      expect(res, uri).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
    }
    const many = Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`);
    expect((await register({ redirect_uris: many })).body.error).toBe('invalid_redirect_uri');
    expect(
      await register({ redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'client_secret_basic' }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    expect(
      await register({ redirect_uris: ['https://app.example/cb'], grant_types: ['client_credentials'] }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    expect(await register({ redirect_uris: ['https://app.example/cb'], client_name: 'x'.repeat(81) })).toMatchObject({
      status: 400,
      body: { error: 'invalid_client_metadata' },
    });
  });

  test('malformed bodies and parameters answer OAuth errors, never a 500', async () => {
    const raw = async (url: string, body: string, type: string) => {
      const res = await fetch(`${site}${url}`, { method: 'POST', headers: { 'content-type': type }, body });
      return { status: res.status, body: await res.text() };
    };
    const answers = [
      await raw('/oauth/register', '{not json', 'application/json'),
      await raw('/oauth/register', '[1,2]', 'application/json'),
      await raw('/oauth/register', 'null', 'application/json'),
      await raw('/oauth/register', JSON.stringify({ redirect_uris: [1] }), 'application/json'),
      await raw('/oauth/register', JSON.stringify({ redirect_uris: 'https://a.example/cb' }), 'application/json'),
      await raw('/oauth/register', 'x'.repeat(20_000), 'application/json'),
      await raw('/oauth/register', 'redirect_uris=https://a.example', 'application/x-www-form-urlencoded'),
      await raw('/oauth/token', 'grant_type=authorization_code&code=a&code=b', 'application/x-www-form-urlencoded'),
      await raw('/oauth/token', 'grant_type=authorization_code', 'application/x-www-form-urlencoded'),
      await raw('/oauth/token', JSON.stringify({ grant_type: 'authorization_code', code: {} }), 'application/json'),
    ];
    for (const a of answers) {
      expect(a.status, a.body).toBeGreaterThanOrEqual(400);
      expect(a.status, a.body).toBeLessThan(500);
      expect(JSON.parse(a.body).error, a.body).toEqual(expect.any(String));
    }
    const b = browser();
    for (const path of [
      '/oauth/authorize',
      '/oauth/authorize?client_id[]=x',
      `/oauth/authorize?state=${'s'.repeat(5000)}`,
    ]) {
      const page = await b.get(path);
      expect(page.status, path).toBe(400);
    }
  });
});

test.skipIf(!postgresReady)('on PostgreSQL too: register, allow, trade once', async () => {
  const pg = await buildTestApp({ dialect: 'postgres', env: { OWNER_EMAIL: OWNER, SITE_URL: 'http://parley.test' } });
  try {
    const account = await pg.app.services.accounts.resolve();
    await pg.app.services.signIn.setPassword((await pg.app.services.store.users.owner(account.id))!, PASSWORD);
    const registered = await pg.app.inject({
      method: 'POST',
      url: '/oauth/register',
      payload: { client_name: 'PG client', redirect_uris: ['https://app.example/cb'] },
    });
    expect(registered.statusCode).toBe(201);
    const clientId = registered.json().client_id as string;
    const verifier = oauth.generateRandomCodeVerifier();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'https://app.example/cb',
      scope: 'chatbots:read',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const { answer } = await answerAuthorization(new FormBrowser(injectSend(pg.app)), {
      path: `/oauth/authorize?${query}`,
      email: OWNER,
      password: PASSWORD,
    });
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    const trade = () =>
      pg.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: clientId,
          code,
          redirect_uri: 'https://app.example/cb',
          code_verifier: verifier,
        }).toString(),
      });
    // Concurrent trades of one code: exactly one token.
    const answers = await Promise.all([trade(), trade(), trade()]);
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    expect(
      (await pg.app.services.tokens.listAll(account.id)).filter((x) => x.name === 'PG client (OAuth sign-in)'),
    ).toHaveLength(1);
  } finally {
    await pg.close();
  }
});
