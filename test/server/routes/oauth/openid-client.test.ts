/**
 * The device flow driven by a client nobody here wrote: openid-client 6 (`algorithm: 'oauth2'`
 * discovery, its own polling) against the app listening on loopback, the approval done through
 * the verification page as a browser would. Two early polls first raise the code's interval: a
 * client that then obeys RFC 8628 3.5 (5 s more per slow_down it hears) still gets its token.
 */
import * as client from 'openid-client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { answerDeviceCode, fetchSend, FormBrowser } from '../../../helpers/browser-form.js';
import { freePort } from '../../../helpers/child-server.js';

const OWNER = 'boss@example.com';
const PASSWORD = 'correct horse battery staple';
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let t: TestApp;
let site: string;

beforeAll(async () => {
  const port = await freePort();
  site = `http://127.0.0.1:${port}`;
  // The shortest interval the server allows, so the slow_downs below cost seconds, not minutes.
  t = await buildTestApp({
    env: { SITE_URL: site, OWNER_EMAIL: OWNER, DEVICE_FLOW_INTERVAL_SECONDS: '1', DEVICE_FLOW_CODE_TTL_SECONDS: '60' },
  });
  const account = await t.app.services.accounts.resolve();
  await t.app.services.signIn.setPassword((await t.app.services.store.users.owner(account.id))!, PASSWORD);
  await t.app.listen({ port, host: '127.0.0.1' });
});
afterAll(() => t?.close());

test('openid-client discovers the server, starts the device flow and, after two early polls and the approval, gets a working token', async () => {
  const config = await client.discovery(new URL(site), 'parley-cli', undefined, client.None(), {
    algorithm: 'oauth2',
    execute: [client.allowInsecureRequests],
  });
  expect(config.serverMetadata().token_endpoint).toBe(`${site}/oauth/token`);

  const started = await client.initiateDeviceAuthorization(config, { scope: 'chatbots:read tokens:read' });
  expect(started).toMatchObject({ verification_uri: `${site}/device`, interval: 1, expires_in: 60 });

  // Two polls at once, before anyone approved: the second is too soon and raises the interval.
  const early = async () => {
    const res = await fetch(`${site}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: GRANT, client_id: 'parley-cli', device_code: started.device_code }),
    });
    return { error: ((await res.json()) as { error: string }).error, retryAfter: res.headers.get('retry-after') };
  };
  expect(await early()).toEqual({ error: 'authorization_pending', retryAfter: null });
  const second = await early();
  expect(second.error).toBe('slow_down');

  const approved = await answerDeviceCode(new FormBrowser(fetchSend(site)), {
    email: OWNER,
    password: PASSWORD,
    userCode: started.user_code,
  });
  expect(approved.body).toContain('Device approved');

  // openid-client polls on its own, adding 5 s per slow_down and honouring Retry-After.
  const tokens = await client.pollDeviceAuthorizationGrant(config, started);
  expect(tokens.token_type).toBe('bearer');
  expect(tokens.scope?.split(' ').sort()).toEqual(['chatbots:read', 'tokens:read']);
  // API tokens do not expire (revoked instead), so the answer names no lifetime.
  expect(tokens.expires_in).toBeUndefined();
  const me = await fetch(`${site}/api/v2/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  expect(me.status).toBe(200);
  expect(((await me.json()) as { data: { scopes: string[] } }).data.scopes.sort()).toEqual([
    'chatbots:read',
    'tokens:read',
  ]);
  // The slow_down said when to come back: the raised interval counted from the accepted poll.
  expect(Number(second.retryAfter)).toBeGreaterThanOrEqual(5);
}, 45_000);
