/**
 * A webhook URL on an internal name is refused in the crawler's words: the name the owner wrote,
 * never the address it resolves to (that would map the internal network for whoever asks), on
 * every route that takes one: v2 settings, a thread's webhookUrl, a test send, v0 settings/advanced.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let token: string;
let legacyKey: string;
let chatbotId: string;

beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  const owner = await t.app.services.store.users.owner((await t.app.services.accounts.resolve()).id);
  legacyKey = (await t.app.services.tokens.createLegacyKey(owner!)).token;
  chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Hooks' })).body.data.chatbot.id;
});
afterAll(() => t?.close());

const RESOLVED = /127\.0\.0\.1|::1|points to/;

test('an internal name is refused naming the name only, on v2 settings, a thread, a test send and v0 settings/advanced', async () => {
  const url = 'https://localhost:8443/hook';
  const base = `/api/v2/chatbots/${chatbotId}`;
  const answers = [
    await t.call('PATCH', `${base}/settings/webhooks`, token, { messagesWebhookUrl: url }),
    await t.call('POST', `${base}/conversations`, token, { webhookUrl: url }),
    await t.call('POST', `${base}/webhooks/test`, token, { event: 'message', url }),
    await t.call('PATCH', `/api/v0/chatbots/${chatbotId}/settings/advanced`, legacyKey, { webhookUrl: url }),
  ];
  for (const res of answers) {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    const messages = JSON.stringify(res.body.error);
    expect(messages).toMatch(
      /localhost is a private or reserved address; internal addresses are refused unless ALLOW_PRIVATE_FETCH opens them/,
    );
    expect(messages).not.toMatch(RESOLVED);
  }
  expect(answers[0].body.error.details[0].path).toEqual(['webhooks', 'messagesWebhookUrl']);
  expect((await t.call('GET', `${base}/settings`, token)).body.data.settings.messagesWebhookUrl).toBeNull();
});

test('a literal internal address the owner wrote may be named', async () => {
  const res = await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/webhooks`, token, {
    messagesWebhookUrl: 'https://10.1.2.3/hook',
  });
  expect(res.status).toBe(400);
  expect(res.body.error.details[0].message).toMatch(/^10\.1\.2\.3 is a private or reserved address/);
});
