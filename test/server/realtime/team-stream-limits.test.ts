/**
 * Streams per token: one token (leaked, or a runaway integration) may not open streams without
 * bound from many addresses, each re-reading its permissions and following every chatbot. Beyond
 * WS_MAX_STREAMS_PER_TOKEN a stream is closed with 4029 whichever way the token came (upgrade or
 * hello); another token is not affected, and an ended stream gives its place back.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { CLOSE, WS_SUBPROTOCOL } from '../../../shared/protocol.js';
import { TEAM_TOKEN_PROTOCOL_PREFIX } from '../../../server/routes/widget/team-stream.js';
import { Client, type LiveApp, startLiveApp } from '../../helpers/widget.js';

let t: LiveApp;
beforeAll(async () => {
  // TRUST_PROXY: each stream comes from its own address, so the per-IP limit is not what refuses.
  t = await startLiveApp({ env: { WS_MAX_STREAMS_PER_TOKEN: '2', TRUST_PROXY: '1' } });
});
afterAll(async () => {
  await t.close();
});

let ip = 0;
async function stream(token: string, via: 'protocol' | 'hello'): Promise<Client> {
  const protocols = via === 'protocol' ? [WS_SUBPROTOCOL, TEAM_TOKEN_PROTOCOL_PREFIX + token] : [WS_SUBPROTOCOL];
  const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/api/v2/stream', protocols, { headers: { 'x-forwarded-for': `10.0.0.${++ip}` } });
  const c = new Client(ws);
  await new Promise((resolve) => ws.once('open', resolve));
  c.send({ type: 'hello', v: 1, ...(via === 'hello' && { token }) });
  await c.waitFor((f) => (f as { type: string }).type === 'team.ready' || f.type === 'error').catch(() => {});
  return c;
}
const ready = (c: Client) => c.frames.some((f) => (f as { type: string }).type === 'team.ready');

test('a token holds at most WS_MAX_STREAMS_PER_TOKEN streams; a further one is closed with 4029, and an ended one frees its place', async () => {
  const { token } = await t.token({ access: 'custom', scopes: ['conversations:read'] });
  const first = await stream(token, 'protocol');
  const second = await stream(token, 'hello');
  expect([ready(first), ready(second)]).toEqual([true, true]);
  for (const via of ['protocol', 'hello'] as const) {
    const third = await stream(token, via);
    expect(await third.waitClosed()).toMatchObject({ code: CLOSE.tooManySockets });
    expect(ready(third)).toBe(false);
  }
  // Another token has its own places.
  const other = await stream((await t.token({ access: 'custom', scopes: ['conversations:read'] })).token, 'protocol');
  expect(ready(other)).toBe(true);
  first.close();
  await first.waitClosed();
  const tokenId = (await t.app.services.tokens.authenticate(token))!.token.id;
  await expect.poll(() => t.app.realtime.slots.held(`token:${tokenId}`)).toBe(1);
  const again = await stream(token, 'hello');
  expect(ready(again)).toBe(true);
  for (const c of [second, other, again]) c.close();
});
