/**
 * The team's stream follows the token as it is now, not as it was at connect: a token revoked
 * while its stream is open, a member removed from a chatbot, a chatbot deleted. A stream that
 * keeps seeing conversations its token may no longer see leaks every visitor's words for hours.
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

beforeAll(async () => {
  // Read again before every delivery, so "the next event after the change" is exact.
  t = await startLiveApp({ env: { WS_CHATBOT_REFRESH_MS: '0' } });
  chatbotId = await chatbotWithKnowledge(t);
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
  await new Promise((resolve) => {
    ws.once('open', resolve);
    ws.once('close', resolve);
  });
  c.send({ type: 'hello', v: 1 });
  await c.waitFor((f) => (f as { type: string }).type === 'team.ready');
  return c;
}

async function visitorAsks(bot: string) {
  const v = await visitor(t.url, (await newSession(t, bot)).token);
  v.send({ type: 'message.send', clientId: newId(), text: 'When are refunds paid?' });
  const ack = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  await v.waitFor((f) => f.type === 'answer.done');
  return { v, conversationId: ack.conversationId };
}

const about = (id: string) => (f: ServerFrame) => JSON.stringify(f).includes(id);

test('a token revoked while its stream is open: the stream is closed with 4001 and carries nothing after', async () => {
  const { token, id } = await t.token({ access: 'custom', scopes: ['conversations:read'] });
  const stream = await team(token);
  const revoked = await t.call('DELETE', `/api/v2/tokens/${id}`, t.ownerToken);
  expect(revoked.status).toBe(200);
  const { v, conversationId } = await visitorAsks(chatbotId);
  expect((await stream.waitClosed()).code).toBe(CLOSE.sessionInvalid);
  expect(stream.frames.filter(about(conversationId))).toEqual([]);
  v.close();
});

test('a member removed from the chatbot stops seeing its conversations on the open stream', async () => {
  const email = `${newId()}@team.test`;
  const invited = await t.call('POST', `/api/v2/chatbots/${chatbotId}/members`, t.ownerToken, {
    email,
    role: 'member',
  });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const accountId = (await t.app.services.accounts.resolve()).id;
  const stream = await team(await tokenOf(t, accountId, email));
  const memberId = (invited.body as { data: { member: { id: string } } }).data.member.id;
  const removed = await t.call(
    'DELETE',
    `/api/v2/chatbots/${chatbotId}/members/${memberId}?confirm=true`,
    t.ownerToken,
  );
  expect(removed.status, JSON.stringify(removed.body)).toBe(200);
  const { v, conversationId } = await visitorAsks(chatbotId);
  // Either closed or silent about the chatbot: never its visitor's words.
  const second = await visitorAsks(chatbotId);
  expect(stream.frames.filter(about(conversationId))).toEqual([]);
  expect(stream.frames.filter(about(second.conversationId))).toEqual([]);
  v.close();
  second.v.close();

  stream.close();
});

test('a deleted chatbot: the open stream carries nothing more of it and refuses to open its conversations', async () => {
  const doomed = await chatbotWithKnowledge(t);
  const { token } = await t.token({ access: 'custom', scopes: ['conversations:read'] });
  const stream = await team(token);
  const { v, conversationId } = await visitorAsks(doomed);
  await stream.waitFor((f) => f.type === 'answer.done' && f.conversationId === conversationId);
  expect((await t.call('DELETE', `/api/v2/chatbots/${doomed}?confirm=true`, t.ownerToken)).status).toBe(200);
  stream.send({ type: 'conversation.open', conversationId, after: 0 });
  expect(await stream.waitFor((f) => f.type === 'error')).toMatchObject({
    code: 'NOT_FOUND',
    ref: { type: 'conversation.open' },
  });
  v.close();
  stream.close();
});
