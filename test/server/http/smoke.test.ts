import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

test('a full token creates a chatbot and reads it back in the envelope', async () => {
  const { token } = await t.token();
  const created = await t.call('POST', '/api/v2/chatbots', token, { title: 'Docs' });
  expect(created.status).toBe(201);
  const got = await t.call('GET', `/api/v2/chatbots/${created.body.data.chatbot.id}`, token);
  expect(got.body).toMatchObject({ ok: true, data: { chatbot: { title: 'Docs' } } });
  expect(got.body.meta.requestId).toBeTruthy();
});
