/**
 * Resume against changes that land while hello is still running, on PostgreSQL (its reads leave
 * the event loop, so doorbells are heard between them): a conversation resumed from a number
 * gets every event after it, once, in order: on the team stream even when a new message in it
 * rings just as the stream says it is ready, on a visitor's socket even when another tab writes
 * in it while hello reads the resumed conversations.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import {
  type AckFrame,
  type ServerFrame,
  WS_SESSION_PROTOCOL_PREFIX,
  WS_SUBPROTOCOL,
} from '../../../shared/protocol.js';
import { TEAM_TOKEN_PROTOCOL_PREFIX } from '../../../server/routes/v2/stream.js';
import { Client, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;

beforeAll(async () => {
  t = await startLiveApp({ dialect: 'postgres' });
  const created = await t.call('POST', '/api/v2/chatbots', t.ownerToken, {
    title: 'Desk',
    settings: { 'chat-mode': { mode: 'HUMAN_ONLY' } },
  });
  chatbotId = created.body.data.chatbot.id;
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
  return c;
}

test('a resumed conversation whose new message rings as the stream gets ready is sent every event after the number, once', async () => {
  const { token } = await t.token({ access: 'custom', scopes: ['conversations:read'] });
  const v = await visitor(t.url, (await newSession(t, chatbotId)).token);
  v.send({ type: 'message.send', clientId: 'one', text: 'First question' });
  const conversationId = (await v.waitFor<AckFrame>((f) => f.type === 'ack' && f.clientId === 'one')).conversationId;
  v.send({ type: 'message.send', conversationId, clientId: 'two', text: 'Second question' });
  await v.waitFor((f) => f.type === 'ack' && f.clientId === 'two');
  // Other resumed conversations first: hello reads each before it gets to this one.
  const others: Record<string, number> = {};
  for (let i = 0; i < 60; i++) {
    const res = await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations`, t.ownerToken, {});
    others[res.body.data.conversation.threadId] = 1;
  }

  const agent = await team(token);
  // The agent's console saw the conversation up to its start (seq 1); both messages came after.
  agent.send({ type: 'hello', v: 1, resume: { ...others, [conversationId]: 1 } });
  await agent.waitFor((f) => (f as { type: string }).type === 'team.ready');
  v.send({ type: 'message.send', conversationId, clientId: 'three', text: 'Third question' });
  const mine = (f: ServerFrame) => 'conversationId' in f && f.conversationId === conversationId;
  await agent.waitFor((f) => mine(f) && f.type === 'message.created' && f.seq === 4);
  await agent.waitFor((f) => mine(f) && f.type === 'synced');
  const created = agent.frames.filter((f) => mine(f) && f.type === 'message.created') as Extract<
    ServerFrame,
    { type: 'message.created' }
  >[];
  expect(created.map((f) => [f.seq, f.message.text])).toEqual([
    [2, 'First question'],
    [3, 'Second question'],
    [4, 'Third question'],
  ]);
  for (const c of [agent, v]) c.close();
});

test("a visitor's resumed conversation that another tab writes in during hello is sent what came after the number, and nothing again", async () => {
  const session = await newSession(t, chatbotId);
  const tab = await visitor(t.url, session.token);
  tab.send({ type: 'message.send', clientId: 'one', text: 'First question' });
  const conversationId = (await tab.waitFor<AckFrame>((f) => f.type === 'ack' && f.clientId === 'one')).conversationId;
  tab.send({ type: 'message.send', conversationId, clientId: 'two', text: 'Second question' });
  await tab.waitFor((f) => f.type === 'ack' && f.clientId === 'two');
  // More conversations of this visitor, resumed first: hello reads each before it gets to this one.
  const others: Record<string, number> = {};
  const openers: Client[] = [];
  for (let i = 0; i < 60; i++) {
    // A few sockets: each may send 60 frames per 10 s.
    const opener = i % 20 === 0 ? await visitor(t.url, session.token) : undefined;
    if (opener) openers.push(opener);
    const by = openers.at(-1)!;
    by.send({ type: 'message.send', clientId: `other-${i}`, text: 'Another question' });
    const ack = await by.waitFor<AckFrame>((f) => f.type === 'ack' && f.clientId === `other-${i}`);
    others[ack.conversationId] = ack.seq;
  }

  const ws = new WebSocket(t.url.replace(/^http/, 'ws') + '/api/widget/ws', [
    WS_SUBPROTOCOL,
    WS_SESSION_PROTOCOL_PREFIX + session.token,
  ]);
  const again = new Client(ws);
  await new Promise((resolve) => ws.once('open', resolve));
  // This device saw the conversation up to the second question (seq 3); the other tab writes at once.
  again.send({ type: 'hello', v: 1, resume: { ...others, [conversationId]: 3 } });
  tab.send({ type: 'message.send', conversationId, clientId: 'three', text: 'Third question' });
  const mine = (f: ServerFrame) => 'conversationId' in f && f.conversationId === conversationId;
  await again.waitFor((f) => mine(f) && f.type === 'message.created' && f.seq === 4);
  await again.waitFor((f) => mine(f) && f.type === 'synced');
  await new Promise((r) => setTimeout(r, 200));
  const stored = again.frames.filter(
    (f) => mine(f) && 'seq' in f && f.type !== 'synced' && !(f.type === 'condition' && !f.change),
  );
  expect(stored.map((f) => [f.type, (f as { seq: number }).seq])).toEqual([['message.created', 4]]);
  for (const c of [tab, again, ...openers]) c.close();
});
