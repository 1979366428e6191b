/**
 * One nesting limit for every public JSON body: a document nested thousands deep is a 400 in the
 * envelope of the route's API (v2, the legacy v0 body, OAuth's error body, the widget's routes),
 * never a 500, and nothing is logged at error level. A WebSocket frame meets the same limit.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { MAX_JSON_DEPTH, nestedTooDeep } from '../../../server/http/json-body.js';
import { chatbotWithKnowledge, type LiveApp, newSession, startLiveApp, visitor } from '../../helpers/widget.js';

let t: LiveApp;
let chatbotId: string;
let legacyKey: string;
const lines: string[] = [];

beforeAll(async () => {
  t = await startLiveApp({ env: { LOG_LEVEL: 'warn' }, logStream: { write: (line) => void lines.push(line) } });
  chatbotId = await chatbotWithKnowledge(t);
  const owner = await t.app.services.store.users.owner((await t.app.services.accounts.resolve()).id);
  legacyKey = (await t.app.services.tokens.createLegacyKey(owner!)).token;
});
afterAll(() => t?.close());

const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const errorLines = () => lines.filter((l) => JSON.parse(l).level >= 50);

test('the depth is counted on brackets outside strings', () => {
  expect(nestedTooDeep(arrays(MAX_JSON_DEPTH))).toBe(false);
  expect(nestedTooDeep(arrays(MAX_JSON_DEPTH + 1))).toBe(true);
  expect(nestedTooDeep(JSON.stringify({ text: '['.repeat(5000) + '\\"{{{' }))).toBe(false);
  expect(nestedTooDeep(`{"a":"\\\\",${'['.repeat(40)}`)).toBe(true);
});

test('widget, v2, v0 and OAuth routes answer a body nested 5,000 deep with 400 in their envelope', async () => {
  const session = await newSession(t, chatbotId);
  const routes: { url: string; auth?: string; body: (deep: string) => string; kind: 'v2' | 'legacy' | 'oauth' }[] = [
    {
      url: '/api/widget/frames',
      auth: session.token,
      body: (d) => `{"type":"message.send","clientId":"c1","text":"hi","x":${d}}`,
      kind: 'v2',
    },
    { url: '/api/widget/sse', auth: session.token, body: (d) => `{"type":"hello","v":1,"x":${d}}`, kind: 'v2' },
    { url: `/api/widget/${chatbotId}/session`, body: (d) => `{"context":${d}}`, kind: 'v2' },
    {
      url: '/api/v2/chatbots',
      auth: t.ownerToken,
      body: (d) => `{"title":"deep","settings":{"general":{"metadata":${d}}}}`,
      kind: 'v2',
    },
    { url: '/api/v0/chatbots', auth: legacyKey, body: (d) => `{"title":"deep","x":${d}}`, kind: 'legacy' },
    {
      url: '/oauth/token',
      body: (d) => `{"grant_type":"urn:ietf:params:oauth:grant-type:device_code","x":${d}}`,
      kind: 'oauth',
    },
    { url: '/oauth/device_authorization', body: (d) => `{"client_id":"parley-cli","x":${d}}`, kind: 'oauth' },
  ];
  for (const route of routes) {
    for (const deep of [arrays(6000), objects(6000), arrays(MAX_JSON_DEPTH + 1)]) {
      const res = await t.app.inject({
        method: 'POST',
        url: route.url,
        payload: route.body(deep),
        headers: { 'content-type': 'application/json', ...(route.auth && { authorization: `Bearer ${route.auth}` }) },
      });
      const what = `${route.url} ${deep.slice(0, 8)}x${deep.length}`;
      expect(res.statusCode, what).toBe(400);
      const body = res.json();
      if (route.kind === 'v2')
        expect(body, what).toMatchObject({
          ok: false,
          error: { code: 'VALIDATION_FAILED', message: expect.stringMatching(/more than 32 levels/) },
        });
      if (route.kind === 'legacy')
        expect(body, what).toMatchObject({ success: false, data: null, error: { code: 'VALIDATION_FAILED' } });
      if (route.kind === 'oauth')
        expect(body, what).toMatchObject({
          error: 'invalid_request',
          error_description: expect.stringMatching(/more than 32 levels/),
        });
    }
  }
  expect(errorLines()).toEqual([]);
  expect(await t.database.db.selectFrom('messages').select('id').execute()).toHaveLength(0);
});

test('a socket frame nested too deep is refused with an error frame and changes nothing', async () => {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.send(`{"type":"message.send","clientId":"c2","text":"hi","via":${arrays(MAX_JSON_DEPTH + 1)}}`);
  const error = await c.waitFor((f) => f.type === 'error');
  expect(error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/more than 32 levels/) });
  c.send({ type: 'ping' });
  await c.waitFor((f) => f.type === 'pong');
  expect(c.frames.filter((f) => f.type === 'ack')).toEqual([]);
  expect(errorLines()).toEqual([]);
  c.close();
});
