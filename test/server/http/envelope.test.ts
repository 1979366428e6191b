/**
 * The v2 HTTP contract every route shares (spec 2.1, 4, 7): the envelope on success and on every
 * error, the request id, 404/405, body parsing failures, validation details, size and content-type
 * limits, and a 500 that reveals nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
});
afterAll(() => t.close());

/** Every error: `ok:false`, a code, a message, meta.requestId, and the same id in the header. */
function expectError(
  res: { status: number; body: any; headers: Record<string, unknown> },
  status: number,
  code: string,
) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({
    ok: false,
    error: { code, message: expect.any(String) },
    meta: { requestId: expect.any(String) },
  });
  expect(res.body).not.toHaveProperty('data');
  expect(res.headers['x-request-id']).toBe(res.body.meta.requestId);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
}

const GENERATED_ID = /^[A-Za-z0-9_-]{1,64}$/;

describe('success envelope', () => {
  test('wraps data with ok:true and meta.requestId, and sends the id as a header', async () => {
    const res = await t.call('GET', '/api/v2/me', token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      data: { user: { role: 'owner' } },
      meta: { requestId: expect.any(String) },
    });
    expect(res.body).not.toHaveProperty('error');
    expect(res.headers['x-request-id']).toBe(res.body.meta.requestId);
  });

  test('GET /health needs no token and is in the envelope', async () => {
    const res = await t.call('GET', '/api/v2/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, data: { status: 'ok' } });
  });

  test('list endpoints repeat data.pagination.nextCursor in meta.nextCursor', async () => {
    const res = await t.call('GET', '/api/v2/chatbots', token);
    expect(res.status).toBe(200);
    expect(res.body.data.pagination).toEqual({ limit: 50, hasNextPage: false, nextCursor: null });
    expect(res.body.meta.nextCursor).toBeNull();
  });
});

describe('request id', () => {
  test.each([['a'], ['abc-DEF_123'], ['x'.repeat(64)], ['0123456789']])(
    'echoes the valid x-request-id %j',
    async (id) => {
      const res = await t.call('GET', '/api/v2/me', token, undefined, { 'x-request-id': id });
      expect(res.body.meta.requestId).toBe(id);
      expect(res.headers['x-request-id']).toBe(id);
    },
  );

  test.each([
    ['65 characters', 'x'.repeat(65)],
    ['a space', 'abc def'],
    ['a dot', 'abc.def'],
    ['a slash', 'abc/def'],
    ['unicode', 'café'],
    ['a quote', 'abc"def'],
  ])('replaces an x-request-id with %s by a generated one', async (_label, id) => {
    const res = await t.call('GET', '/api/v2/me', token, undefined, { 'x-request-id': id });
    expect(res.status).toBe(200);
    expect(res.body.meta.requestId).not.toBe(id);
    expect(res.body.meta.requestId).toMatch(GENERATED_ID);
    expect(res.headers['x-request-id']).toBe(res.body.meta.requestId);
  });

  test('an empty x-request-id gets a generated one', async () => {
    const res = await t.call('GET', '/api/v2/health', null, undefined, { 'x-request-id': '' });
    expect(res.body.meta.requestId).toMatch(GENERATED_ID);
  });

  test('generated ids differ between requests', async () => {
    const a = await t.call('GET', '/api/v2/health');
    const b = await t.call('GET', '/api/v2/health');
    expect(a.body.meta.requestId).not.toBe(b.body.meta.requestId);
  });

  test.each([
    ['401', 'GET', '/api/v2/me', 401],
    ['404', 'GET', '/api/v2/nope', 404],
    ['405', 'PUT', '/api/v2/chatbots', 405],
  ])('is echoed on a %s too', async (_label, method, url, status) => {
    const res = await t.call(method as 'GET', url, null, undefined, { 'x-request-id': 'trace-42' });
    expect(res.status).toBe(status);
    expect(res.headers['x-request-id']).toBe('trace-42');
    expect(res.body.meta.requestId).toBe('trace-42');
  });

  test('a generated id is sent as the header on errors too', async () => {
    const res = await t.call('GET', '/api/v2/nope');
    expect(res.headers['x-request-id']).toMatch(GENERATED_ID);
    expect(res.headers['x-request-id']).toBe(res.body.meta.requestId);
  });
});

describe('404 and 405', () => {
  test.each(['/api/v2/nope', '/api/v2/chatbots/x/nope', '/nope', '/api/v3/chatbots'])(
    'unknown path %s is 404 NOT_FOUND',
    async (url) => {
      expectError(await t.call('GET', url, token), 404, 'NOT_FOUND');
    },
  );

  test('unknown path is 404 even without a token', async () => {
    expectError(await t.call('POST', '/api/v2/nope'), 404, 'NOT_FOUND');
  });

  test('a known path with another method is 405 with an Allow header listing the methods', async () => {
    const res = await t.call('PUT', '/api/v2/chatbots', token, {});
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    const allow = String(res.headers.allow).split(/,\s*/);
    expect(allow).toEqual(expect.arrayContaining(['GET', 'POST']));
    expect(allow).not.toContain('PUT');
  });

  test('405 on a parametric path', async () => {
    const res = await t.call('POST', '/api/v2/chatbots/some-id', token, {});
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(String(res.headers.allow).split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'DELETE']));
  });

  test('405 comes before authentication (no token needed to learn the methods)', async () => {
    const res = await t.call('DELETE', '/api/v2/me');
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(String(res.headers.allow)).toContain('GET');
  });
});

describe('bodies', () => {
  const json = { 'content-type': 'application/json' };

  test.each([
    ['truncated', '{"title": "x"'],
    ['single quotes', "{'title': 'x'}"],
    ['trailing comma', '{"title": "x",}'],
    ['not JSON at all', 'title=x'],
  ])('malformed JSON (%s) is 400 INVALID_JSON', async (_label, payload) => {
    const before = await chatbotCount();
    expectError(await t.call('POST', '/api/v2/chatbots', token, payload, json), 400, 'INVALID_JSON');
    expect(await chatbotCount()).toBe(before);
  });

  test.each([
    ['__proto__', '{"title":"proto","__proto__":{"polluted":true}}'],
    ['constructor.prototype', '{"title":"proto","constructor":{"prototype":{"polluted":true}}}'],
  ])('a body carrying %s is refused and pollutes nothing', async (_label, payload) => {
    const before = await chatbotCount();
    const res = await t.call('POST', '/api/v2/chatbots', token, payload, json);
    expect(res.status).toBe(400);
    expect(res.body.ok).toBe(false);
    expect(await chatbotCount()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('an empty body declared as JSON reads as {}: the schema speaks, not the parser', async () => {
    for (const empty of ['', '  \n']) {
      const res = await t.call('POST', '/api/v2/chatbots', token, empty, json);
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details).toContainEqual(expect.objectContaining({ path: ['title'] }));
    }
  });

  test('an action route called with an empty JSON body works as if {} were sent', async () => {
    const bot = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Empty bodies' })).body.data.chatbot;
    const created = await t.call('POST', `/api/v2/chatbots/${bot.id}/conversations`, token, '', json);
    expect(created.status).toBe(201);
    const thread = created.body.data.conversation;
    const res = await t.call(
      'POST',
      `/api/v2/chatbots/${bot.id}/conversations/${thread.threadId}/take-over`,
      token,
      '',
      json,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.conversation).toMatchObject({ mode: 'AGENT' });
  });

  test.each([
    ['{"title": "x",}', 'line 1, column 15'],
    ['{\n  "title": "x"\n  "description": "y"\n}', 'line 3, column 3'],
    ['{"title": "x"', 'line 1, column 14'],
  ])('a JSON syntax error says where (%j)', async (payload, where) => {
    const res = await t.call('POST', '/api/v2/chatbots', token, payload, json);
    expectError(res, 400, 'INVALID_JSON');
    expect(res.body.error.message).toContain(where);
  });

  test('a schema failure is 400 VALIDATION_FAILED listing every failing field with path and message', async () => {
    const res = await t.call('POST', '/api/v2/chatbots', token, {
      title: '',
      description: 42,
      settings: { general: { topK: 9, gptModel: 'gpt-0' } },
      extra: true,
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    const details = res.body.error.details as { path: (string | number)[]; message: string }[];
    expect(Array.isArray(details)).toBe(true);
    for (const d of details) {
      expect(Array.isArray(d.path)).toBe(true);
      expect(d.message).toEqual(expect.any(String));
      expect(d.message.length).toBeGreaterThan(0);
    }
    const paths = details.map((d) => d.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining(['title', 'description', 'settings.general.topK', 'settings.general.gptModel', 'extra']),
    );
    expect(res.body.error.hint).toEqual(expect.any(String));
  });

  test('a missing required field is named in the details', async () => {
    const res = await t.call('POST', '/api/v2/chatbots', token, { description: 'no title' });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: ['title'] })]));
  });

  test('query string failures are VALIDATION_FAILED too', async () => {
    const res = await t.call('GET', '/api/v2/chatbots?limit=abc', token);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: ['limit'] })]));
  });

  test('a JSON body over the default 1 MiB limit is 413 PAYLOAD_TOO_LARGE', async () => {
    const payload = JSON.stringify({ title: 'x', description: 'y'.repeat(1024 * 1024) });
    expectError(await t.call('POST', '/api/v2/chatbots', token, payload, json), 413, 'PAYLOAD_TOO_LARGE');
  });

  test('a body just under the limit is read (and then validated)', async () => {
    const payload = JSON.stringify({ title: 'x', description: 'y'.repeat(1024 * 1024 - 100) });
    expectError(await t.call('POST', '/api/v2/chatbots', token, payload, json), 400, 'VALIDATION_FAILED');
  });

  test('BODY_LIMIT_BYTES sets the limit', async () => {
    const small = await buildTestApp({ env: { BODY_LIMIT_BYTES: '2048' } });
    try {
      const { token: tk } = await small.token();
      const over = JSON.stringify({ title: 'x'.repeat(2100) });
      expectError(await small.call('POST', '/api/v2/chatbots', tk, over, json), 413, 'PAYLOAD_TOO_LARGE');
      const under = await small.call('POST', '/api/v2/chatbots', tk, JSON.stringify({ title: 'fits' }), json);
      expect(under.status).toBe(201);
    } finally {
      await small.close();
    }
  });

  test.each([
    ['text/plain', 'text/plain', 'title'],
    ['text/plain; charset=utf-8', 'text/plain; charset=utf-8', '{"title":"x"}'],
    ['application/xml', 'application/xml', '<title>x</title>'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'title=x'],
    [
      'multipart/form-data',
      'multipart/form-data; boundary=XYZ',
      '--XYZ\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--XYZ--\r\n',
    ],
  ])('%s on a JSON route is 415 UNSUPPORTED_MEDIA_TYPE and creates nothing', async (_label, type, payload) => {
    const before = await chatbotCount();
    const res = await t.call('POST', '/api/v2/chatbots', token, payload, { 'content-type': type });
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await chatbotCount()).toBe(before);
  });
});

describe('unexpected failures', () => {
  test('a failure inside the app is 500 INTERNAL_SERVER_ERROR with no internals, and the app keeps answering', async () => {
    const broken = await buildTestApp();
    try {
      await broken.database.close();
      const res = await broken.call('GET', '/api/v2/health', null, undefined, { 'x-request-id': 'boom-1' });
      expectError(res, 500, 'INTERNAL_SERVER_ERROR');
      expect(res.body.meta.requestId).toBe('boom-1');
      expect(Object.keys(res.body.error).sort()).toEqual(expect.arrayContaining(['code', 'message']));
      expect(res.body.error).not.toHaveProperty('stack');
      expect(res.body.error).not.toHaveProperty('details');
      const text = JSON.stringify(res.body).toLowerCase();
      for (const leak of ['stack', 'sqlite', 'kysely', 'select ', 'driver', 'destroyed', 'node_modules', '.ts:']) {
        expect(text).not.toContain(leak);
      }
      // Authenticated routes reach the database too: same answer, not a 401.
      const authed = await broken.call('GET', '/api/v2/me', 'x'.repeat(43));
      expectError(authed, 500, 'INTERNAL_SERVER_ERROR');
      // Routing and validation do not need the database.
      expectError(await broken.call('GET', '/api/v2/nope'), 404, 'NOT_FOUND');
    } finally {
      await broken.app.close();
    }
  });
});

async function chatbotCount(): Promise<number> {
  const row = await t.database.db
    .selectFrom('chatbots')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
