/**
 * A visitor's socket lives for hours; the owner changes the chatbot meanwhile. What the owner
 * changed applies to the socket's next frame: its settings, its allowed domains (4003), and a
 * deleted chatbot (4001) ends the socket instead of failing each frame, storing nothing.
 */
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest';
import { type AckFrame, CLOSE, type ConditionFrame, type ErrorFrame } from '../../../shared/protocol.js';
import {
  chatbotWithKnowledge,
  type LiveApp,
  newSession,
  readEvents,
  startLiveApp,
  visitor,
} from '../../helpers/widget.js';

let t: LiveApp;
beforeAll(async () => {
  // Sockets read their chatbot again when it is a second old (WS_CHATBOT_REFRESH_MS): here on every frame.
  // The heartbeat stays at its default here: a short one cuts a socket whose pong a loaded machine delays.
  t = await startLiveApp({ env: { WS_CHATBOT_REFRESH_MS: '0' } });
});
afterAll(async () => {
  await t.close();
});

const eventCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('conversation_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

test('settings the owner changes while a socket is open apply to its next frame', async () => {
  const chatbotId = await chatbotWithKnowledge(t);
  const c = await visitor(t.url, (await newSession(t, chatbotId)).token, undefined, 'https://www.shop.test');
  c.send({ type: 'message.send', clientId: 'first', text: 'When are refunds paid?' });
  const { conversationId } = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  await c.waitFor((f) => f.type === 'answer.done');

  // Only the team answers from now: a new conversation opens with a person, not the AI.
  expect(
    (await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/chat-mode`, t.ownerToken, { mode: 'HUMAN_ONLY' }))
      .status,
  ).toBe(200);
  c.send({ type: 'message.send', clientId: 'second', text: 'Anyone there?' });
  const second = await c.waitFor<AckFrame>((f) => f.type === 'ack' && f.clientId === 'second');
  const started = await c.waitFor<ConditionFrame>(
    (f) => f.type === 'condition' && f.conversationId === second.conversationId && f.change === 'started',
  );
  expect(started.state.mode).toBe('AGENT');

  // AI only: the visitor cannot ask for a person any more.
  expect(
    (await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/chat-mode`, t.ownerToken, { mode: 'AI_ONLY' }))
      .status,
  ).toBe(200);
  const before = await eventCount();
  c.send({ type: 'escalate', conversationId });
  const refused = await c.waitFor<ErrorFrame>(
    (f) => (f.type === 'error' && f.ref?.type === 'escalate') || (f.type === 'condition' && f.change === 'escalated'),
  );
  expect(refused).toMatchObject({ type: 'error', code: 'VALIDATION_FAILED' });
  expect(await eventCount()).toBe(before);

  // The page is no longer among the allowed domains: the socket ends with 4003.
  expect(
    (
      await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/general`, t.ownerToken, {
        allowedDomains: ['shop.test'],
      })
    ).status,
  ).toBe(200);
  c.send({ type: 'message.send', conversationId, clientId: 'third', text: 'Hello?' });
  expect((await c.waitClosed()).code).toBe(CLOSE.originRefused);
  expect(await eventCount()).toBe(before);
});

test('a deleted chatbot ends its open sockets with 4001 at their next frame, and nothing is stored', async () => {
  const chatbotId = await chatbotWithKnowledge(t);
  const c = await visitor(t.url, (await newSession(t, chatbotId)).token);
  c.send({ type: 'message.send', clientId: 'first', text: 'When are refunds paid?' });
  const { conversationId } = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  await c.waitFor((f) => f.type === 'answer.done');
  expect((await t.call('DELETE', `/api/v2/chatbots/${chatbotId}?confirm=true`, t.ownerToken)).status).toBe(200);
  const before = await eventCount();
  c.send({ type: 'message.send', clientId: 'after', text: 'Still there?' });
  const closed = await c.waitClosed();
  expect(closed).toMatchObject({
    code: CLOSE.sessionInvalid,
    reason: expect.stringMatching(/chatbot no longer exists/),
  });
  expect(c.frames.filter((f) => f.type === 'error')).toEqual([]);
  expect(await eventCount()).toBe(before);
  expect(
    await t.database.db.selectFrom('conversations').select('id').where('id', '=', conversationId).executeTakeFirst(),
  ).toBeUndefined();
});

test('an idle socket and an idle SSE stream of a deleted chatbot end at the next heartbeat, giving back their places', async () => {
  const beating = await startLiveApp({ env: { WS_CHATBOT_REFRESH_MS: '0', WS_HEARTBEAT_MS: '1000' } });
  onTestFinished(() => beating.close());
  const chatbotId = await chatbotWithKnowledge(beating);
  const session = await newSession(beating, chatbotId);
  const c = await visitor(beating.url, session.token);
  const controller = new AbortController();
  const res = await fetch(`${beating.url}/api/widget/sse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'hello', v: 1 }),
    signal: controller.signal,
  });
  const stream = readEvents(res.body!);
  await expect.poll(() => stream.frames.some((f) => f.type === 'ready')).toBe(true);
  expect((await beating.call('DELETE', `/api/v2/chatbots/${chatbotId}?confirm=true`, beating.ownerToken)).status).toBe(
    200,
  );
  expect((await c.waitClosed()).code).toBe(CLOSE.sessionInvalid);
  await expect
    .poll(() => stream.closes, { timeout: 5000 })
    .toEqual([{ code: CLOSE.sessionInvalid, reason: expect.stringMatching(/chatbot no longer exists/) }]);
  await expect.poll(() => beating.app.realtime.slots.held(`visitor:${session.visitor.id}`), { timeout: 5000 }).toBe(0);
  controller.abort();
});
