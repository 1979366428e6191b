/**
 * The visitor's WebSocket end to end over real sockets: hello, a message stored and acknowledged,
 * the answer streamed as deltas then stored, and the team's take-over, reply, hand-back and
 * resolve through the v2 API arriving live.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  type AnswerDoneFrame,
  type ConditionFrame,
  type MessageCreatedFrame,
  type AckFrame,
} from '../../../shared/protocol.js';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;

beforeAll(async () => {
  t = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(t);
});
afterAll(async () => {
  await t.close();
});

test('a message is stored once, acknowledged, and answered as streamed deltas then answer.done', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.send({ type: 'message.send', clientId: 'c-1', text: 'When are refunds paid?' });
  const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  expect(ack.clientId).toBe('c-1');
  const created = await c.waitFor<MessageCreatedFrame>((f) => f.type === 'message.created');
  expect(created.message).toMatchObject({
    author: 'visitor',
    text: 'When are refunds paid?',
    clientId: 'c-1',
    id: ack.messageId,
  });
  const done = await c.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done');
  expect(done.message.text).toContain('5 business days');
  const deltas = c.of('answer.delta').filter((d) => d.messageId === done.message.id);
  expect(deltas.length).toBeGreaterThan(0);
  expect(deltas.map((d) => d.index)).toEqual(deltas.map((_, i) => i));
  expect(deltas.map((d) => d.delta).join('')).toBe(done.message.text);
  // The started condition, the question and the answer, numbered 1, 2, 3 in order.
  const seqs = c.frames.filter((f) => 'seq' in f && f.type !== 'ack').map((f) => (f as { seq: number }).seq);
  expect(seqs).toEqual([1, 2, 3]);
  c.close();
});

test('take-over, a team reply, hand-back and resolve through the v2 API reach the visitor live', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.send({ type: 'message.send', clientId: 'q', text: 'Hello there' });
  const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  await c.waitFor((f) => f.type === 'answer.done');
  const base = `/api/v2/chatbots/${chatbotId}/conversations/${ack.conversationId}`;
  expect((await t.call('POST', `${base}/take-over`, t.ownerToken)).status).toBe(200);
  const taken = await c.waitFor<ConditionFrame>((f) => f.type === 'condition' && f.change === 'taken_over');
  expect(taken.state).toMatchObject({ mode: 'AGENT', status: 'OPEN' });
  expect(taken.state.agent?.id).toBeTruthy();
  expect((await t.call('POST', `${base}/replies`, t.ownerToken, { message: 'A person here.' })).status).toBeLessThan(
    300,
  );
  const reply = await c.waitFor<MessageCreatedFrame>(
    (f) => f.type === 'message.created' && f.message.author === 'agent',
  );
  expect(reply.message.text).toBe('A person here.');
  expect((await t.call('POST', `${base}/switch-to-ai`, t.ownerToken)).status).toBe(200);
  await c.waitFor<ConditionFrame>((f) => f.type === 'condition' && f.change === 'released');
  expect((await t.call('PATCH', base, t.ownerToken, { status: 'RESOLVED' })).status).toBe(200);
  const resolved = await c.waitFor<ConditionFrame>((f) => f.type === 'condition' && f.change === 'resolved');
  expect(resolved.state.status).toBe('RESOLVED');
  // Sequence numbers only grow, with no repeats.
  const seqs = c.frames.filter((f) => 'seq' in f && f.type !== 'ack').map((f) => (f as { seq: number }).seq);
  expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
  c.close();
});
