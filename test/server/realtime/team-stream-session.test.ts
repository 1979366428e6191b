/**
 * The console's inbox opens the team stream with its session cookie, no token: from a page of
 * this site it is the signed-in user (their chatbots); from another site's page, or once signed
 * out, it is refused.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { CLOSE, WS_SUBPROTOCOL } from '../../../shared/protocol.js';
import { Client, type LiveApp, startLiveApp } from '../../helpers/widget.js';

const PASSWORD = 'a passphrase for the stream';
let t: LiveApp;
let chatbotId: string;

beforeAll(async () => {
  t = await startLiveApp();
  const account = await t.app.services.accounts.resolve();
  await t.app.services.signIn.setPassword((await t.app.services.store.users.owner(account.id))!, PASSWORD);
  chatbotId = (await t.call('POST', '/api/v2/chatbots', t.ownerToken, { title: 'Inbox' })).body.data.chatbot.id;
});
afterAll(() => t?.close());

async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const first = await fetch(`${t.url}/api/v2/session`);
  const csrfCookie = first.headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrf = (await first.json()).data.csrfToken;
  const email = (await t.call('GET', '/api/v2/me', t.ownerToken)).body.data.user.email;
  const res = await fetch(`${t.url}/api/v2/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: csrfCookie.join('; '), 'x-csrf-token': csrf },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  return { cookie: [...csrfCookie, ...res.headers.getSetCookie().map((c) => c.split(';')[0])].join('; '), csrf };
}

async function stream(cookie: string, origin: string): Promise<Client> {
  const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/api/v2/stream', [WS_SUBPROTOCOL], {
    headers: { cookie, origin },
  });
  const c = new Client(ws);
  await new Promise((resolve) => {
    ws.once('open', resolve);
    ws.once('close', resolve);
  });
  return c;
}

test('a page of this site opens the stream with the session cookie alone', async () => {
  const { cookie } = await signIn();
  const team = await stream(cookie, t.url);
  team.send({ type: 'hello', v: 1 });
  const ready = await team.waitFor((f) => (f as { type: string }).type === 'team.ready');
  expect((ready as unknown as { chatbotIds: string[] }).chatbotIds).toContain(chatbotId);
  team.ws.close();
});

test("another site's page is refused the session, and so is a session signed out", async () => {
  const { cookie, csrf } = await signIn();
  const foreign = await stream(cookie, 'https://evil.example');
  expect((await foreign.waitClosed()).code).toBe(CLOSE.sessionInvalid);

  const out = await fetch(`${t.url}/api/v2/session`, { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrf } });
  expect(out.status).toBe(200);
  const after = await stream(cookie, t.url);
  after.send({ type: 'hello', v: 1 });
  expect((await after.waitClosed()).code).toBe(CLOSE.sessionInvalid);
});
