/**
 * Streams per token: one token (leaked, or a runaway integration) may not open streams without
 * bound from many addresses, each re-reading its permissions and following every chatbot. Beyond
 * WS_MAX_STREAMS_PER_TOKEN a stream is closed with 4029 whichever way the token came (upgrade or
 * hello); another token is not affected, and an ended stream gives its place back. And what one
 * stream keeps: it sees every conversation of its chatbots for as long as it is open, so it keeps
 * following only the most recently active (WS_TEAM_FOLLOWED_MAX), and one it let go is delivered
 * again, exactly, from its next change.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { CLOSE, WS_SUBPROTOCOL } from '../../../shared/protocol.js';
import { TEAM_TOKEN_PROTOCOL_PREFIX } from '../../../server/routes/v2/stream.js';
import { Tracker } from '../../../server/realtime/tracker.js';
import { type AckFrame, type ServerFrame } from '../../../shared/protocol.js';
import { chatbotWithKnowledge, Client, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let t: LiveApp;
beforeAll(async () => {
  // TRUST_PROXY: each stream comes from its own address, so the per-IP limit is not what refuses.
  t = await startLiveApp({ env: { WS_MAX_STREAMS_PER_TOKEN: '2', TRUST_PROXY: '1', WS_TEAM_FOLLOWED_MAX: '2' } });
});
afterAll(async () => {
  await t.close();
});

let ip = 0;
async function stream(token: string, via: 'protocol' | 'hello'): Promise<Client> {
  const protocols = via === 'protocol' ? [WS_SUBPROTOCOL, TEAM_TOKEN_PROTOCOL_PREFIX + token] : [WS_SUBPROTOCOL];
  const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/api/v2/stream', protocols, {
    headers: { 'x-forwarded-for': `10.0.0.${++ip}` },
  });
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

async function conversationOf(chatbotId: string) {
  const v = await visitor(t.url, (await newSession(t, chatbotId)).token);
  v.send({ type: 'message.send', clientId: 'first', text: 'When are refunds paid?' });
  const { conversationId } = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  await v.waitFor((f) => f.type === 'answer.done');
  return { v, conversationId };
}

test('a reader follows at most its bound of conversations, letting go of the least recently active idle one', async () => {
  const chatbotId = await chatbotWithKnowledge(t);
  const chatbot = await t.app.realtime.chatbot(chatbotId);
  const sent: ServerFrame[] = [];
  const tracker = new Tracker(
    t.app.realtime,
    t.app.services.conversations.reads,
    (f) => sent.push(f),
    () => true,
    (err) => {
      throw err;
    },
    () => {},
    2,
  );
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const { v, conversationId } = await conversationOf(chatbotId);
    v.close();
    ids.push(conversationId);
    tracker.track(conversationId, chatbot, 0);
    await tracker.catchUp(conversationId);
  }
  expect(tracker.size).toBe(2);
  expect(ids.map((id) => tracker.has(id))).toEqual([false, false, true, true]);
  // Each was sent whole, once.
  for (const id of ids)
    expect(
      sent
        .filter((f) => 'conversationId' in f && f.conversationId === id && 'seq' in f)
        .map((f) => (f as { seq: number }).seq),
    ).toEqual([1, 2, 3]);
});

test('a conversation the stream let go is delivered again from its next change, nothing skipped or repeated', async () => {
  const chatbotId = await chatbotWithKnowledge(t);
  const s = await stream((await t.token({ access: 'custom', scopes: ['conversations:read'] })).token, 'protocol');
  const first = await conversationOf(chatbotId);
  for (let i = 0; i < 2; i++) (await conversationOf(chatbotId)).v.close();
  await s.waitFor((f) => f.type === 'answer.done' && s.of('answer.done').length === 3);
  first.v.send({
    type: 'message.send',
    conversationId: first.conversationId,
    clientId: 'again',
    text: 'And exchanges?',
  });
  await s.waitFor((f) => f.type === 'answer.done' && f.conversationId === first.conversationId && f.seq > 3);
  const seqs = s.frames
    .filter((f) => 'conversationId' in f && f.conversationId === first.conversationId && 'seq' in f && f.type !== 'ack')
    .map((f) => (f as { seq: number }).seq);
  expect(seqs).toEqual([1, 2, 3, 4, 5]);
  first.v.close();
  s.close();
});
