/**
 * A body that says multipart/form-data but is not (cut short, no boundary) is the client's
 * error: 400 in the route's own envelope (v2 or legacy), never a 500, and nothing is stored.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let token: string;
let key: string;
let chatbotId: string;

beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  const owner = await t.app.services.store.users.owner((await t.app.services.accounts.resolve()).id);
  key = (await t.app.services.tokens.createLegacyKey(owner!)).token;
  chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Uploads' })).body.data.chatbot.id;
});
afterAll(() => t.close());

const CUT_SHORT =
  '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG';
const bodies: [string, string, string][] = [
  ['cut short', 'multipart/form-data; boundary=zz', CUT_SHORT],
  ['not multipart at all', 'multipart/form-data; boundary=zz', 'hello'],
  ['no boundary', 'multipart/form-data', CUT_SHORT],
];

test.each(bodies)('v2 uploads: a body %s is 400 VALIDATION_FAILED', async (_name, type, body) => {
  for (const url of [
    `/api/v2/chatbots/${chatbotId}/icons?type=icon`,
    `/api/v2/chatbots/${chatbotId}/knowledge/files`,
  ]) {
    const res = await t.call('POST', url, token, body, { 'content-type': type });
    expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(400);
    expect(res.body).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
  }
  const chatbot = await t.call('GET', `/api/v2/chatbots/${chatbotId}`, token);
  expect(chatbot.body.data.chatbot.settings.iconSrcId ?? null).toBeNull();
  const sources = await t.call('GET', `/api/v2/chatbots/${chatbotId}/knowledge/sources`, token);
  expect(sources.body.data.sources).toEqual([]);
});

test.each(bodies)('v0 icon upload: a body %s is 400 in the legacy error body', async (_name, type, body) => {
  const res = await t.call('POST', `/api/v0/chatbots/${chatbotId}/icons?type=icon`, key, body, {
    'content-type': type,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ success: false, data: null, error: { code: 'VALIDATION_FAILED' } });
});
