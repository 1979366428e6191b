/**
 * What an open team stream sends is current, not as it was when the stream first followed a
 * conversation: the chatbot's settings as the owner changed them; and the team's typing reaches a
 * visitor only while a person is on the conversation (escalated or taken over), never while the
 * AI answers alone, after a hand-back or once resolved; and only from a token that may write to
 * the conversation (a read-only token, given to a dashboard, must not show visitors a person typing).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { WS_SUBPROTOCOL, type AckFrame, type ServerFrame } from '../../../shared/protocol.js';
import { TEAM_TOKEN_PROTOCOL_PREFIX } from '../../../server/routes/v2/stream.js';
import { chatbotWithKnowledge, Client, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let t: LiveApp;

beforeAll(async () => {
  // Read again before every delivery, so "the next event after the change" is exact.
  t = await startLiveApp({ env: { WS_CHATBOT_REFRESH_MS: '0' } });
});
afterAll(async () => {
  await t.close();
});

async function team(token: string): Promise<Client> {
  const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/api/v2/stream', [
    WS_SUBPROTOCOL,
    TEAM_TOKEN_PROTOCOL_PREFIX + token,
  ]);
  const c = new Client(ws);
  await new Promise((resolve) => ws.once('open', resolve));
  c.send({ type: 'hello', v: 1 });
  await c.waitFor((f) => (f as { type: string }).type === 'team.ready');
  return c;
}

const answerOf = (conversationId: string, seqAbove: number) => (f: ServerFrame) =>
  f.type === 'answer.done' && f.conversationId === conversationId && f.seq > seqAbove;

test('a followed conversation is rendered with the chatbot settings as they are now (sources shown again)', async () => {
  const chatbotId = await chatbotWithKnowledge(t, { 'chat-mode': { hideSources: true } });
  const { token } = await t.token({ access: 'custom', scopes: ['conversations:read'] });
  const stream = await team(token);
  const v = await visitor(t.url, (await newSession(t, chatbotId)).token);
  v.send({ type: 'message.send', clientId: 'first', text: 'When are refunds paid?' });
  const { conversationId } = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  const first = await stream.waitFor<Extract<ServerFrame, { type: 'answer.done' }>>(answerOf(conversationId, 0));
  expect(first.message.sources).toEqual([]);

  expect(
    (await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/chat-mode`, t.ownerToken, { hideSources: false }))
      .status,
  ).toBe(200);
  v.send({ type: 'message.send', conversationId, clientId: 'second', text: 'When are refunds paid?' });
  const second = await stream.waitFor<Extract<ServerFrame, { type: 'answer.done' }>>(
    answerOf(conversationId, first.seq),
  );
  expect(second.message.sources.length).toBeGreaterThan(0);
  // The visitor's socket follows the same conversation and shows them too.
  const seen = await v.waitFor<Extract<ServerFrame, { type: 'answer.done' }>>(answerOf(conversationId, first.seq));
  expect(seen.message.sources.length).toBeGreaterThan(0);
  stream.close();
  v.close();
});

test("an owner's change reaches an open stream at once, not at its next re-read (the chatbot's doorbell)", async () => {
  // Re-reads a minute apart: only the ring can bring the change.
  const slow = await startLiveApp({ env: { WS_CHATBOT_REFRESH_MS: '60000', WS_HEARTBEAT_MS: '60000' } });
  try {
    const chatbotId = await chatbotWithKnowledge(slow, { 'chat-mode': { hideSources: true } });
    const ws = new WebSocket(slow.url.replace(/^http/, 'ws') + '/api/v2/stream', [
      WS_SUBPROTOCOL,
      TEAM_TOKEN_PROTOCOL_PREFIX + (await slow.token({ access: 'custom', scopes: ['conversations:read'] })).token,
    ]);
    const stream = new Client(ws);
    await new Promise((resolve) => ws.once('open', resolve));
    stream.send({ type: 'hello', v: 1 });
    await stream.waitFor((f) => (f as { type: string }).type === 'team.ready');
    const v = await visitor(slow.url, (await newSession(slow, chatbotId)).token);
    v.send({ type: 'message.send', clientId: 'first', text: 'When are refunds paid?' });
    const { conversationId } = await v.waitFor<AckFrame>((f) => f.type === 'ack');
    const first = await stream.waitFor<Extract<ServerFrame, { type: 'answer.done' }>>(answerOf(conversationId, 0));
    expect(first.message.sources).toEqual([]);
    expect(
      (
        await slow.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/chat-mode`, slow.ownerToken, {
          hideSources: false,
        })
      ).status,
    ).toBe(200);
    v.send({ type: 'message.send', conversationId, clientId: 'second', text: 'When are refunds paid?' });
    const second = await stream.waitFor<Extract<ServerFrame, { type: 'answer.done' }>>(
      answerOf(conversationId, first.seq),
    );
    expect(second.message.sources.length).toBeGreaterThan(0);
    stream.close();
    v.close();
  } finally {
    await slow.close();
  }
});

test("the team's typing reaches the visitor only while a person is on the conversation", async () => {
  const chatbotId = await chatbotWithKnowledge(t);
  const { token } = await t.token({ access: 'custom', scopes: ['conversations:read', 'conversations:write'] });
  const stream = await team(token);
  const v = await visitor(t.url, (await newSession(t, chatbotId)).token);
  v.send({ type: 'message.send', clientId: 'ask', text: 'When are refunds paid?' });
  const { conversationId } = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  await v.waitFor(answerOf(conversationId, 0));
  const base = `/api/v2/chatbots/${chatbotId}/conversations/${conversationId}`;
  const agentTyping = () => v.of('typing').filter((f) => f.who === 'agent');

  // Types, and (a sync point) sees its own typing come back on the stream, then the visitor's
  // socket answers a ping: anything sent to the visitor before would have arrived by then.
  const types = async (typing: boolean) => {
    const from = stream.frames.length;
    stream.send({ type: 'typing', conversationId, typing });
    await stream.waitFor(
      (f) => f.type === 'typing' && f.conversationId === conversationId && f.typing === typing,
      10_000,
      from,
    );
    const pongs = v.of('pong').length;
    v.send({ type: 'ping' });
    await v.waitFor(() => v.of('pong').length > pongs);
  };

  await types(true);
  expect(agentTyping()).toEqual([]);

  // Taken over: the visitor sees a person typing.
  expect((await t.call('POST', `${base}/take-over`, t.ownerToken)).status).toBe(200);
  await types(true);
  expect(agentTyping()).toMatchObject([{ typing: true, conversationId }]);
  await types(false);
  expect(agentTyping().length).toBe(2);

  // Handed back to the AI: no more.
  expect((await t.call('POST', `${base}/switch-to-ai`, t.ownerToken)).status).toBe(200);
  await types(true);
  expect(agentTyping().length).toBe(2);

  // Escalated (a person is coming, the AI still answers): the visitor sees the team typing.
  v.send({ type: 'escalate', conversationId });
  await v.waitFor((f) => f.type === 'condition' && f.change === 'escalated');
  await types(true);
  expect(agentTyping().length).toBe(3);

  // Resolved: no more.
  expect((await t.call('PATCH', base, t.ownerToken, { status: 'RESOLVED' })).status).toBe(200);
  await v.waitFor((f) => f.type === 'condition' && f.change === 'resolved');
  await types(true);
  expect(agentTyping().length).toBe(3);
  stream.close();
  v.close();
});

test('typing from a token without conversations:write is refused and reaches no one', async () => {
  const chatbotId = await chatbotWithKnowledge(t);
  const readOnly = await team((await t.token({ access: 'custom', scopes: ['conversations:read'] })).token);
  const colleague = await team((await t.token({ access: 'custom', scopes: ['conversations:read'] })).token);
  const v = await visitor(t.url, (await newSession(t, chatbotId)).token);
  v.send({ type: 'message.send', clientId: 'ask', text: 'When are refunds paid?' });
  const { conversationId } = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  await v.waitFor(answerOf(conversationId, 0));
  expect(
    (await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${conversationId}/take-over`, t.ownerToken))
      .status,
  ).toBe(200);
  await v.waitFor((f) => f.type === 'condition' && f.change === 'taken_over');

  readOnly.send({ type: 'typing', conversationId, typing: true });
  expect(await readOnly.waitFor((f) => f.type === 'error')).toMatchObject({
    code: 'TOKEN_SCOPE_NOT_ALLOWED',
    ref: { type: 'typing' },
  });
  const pongs = v.of('pong').length;
  v.send({ type: 'ping' });
  await v.waitFor(() => v.of('pong').length > pongs);
  expect(v.of('typing').filter((f) => f.who === 'agent')).toEqual([]);
  expect(colleague.of('typing').filter((f) => f.who === 'agent')).toEqual([]);
  for (const c of [readOnly, colleague, v]) c.close();
});
