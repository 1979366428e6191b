/**
 * The SSE fallback's POSTed frames have the socket's rate: per session as a socket's per
 * connection, and per address as all the sockets one address may hold. Visitors behind one
 * address (an office whose proxy strips the upgrade) do not share one visitor's budget.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp } from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;
beforeAll(async () => {
  // 25 frames per 10 s per connection, 6 sockets per address: 150 frames per 10 s per address.
  t = await startLiveApp({ env: { WS_MAX_FRAMES_PER_10S: '25', WS_MAX_SOCKETS_PER_IP: '6' } });
  chatbotId = await chatbotWithKnowledge(t);
});
afterAll(async () => {
  await t.close();
});

const ping = (token: string) =>
  fetch(`${t.url}/api/widget/frames`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{"type":"ping"}',
  }).then(async (res) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() }));

test("one chatty visitor is refused 429; the others behind the same address are not, up to what the address's sockets may send", async () => {
  const tokens = [];
  for (let i = 0; i < 7; i++) tokens.push((await newSession(t, chatbotId)).token);
  for (let i = 0; i < 25; i++) expect((await ping(tokens[0])).status, `frame ${i + 1}`).toBe(200);
  const refused = await ping(tokens[0]);
  expect(refused.status).toBe(429);
  expect(refused.body.error.code).toBe('RATE_LIMITED');
  expect(Number(refused.retryAfter)).toBeGreaterThan(0);
  // Five more visitors of the address, 150 frames in all: none refused.
  for (let v = 1; v <= 5; v++) {
    for (let i = 0; i < 25; i++) expect((await ping(tokens[v])).status, `visitor ${v + 1}, frame ${i + 1}`).toBe(200);
  }
  // The address's share is used up: a seventh visitor's first frame waits.
  const seventh = await ping(tokens[6]);
  expect(seventh.status).toBe(429);
  expect(seventh.body.error.code).toBe('RATE_LIMITED');
});
