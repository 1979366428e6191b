/**
 * The legacy routes that read the store in their own way, on SQLite and PostgreSQL: a message
 * found by its id alone (PATCH /v0/.../messages/{messageId}) and whole lists read page by page.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';

describeOnDialects('legacy v0 on %s', (dialect) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await buildTestApp({ dialect });
    const owner = await t.app.services.store.users.owner((await t.app.services.accounts.resolve()).id);
    key = (await t.app.services.tokens.createLegacyKey(owner!)).token;
  });
  afterAll(() => t?.close());

  test('a message is found by its id within its chatbot only; 120 threads come back in one list', async () => {
    const a = (await t.call('POST', '/api/v0/chatbots', key, { title: 'A' })).body.data.id;
    const b = (await t.call('POST', '/api/v0/chatbots', key, { title: 'B' })).body.data.id;
    const sent = (await t.call('POST', `/api/v0/chatbots/${a}/message`, key, { message: 'Hello there' })).body.data;
    const answerId = sent.answer.id;
    const rated = await t.call('PATCH', `/api/v0/chatbots/${a}/messages/${answerId}`, key, { feedback: 'up' });
    expect(rated.status).toBe(200);
    expect(rated.body.data).toMatchObject({ id: answerId, threadId: sent.threadId, feedback: 'up' });
    const elsewhere = await t.call('PATCH', `/api/v0/chatbots/${b}/messages/${answerId}`, key, { feedback: 'down' });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toMatchObject({ success: false, data: null, error: { code: 'NOT_FOUND' } });
    for (let i = 0; i < 120; i++) await t.call('POST', `/api/v0/chatbots/${b}/threads`, key, {});
    const threads = (await t.call('GET', `/api/v0/chatbots/${b}/threads`, key)).body.data;
    expect(threads).toHaveLength(120);
    expect(new Set(threads.map((x: { threadId: string }) => x.threadId)).size).toBe(120);
  }, 60_000);
});
