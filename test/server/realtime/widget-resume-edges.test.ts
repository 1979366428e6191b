/**
 * Resume at its edges: a client claiming a number above the stored one is clamped to it (and so
 * still receives what comes next), and a history longer than one page of the delivery's reads
 * (200 events) arrives whole and in order, on resume, on conversation.open and on a catch-up of a
 * conversation the socket did not follow yet.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AckFrame, ServerFrame } from '../../../shared/protocol.js';
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

beforeAll(async () => {
  t = await startLiveApp();
  chatbotId = await chatbotWithKnowledge(t);
});
afterAll(async () => {
  await t.close();
});

/** Frames of stored events (the condition sent after a replay is the state, not an event). */
const stored = (f: ServerFrame) =>
  'seq' in f && f.type !== 'ack' && f.type !== 'synced' && !(f.type === 'condition' && !f.change);
const seqsOf = (frames: ServerFrame[], conversationId: string) =>
  frames
    .filter((f) => stored(f) && (f as { conversationId: string }).conversationId === conversationId)
    .map((f) => (f as { seq: number }).seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A visitor's conversation (question and answer, 3 events), then `replies` team replies (one event each). */
async function conversation(replies: number) {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.send({ type: 'message.send', clientId: 'q', text: 'When are refunds paid?' });
  const { conversationId } = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  await c.waitFor((f) => f.type === 'answer.done');
  c.close();
  for (let i = 1; i <= replies; i++) await reply(conversationId, `Reply ${i}`);
  const seq = (await t.app.services.store.conversations.get(conversationId))!.seq;
  return { session, conversationId, seq };
}

async function reply(conversationId: string, text: string) {
  const res = await t.call(
    'POST',
    `/api/v2/chatbots/${chatbotId}/conversations/${conversationId}/replies`,
    t.ownerToken,
    { message: text },
  );
  if (res.status !== 201) throw new Error(`reply refused: ${JSON.stringify(res.body)}`);
}

test('a resume claiming more than is stored gets synced at the stored number, then every new event', async () => {
  const { session, conversationId, seq } = await conversation(0);
  expect(seq).toBe(3);
  const c = await visitor(t.url, session.token, { [conversationId]: seq + 50 });
  const synced = await c.waitFor((f) => f.type === 'synced');
  expect(synced).toEqual({ type: 'synced', conversationId, seq });
  expect(seqsOf(c.frames, conversationId)).toEqual([]);
  await reply(conversationId, 'Still there?');
  // The take-over the reply implies and the reply itself: nothing newer than the claim is skipped.
  await c.waitFor((f) => f.type === 'message.created' && f.message.text === 'Still there?');
  expect(seqsOf(c.frames, conversationId)).toEqual([seq + 1, seq + 2]);

  c.close();

  // conversation.open with a number above the stored one, on a socket that does not follow it yet, likewise.
  const o = await visitor(t.url, session.token);
  o.send({ type: 'conversation.open', conversationId, after: 1000 });
  const opened = await o.waitFor((f) => f.type === 'synced');
  expect(opened).toEqual({ type: 'synced', conversationId, seq: seq + 2 });
  expect(seqsOf(o.frames, conversationId)).toEqual([]);
  await reply(conversationId, 'And now?');
  await o.waitFor((f) => f.type === 'message.created' && f.message.text === 'And now?');
  expect(seqsOf(o.frames, conversationId)).toEqual([seq + 3]);
  o.close();
});

test('the SSE stream clamps a claim above the stored number too', async () => {
  const { session, conversationId, seq } = await conversation(0);
  const res = await fetch(`${t.url}/api/widget/sse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'hello', v: 1, resume: { [conversationId]: 99 } }),
  });
  const stream = readEvents(res.body!);
  await expect.poll(() => stream.frames.some((f) => f.type === 'synced')).toBe(true);
  expect(stream.frames.find((f) => f.type === 'synced')).toEqual({ type: 'synced', conversationId, seq });
  await reply(conversationId, 'Still there?');
  await expect.poll(() => seqsOf(stream.frames, conversationId)).toEqual([seq + 1, seq + 2]);
  await stream.cancel();
});

test('a history longer than a page (250+ events) arrives whole and in order: resume, conversation.open, and a catch-up of one not followed yet', async () => {
  const { session, conversationId, seq } = await conversation(250);
  expect(seq).toBeGreaterThan(250);

  // Resume from the start.
  const resumed = await visitor(t.url, session.token, { [conversationId]: 0 });
  const synced = await resumed.waitFor((f) => f.type === 'synced');
  expect(seqsOf(resumed.frames, conversationId)).toEqual(range(1, seq));
  expect(synced).toEqual({ type: 'synced', conversationId, seq });
  const texts = resumed
    .of('message.created')
    .filter((f) => f.message.author === 'agent')
    .map((f) => f.message.text);
  expect(texts).toEqual(range(1, 250).map((i) => `Reply ${i}`));

  resumed.close();

  // conversation.open (from the list of past conversations) on a socket that does not follow it yet.
  const opened = await visitor(t.url, session.token);
  opened.send({ type: 'conversation.open', conversationId, after: 10 });
  await opened.waitFor((f) => f.type === 'synced');
  expect(seqsOf(opened.frames, conversationId)).toEqual(range(11, seq));
  opened.close();

  // A socket that does not follow the conversation (another tab started it) hears its next
  // change and catches up from its first event.
  const tab = await visitor(t.url, session.token);
  await reply(conversationId, 'One more');
  await tab.waitFor((f) => f.type === 'message.created' && f.message.text === 'One more');
  expect(seqsOf(tab.frames, conversationId)).toEqual(range(1, seq + 1));
  tab.close();
});
