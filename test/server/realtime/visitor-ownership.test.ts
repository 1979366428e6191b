/**
 * A conversation belongs to its visitor: another visitor of the same chatbot who names it in any
 * frame (message.send, conversation.open, typing, feedback, escalate, lead.submit, hello's
 * resume), over the socket, the SSE fallback's POSTed frames or its stream, gets NOT_FOUND (as for
 * an id that does not exist), receives nothing of it, and the owner's conversation is unchanged.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AckFrame, AnswerDoneFrame, ClientFrame, ServerFrame } from '../../../shared/protocol.js';
import {
  chatbotWithKnowledge,
  type LiveApp,
  newSession,
  readEvents,
  startLiveApp,
  visitor,
} from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;
/** The owner's conversation and its AI answer. */
let owned: { conversationId: string; answerId: string; token: string };

beforeAll(async () => {
  t = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(t);
  const owner = await newSession(t, chatbotId);
  const c = await visitor(t.url, owner.token);
  c.send({ type: 'message.send', clientId: 'mine', text: 'When are refunds paid?' });
  const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  const done = await c.waitFor<AnswerDoneFrame>((f) => f.type === 'answer.done');
  owned = { conversationId: ack.conversationId, answerId: done.message.id, token: owner.token };
  c.close();
});
afterAll(async () => {
  await t.close();
});

/** Everything stored of the owner's conversation: its record (state, seq), events, messages (with feedback) and leads. */
async function snapshot() {
  const { conversationId } = owned;
  const db = t.database.db;
  return {
    conversation: await t.app.services.store.conversations.get(conversationId),
    events: await t.app.services.conversations.reads.events(conversationId, 0),
    messages: await db
      .selectFrom('messages')
      .selectAll()
      .where('conversation_id', '=', conversationId)
      .orderBy('id')
      .execute(),
    leads: await db.selectFrom('leads').selectAll().where('conversation_id', '=', conversationId).execute(),
  };
}

/** Every frame that names a conversation, naming the owner's. */
const frames = (): [string, ClientFrame][] => [
  [
    'message.send',
    { type: 'message.send', clientId: 'theirs', conversationId: owned.conversationId, text: 'When are refunds paid?' },
  ],
  ['conversation.open', { type: 'conversation.open', conversationId: owned.conversationId, after: 0 }],
  ['typing', { type: 'typing', conversationId: owned.conversationId, typing: true }],
  [
    'feedback',
    {
      type: 'feedback',
      conversationId: owned.conversationId,
      messageId: owned.answerId,
      feedback: 'down',
      comment: 'not mine',
    },
  ],
  ['escalate', { type: 'escalate', conversationId: owned.conversationId, reason: 'let me in' }],
  [
    'lead.submit',
    { type: 'lead.submit', conversationId: owned.conversationId, email: 'intruder@example.com', name: 'Intruder' },
  ],
];
const names = ['message.send', 'conversation.open', 'typing', 'feedback', 'escalate', 'lead.submit'];

/** Nothing of the owner's conversation but the refusal. */
function expectRefused(received: ServerFrame[], type: string) {
  expect(received).toEqual([
    {
      type: 'error',
      code: 'NOT_FOUND',
      message: 'Conversation not found',
      ref: expect.objectContaining({ type, conversationId: owned.conversationId }),
    },
  ]);
}

describe('another visitor of the same chatbot', () => {
  test.each(names)('is refused %s on the socket, and the owner’s conversation is unchanged', async (name) => {
    const frame = frames().find(([n]) => n === name)![1];
    const before = await snapshot();
    const other = await visitor(t.url, (await newSession(t, chatbotId)).token);
    const from = other.frames.length;
    other.send(frame);
    await other.waitFor((f) => f.type === 'error');
    // A ping after it: whatever the frame set off has been sent by the time the pong arrives.
    other.send({ type: 'ping' });
    await other.waitFor((f) => f.type === 'pong', 10_000, from);
    expectRefused(
      other.frames.slice(from).filter((f) => f.type !== 'pong'),
      frame.type,
    );
    // The answer a message.send would have set off is not written either.
    await t.app.services.queue.drain(10_000);
    expect(await snapshot()).toEqual(before);
    other.close();
  });

  test.each(names)(
    'is refused %s through the SSE fallback’s POSTed frames, and the owner’s conversation is unchanged',
    async (name) => {
      const frame = frames().find(([n]) => n === name)![1];
      const before = await snapshot();
      const other = await newSession(t, chatbotId);
      const res = await fetch(`${t.url}/api/widget/frames`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(frame),
      });
      expect(res.status).toBe(200);
      expectRefused((await res.json()).data.frames, frame.type);
      await t.app.services.queue.drain(10_000);
      expect(await snapshot()).toEqual(before);
    },
  );

  test('is refused a resume of it, on the socket and on the SSE stream: NOT_FOUND and none of its events', async () => {
    const before = await snapshot();
    const other = await newSession(t, chatbotId);
    const auth = { authorization: `Bearer ${other.token}`, 'content-type': 'application/json' };
    const refusal = {
      type: 'error',
      code: 'NOT_FOUND',
      message: 'Conversation not found',
      ref: { type: 'hello', conversationId: owned.conversationId },
    };
    // Then a conversation of the visitor's own: one delivery chain carries all of a reader's
    // conversations, so its events come after anything a resume would have replayed.
    const c = await visitor(t.url, other.token, { [owned.conversationId]: 0 });
    c.send({ type: 'message.send', clientId: 'own-1', text: 'Hello' });
    const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
    await c.waitFor((f) => f.type === 'message.created' && f.conversationId === ack.conversationId);
    expect(c.frames.filter((f) => 'conversationId' in f && f.conversationId === owned.conversationId)).toEqual([]);
    expect(c.of('error')).toEqual([refusal]);
    c.close();

    const res = await fetch(`${t.url}/api/widget/sse`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ type: 'hello', v: 1, resume: { [owned.conversationId]: 0 } }),
    });
    const stream = readEvents(res.body!);
    await expect.poll(() => stream.frames.some((f) => f.type === 'error')).toBe(true);
    const posted = await fetch(`${t.url}/api/widget/frames`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ type: 'message.send', clientId: 'own-2', text: 'Hello again' }),
    });
    const { conversationId } = (await posted.json()).data.frames[0] as AckFrame;
    await expect
      .poll(() => stream.frames.some((f) => f.type === 'message.created' && f.conversationId === conversationId))
      .toBe(true);
    expect(stream.frames.filter((f) => 'conversationId' in f && f.conversationId === owned.conversationId)).toEqual([]);
    expect(stream.frames.filter((f) => f.type === 'error')).toEqual([refusal]);
    await stream.cancel();
    await t.app.services.queue.drain(10_000);
    expect(await snapshot()).toEqual(before);
  });

  test('the owner is answered the same frames: the refusals above are about whose conversation it is', async () => {
    const c = await visitor(t.url, owned.token, { [owned.conversationId]: 0 });
    await c.waitFor((f) => f.type === 'synced');
    c.send({ type: 'conversation.open', conversationId: owned.conversationId, after: 0 });
    await expect.poll(() => c.of('synced').length).toBe(2);
    c.send({ type: 'typing', conversationId: owned.conversationId, typing: true });
    c.send({ type: 'feedback', conversationId: owned.conversationId, messageId: owned.answerId, feedback: 'up' });
    await c.waitFor((f) => f.type === 'message.updated');
    expect(c.of('error')).toEqual([]);
    c.close();
  });
});
