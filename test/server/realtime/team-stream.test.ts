/**
 * The team's live stream over a real socket: a v2 token with conversations:read sees its
 * chatbots' new conversations, messages, streamed answers and condition changes, numbered like
 * the visitor's; a token restricted to other chatbots sees none of them; one without the scope
 * is refused.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { CLOSE, WS_SUBPROTOCOL, type AckFrame, type ServerFrame } from '../../../shared/protocol.js';
import { TEAM_TOKEN_PROTOCOL_PREFIX } from '../../../server/routes/widget/team-stream.js';
import { chatbotWithKnowledge, Client, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;
let otherId: string;

beforeAll(async () => {
  t = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(t);
  otherId = await chatbotWithKnowledge(t);
});
afterAll(async () => {
  await t.close();
});

async function team(token: string, viaHeader = false): Promise<Client> {
  const url = t.url.replace(/^http/, 'ws') + '/api/v2/stream';
  const ws = viaHeader
    ? new WebSocket(url, [WS_SUBPROTOCOL], { headers: { authorization: `Bearer ${token}` } })
    : new WebSocket(url, [WS_SUBPROTOCOL, TEAM_TOKEN_PROTOCOL_PREFIX + token]);
  const c = new Client(ws);
  await new Promise((resolve) => {
    ws.once('open', resolve);
    ws.once('close', resolve);
  });
  return c;
}

test('the stream carries a visitor conversation live: start, message, deltas, answer, take-over, with the same numbers', async () => {
  const { token } = await t.token({ access: 'custom', scopes: ['conversations:read'] });
  const restricted = (await t.token({ access: 'custom', scopes: ['conversations:read'], chatbotIds: [otherId] })).token;
  const agent = await team(token);
  agent.send({ type: 'hello', v: 1 });
  const ready = await agent.waitFor((f) => (f as { type: string }).type === 'team.ready');
  expect((ready as unknown as { chatbotIds: string[] }).chatbotIds).toEqual(expect.arrayContaining([chatbotId, otherId]));
  const outsider = await team(restricted, true);
  outsider.send({ type: 'hello', v: 1 });
  await outsider.waitFor((f) => (f as { type: string }).type === 'team.ready');

  const session = await newSession(t, chatbotId);
  const v = await visitor(t.url, session.token);
  v.send({ type: 'message.send', clientId: 'team-1', text: 'When are refunds paid?' });
  const ack = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  const done = await agent.waitFor((f) => f.type === 'answer.done' && f.conversationId === ack.conversationId);
  const mine = (f: ServerFrame) => 'conversationId' in f && f.conversationId === ack.conversationId;
  expect(agent.frames.filter(mine).map((f) => f.type)).toEqual(expect.arrayContaining(['condition', 'message.created', 'answer.delta', 'answer.done']));
  expect(agent.frames.filter((f) => mine(f) && 'seq' in f).map((f) => (f as { seq: number }).seq)).toEqual([1, 2, 3]);
  expect((done as { message: { text: string } }).message.text).toContain('5 business days');

  expect((await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${ack.conversationId}/take-over`, t.ownerToken)).status).toBe(200);
  await agent.waitFor((f) => f.type === 'condition' && f.change === 'taken_over' && f.conversationId === ack.conversationId);
  // The visitor's typing reaches the team; the restricted token saw nothing of this chatbot.
  v.send({ type: 'typing', conversationId: ack.conversationId, typing: true });
  await agent.waitFor((f) => (f as { type: string }).type === 'visitor.typing');
  expect(outsider.frames.filter(mine)).toEqual([]);

  // Resume on a new stream: exactly what came after the given number, then the condition.
  const again = await team(token);
  again.send({ type: 'hello', v: 1, resume: { [ack.conversationId]: 2 } });
  await again.waitFor((f) => f.type === 'synced');
  expect(again.frames.filter((f) => mine(f) && 'seq' in f).map((f) => [f.type, (f as { seq: number }).seq])).toEqual([
    ['answer.done', 3],
    ['condition', 4],
    ['condition', 4],
    ['synced', 4],
  ]);
  for (const c of [agent, outsider, again, v]) c.close();
});

test('a token without conversations:read, or no token, is closed with 4001', async () => {
  const { token } = await t.token({ access: 'custom', scopes: ['chatbots:read'] });
  const denied = await team(token);
  expect((await denied.waitClosed()).code).toBe(CLOSE.sessionInvalid);
  const none = await team('');
  none.send({ type: 'hello', v: 1 });
  expect((await none.waitClosed()).code).toBe(CLOSE.sessionInvalid);
});
