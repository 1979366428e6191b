/**
 * What the team sees of a visitor's page: the context the site passed with the widget's session
 * (URL, title, custom fields) is on the conversation's visitor, in the list and alone, and {} for
 * a visitor whose site passed none.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AckFrame } from '../../../../shared/protocol.js';
import { newSession, startLiveApp, visitor, type LiveApp } from '../../../helpers/widget.js';

let app: LiveApp;
let chatbotId: string;

beforeAll(async () => {
  app = await startLiveApp();
  chatbotId = (await app.call('POST', '/api/v2/chatbots', app.ownerToken, { title: 'Shop' })).body.data.chatbot.id;
}, 60_000);
afterAll(() => app?.close());

async function conversationOf(context?: Record<string, string>) {
  const session = await newSession(app, chatbotId, context ? { context } : {});
  const v = await visitor(app.url, session.token);
  v.send({ type: 'message.send', clientId: `c-${Math.random()}`, text: 'Hello' });
  const ack = await v.waitFor<AckFrame>((f) => f.type === 'ack');
  v.close();
  const res = await app.call(
    'GET',
    `/api/v2/chatbots/${chatbotId}/conversations/${ack.conversationId}`,
    app.ownerToken,
  );
  expect(res.status).toBe(200);
  return res.body.data.conversation.chatUser as { context: Record<string, string> };
}

it("shows the page context the site passed on the conversation's visitor, and {} when none", async () => {
  const withContext = await conversationOf({ url: 'https://shop.example/checkout', plan: 'Gold' });
  expect(withContext.context).toEqual({ url: 'https://shop.example/checkout', plan: 'Gold' });
  expect((await conversationOf()).context).toEqual({});
  const list = await app.call('GET', `/api/v2/chatbots/${chatbotId}/conversations`, app.ownerToken);
  const contexts = list.body.data.conversations.map((c: { chatUser: { context: unknown } }) => c.chatUser.context);
  expect(contexts).toContainEqual({ url: 'https://shop.example/checkout', plan: 'Gold' });
});
