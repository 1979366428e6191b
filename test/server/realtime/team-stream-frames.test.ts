/**
 * A careless or hostile integrator on the team's stream: frames that are not JSON, of an
 * unknown type, of 1 MB, and hello sent twice at once (a client retrying on a slow open) get an
 * error or a close with a reason, never a crash, and the stream still carries each frame once.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { CLOSE, WS_SUBPROTOCOL, type AckFrame } from '../../../shared/protocol.js';
import { chatbotWithKnowledge, Client, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;

beforeAll(async () => {
  t = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(t);
});
afterAll(async () => {
  await t.close();
});

async function open(): Promise<Client> {
  const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/api/v2/stream', [WS_SUBPROTOCOL]);
  const c = new Client(ws);
  await new Promise((resolve) => ws.once('open', resolve));
  return c;
}

test('hello twice at once with the token in it: one team.ready, an error for the second, every delta once', async () => {
  const { token } = await t.token({ access: 'custom', scopes: ['conversations:read'] });
  const stream = await open();
  stream.send({ type: 'hello', v: 1, token });
  stream.send({ type: 'hello', v: 1, token });
  await stream.waitFor((f) => (f as { type: string }).type === 'team.ready');
  await stream.waitFor((f) => f.type === 'error');
  expect(stream.of('error')).toMatchObject([{ code: 'VALIDATION_FAILED', ref: { type: 'hello' } }]);

  const v = await visitor(t.url, (await newSession(t, chatbotId)).token);
  v.send({ type: 'message.send', clientId: 'twice', text: 'When are refunds paid?' });
  const ack = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  await stream.waitFor((f) => f.type === 'answer.done' && f.conversationId === ack.conversationId);
  expect(stream.frames.filter((f) => (f as { type: string }).type === 'team.ready')).toHaveLength(1);
  const deltas = stream.of('answer.delta').map((f) => JSON.stringify(f));
  expect(deltas.length).toBeGreaterThan(0);
  expect(new Set(deltas).size).toBe(deltas.length);
  v.close();
  stream.close();
});

test('not JSON, an unknown type, a visitor frame: error frames, the stream goes on; 1 MB: closed with 1009', async () => {
  const { token } = await t.token({ access: 'custom', scopes: ['conversations:read'] });
  const stream = await open();
  stream.send({ type: 'hello', v: 1, token });
  await stream.waitFor((f) => (f as { type: string }).type === 'team.ready');
  stream.send('{not json');
  stream.send({ type: 'launch.missiles' });
  stream.send({ type: 'message.send', clientId: 'x', text: 'as a visitor' });
  await expect.poll(() => stream.of('error').length).toBe(3);
  stream.send({ type: 'ping' });
  await stream.waitFor((f) => f.type === 'pong');
  stream.send('x'.repeat(1024 * 1024));
  expect((await stream.waitClosed()).code).toBe(CLOSE.tooBig);
  // The server is still up for the next stream.
  const next = await open();
  next.send({ type: 'hello', v: 1, token });
  await next.waitFor((f) => (f as { type: string }).type === 'team.ready');
  next.close();
});
