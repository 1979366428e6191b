/**
 * The page a visitor writes from: the widget sends it with each message, the server keeps the
 * latest with the visitor, and the team reads it as the conversation's `chatUser.page`. Only an
 * http(s) address without a fragment, within the length limit, is taken; a bad one is refused
 * and changes nothing.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AckFrame } from '../../../shared/protocol.js';
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

const chatUser = async (threadId: string) =>
  (await t.call('GET', `/api/v2/chatbots/${chatbotId}/conversations/${threadId}`, t.ownerToken)).body.data.conversation
    .chatUser;

test('the latest page a visitor wrote from is shown with their conversation; bad addresses are refused', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.send({ type: 'message.send', clientId: 'a', text: 'Hello', page: 'https://shop.example/returns?order=7' });
  const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack' && f.clientId === 'a');
  expect((await chatUser(ack.conversationId)).page).toBe('https://shop.example/returns?order=7');

  // Client-side navigation: the next message carries the new page.
  c.send({
    type: 'message.send',
    clientId: 'b',
    conversationId: ack.conversationId,
    text: 'And delivery?',
    page: 'https://shop.example/delivery',
  });
  await c.waitFor<AckFrame>((f) => f.type === 'ack' && f.clientId === 'b');
  expect((await chatUser(ack.conversationId)).page).toBe('https://shop.example/delivery');

  const bad = [
    'javascript:alert(1)',
    'data:text/html,<b>x</b>',
    'https://shop.example/a#token=secret',
    'https://shop.example/ spaced',
    `https://shop.example/${'a'.repeat(2048)}`,
  ];
  for (const [i, page] of bad.entries()) {
    const from = c.frames.length;
    c.send({ type: 'message.send', clientId: `bad${i}`, conversationId: ack.conversationId, text: 'x', page });
    const refused = await c.waitFor((f) => f.type === 'error', 10_000, from);
    expect(refused, page).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: ['page'] }] });
  }
  expect((await chatUser(ack.conversationId)).page).toBe('https://shop.example/delivery');
  c.close();
});

test('a visitor who never sent a page (an older widget, the API) has page null', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.send({ type: 'message.send', clientId: 'a', text: 'Hello' });
  const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  expect(await chatUser(ack.conversationId)).toMatchObject({ page: null, context: {} });
  c.close();
});
