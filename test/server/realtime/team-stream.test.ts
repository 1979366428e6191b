/**
 * The team's live stream over a real socket: a v2 token with conversations:read sees its
 * chatbots' new conversations, messages, streamed answers and condition changes, numbered like
 * the visitor's; a token restricted to other chatbots sees none of them; a member's token sees
 * only the chatbots the member was added to; one without the scope is refused.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { CLOSE, WS_SUBPROTOCOL, type AckFrame, type ServerFrame } from '../../../shared/protocol.js';
import { TEAM_TOKEN_PROTOCOL_PREFIX } from '../../../server/routes/v2/stream.js';
import { newId } from '../../../server/domain/ids.js';
import { tokenOf } from '../../helpers/resources.js';
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
  expect((ready as unknown as { chatbotIds: string[] }).chatbotIds).toEqual(
    expect.arrayContaining([chatbotId, otherId]),
  );
  const outsider = await team(restricted, true);
  outsider.send({ type: 'hello', v: 1 });
  await outsider.waitFor((f) => (f as { type: string }).type === 'team.ready');

  const session = await newSession(t, chatbotId);
  const v = await visitor(t.url, session.token);
  v.send({ type: 'message.send', clientId: 'team-1', text: 'When are refunds paid?' });
  const ack = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  const done = await agent.waitFor((f) => f.type === 'answer.done' && f.conversationId === ack.conversationId);
  const mine = (f: ServerFrame) => 'conversationId' in f && f.conversationId === ack.conversationId;
  expect(agent.frames.filter(mine).map((f) => f.type)).toEqual(
    expect.arrayContaining(['condition', 'message.created', 'answer.delta', 'answer.done']),
  );
  expect(agent.frames.filter((f) => mine(f) && 'seq' in f).map((f) => (f as { seq: number }).seq)).toEqual([1, 2, 3]);
  expect((done as { message: { text: string } }).message.text).toContain('5 business days');

  expect(
    (await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${ack.conversationId}/take-over`, t.ownerToken))
      .status,
  ).toBe(200);
  await agent.waitFor(
    (f) => f.type === 'condition' && f.change === 'taken_over' && f.conversationId === ack.conversationId,
  );
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

test("a member's token sees the conversations of the chatbots the member was added to, and nothing of the others", async () => {
  const email = `${newId()}@team.test`;
  const invited = await t.call('POST', `/api/v2/chatbots/${chatbotId}/members`, t.ownerToken, {
    email,
    role: 'member',
  });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const accountId = (await t.app.services.accounts.resolve()).id;
  const member = await team(await tokenOf(t, accountId, email));
  member.send({ type: 'hello', v: 1 });
  const ready = await member.waitFor((f) => (f as { type: string }).type === 'team.ready');
  expect((ready as unknown as { chatbotIds: string[] }).chatbotIds).toEqual([chatbotId]);

  const theirs = await visitor(t.url, (await newSession(t, chatbotId)).token);
  const elsewhere = await visitor(t.url, (await newSession(t, otherId)).token);
  elsewhere.send({ type: 'message.send', clientId: 'not-theirs', text: 'When are refunds paid?' });
  const hidden = await elsewhere.waitFor<AckFrame>((f) => f.type === 'ack');
  await elsewhere.waitFor((f) => f.type === 'answer.done');
  theirs.send({ type: 'message.send', clientId: 'theirs', text: 'When are refunds paid?' });
  const shown = await theirs.waitFor<AckFrame>((f) => f.type === 'ack');
  await member.waitFor((f) => f.type === 'answer.done' && f.conversationId === shown.conversationId);

  // Nothing of the other chatbot arrived, and asking for it by id finds nothing either.
  const about = (id: string) => (f: ServerFrame) => JSON.stringify(f).includes(id);
  expect(member.frames.filter(about(hidden.conversationId))).toEqual([]);
  expect(member.frames.filter(about(otherId))).toEqual([]);
  member.send({ type: 'conversation.open', conversationId: hidden.conversationId, after: 0 });
  const refused = await member.waitFor((f) => f.type === 'error');
  expect(refused).toMatchObject({ code: 'NOT_FOUND', ref: { type: 'conversation.open' } });
  member.send({ type: 'typing', conversationId: hidden.conversationId, typing: true });
  await expect.poll(() => member.of('error').length).toBe(2);
  expect(elsewhere.of('typing').filter((f) => f.who === 'agent')).toEqual([]);
  const resumed = await team(await tokenOf(t, accountId, email));
  resumed.send({ type: 'hello', v: 1, resume: { [hidden.conversationId]: 0, [shown.conversationId]: 0 } });
  await resumed.waitFor((f) => f.type === 'synced' && f.conversationId === shown.conversationId);
  expect(resumed.frames.filter(about(hidden.conversationId))).toEqual([
    {
      type: 'error',
      code: 'NOT_FOUND',
      message: 'Conversation not found',
      ref: { type: 'hello', conversationId: hidden.conversationId },
    },
  ]);
  for (const c of [member, resumed, theirs, elsewhere]) c.close();
});
