/**
 * /chatbots/{chatbotId}/custom-responses (scopes instructions:*): create, the paginated list
 * (50/100, keyset, INVALID_CURSOR), get, patch, delete with the confirm rule, validation, mass
 * assignment, 404s, and the errors every route answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../../../server/domain/ids.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { createChatbot, describeRouteErrors, expectError, freshAccount, rowCount } from '../../../helpers/resources.js';

let t: TestApp;
let token: string;
let chatbotId: string;
let responseId: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  chatbotId = await createChatbot(t, token, 'custom responses');
  responseId = (await create(chatbotId, { question: 'Do you ship to Norway?', answer: 'Yes, in 3 to 5 days.' })).id;
});
afterAll(() => t.close());

const base = (id: string) => `/api/v2/chatbots/${id}/custom-responses`;

async function create(id: string, body: Record<string, unknown>) {
  const res = await t.call('POST', base(id), token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.customResponse;
}

describe('create, get, patch', () => {
  test('POST creates one (201), trimmed; GET returns it', async () => {
    const r = await create(chatbotId, { question: '  Refunds?  ', answer: '  Within 30 days.  ' });
    expect(r).toEqual({
      id: expect.any(String),
      chatbotId,
      question: 'Refunds?',
      answer: 'Within 30 days.',
      createdAt: expect.any(String),
      updatedAt: r.createdAt,
    });
    expect((await t.call('GET', `${base(chatbotId)}/${r.id}`, token)).body.data.customResponse).toEqual(r);
  });

  test('PATCH changes only the fields sent', async () => {
    const r = await create(chatbotId, { question: 'q', answer: 'a' });
    const res = await t.call('PATCH', `${base(chatbotId)}/${r.id}`, token, { answer: 'b' });
    expect(res.status).toBe(200);
    expect(res.body.data.customResponse).toMatchObject({
      id: r.id,
      question: 'q',
      answer: 'b',
      createdAt: r.createdAt,
    });
    expectError(await t.call('PATCH', `${base(chatbotId)}/${r.id}`, token, {}), 400, 'VALIDATION_FAILED');
  });
});

describe('list', () => {
  test('pages newest first across pages; inserts in between are neither skipped into nor repeated', async () => {
    const id = await createChatbot(t, token);
    for (let i = 0; i < 7; i++) await create(id, { question: `q${i}`, answer: 'a' });
    const all = (await t.call('GET', base(id), token)).body.data;
    expect(all.pagination).toEqual({ limit: 50, hasNextPage: false, nextCursor: null });
    const expected = all.customResponses.map((r: { id: string }) => r.id);
    expect(expected).toHaveLength(7);
    const created = all.customResponses.map((r: { createdAt: string }) => r.createdAt);
    expect([...created].sort().reverse()).toEqual(created);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: any } = await t.call(
        'GET',
        `${base(id)}?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        token,
      );
      expect(res.status).toBe(200);
      expect(res.body.meta.nextCursor).toBe(res.body.data.pagination.nextCursor);
      seen.push(...res.body.data.customResponses.map((r: { id: string }) => r.id));
      cursor = res.body.data.pagination.nextCursor;
      pages++;
      await create(id, { question: `during ${pages}`, answer: 'a' });
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);
  });

  test("only the chatbot's own custom responses are listed", async () => {
    const id = await createChatbot(t, token);
    expect((await t.call('GET', base(id), token)).body.data.customResponses).toEqual([]);
  });

  test.each(['0', '101', 'x', '-5'])('limit=%s is 400 VALIDATION_FAILED', async (limit) => {
    const res = await t.call('GET', `${base(chatbotId)}?limit=${limit}`, token);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details[0].path).toEqual(['limit']);
  });

  test('limit=100 is accepted', async () => {
    expect((await t.call('GET', `${base(chatbotId)}?limit=100`, token)).body.data.pagination.limit).toBe(100);
  });

  test('a cursor the API did not issue, or one of another list, is 400 INVALID_CURSOR', async () => {
    expectError(await t.call('GET', `${base(chatbotId)}?cursor=abc.def`, token), 400, 'INVALID_CURSOR');
    const bots = await createChatbot(t, token);
    await createChatbot(t, token);
    const chatbotsPage = await t.call('GET', '/api/v2/chatbots?limit=1', token);
    expect(chatbotsPage.body.data.pagination.nextCursor).toBeTruthy();
    expectError(
      await t.call(
        'GET',
        `${base(bots)}?cursor=${encodeURIComponent(chatbotsPage.body.data.pagination.nextCursor)}`,
        token,
      ),
      400,
      'INVALID_CURSOR',
    );
  });

  test('an unknown query parameter is 400 VALIDATION_FAILED', async () => {
    expectError(await t.call('GET', `${base(chatbotId)}?sort=asc`, token), 400, 'VALIDATION_FAILED');
  });
});

describe('validation, mass assignment, delete, reach', () => {
  test.each([
    ['question missing', { answer: 'a' }, ['question']],
    ['answer missing', { question: 'q' }, ['answer']],
    ['question blank', { question: '   ', answer: 'a' }, ['question']],
    ['question too long', { question: 'x'.repeat(2001), answer: 'a' }, ['question']],
    ['answer too long', { question: 'q', answer: 'x'.repeat(8001) }, ['answer']],
  ])('%s: 400 VALIDATION_FAILED naming the field, nothing created', async (_label, body, path) => {
    const before = await rowCount(t, 'custom_responses', chatbotId);
    const res = await t.call('POST', base(chatbotId), token, body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await rowCount(t, 'custom_responses', chatbotId)).toBe(before);
  });

  test.each([
    ['id', { id: 'x' }],
    ['chatbotId', { chatbotId: 'x' }],
    ['createdAt', { createdAt: '2000-01-01T00:00:00.000Z' }],
  ])('mass assignment of %s is refused', async (_l, extra) => {
    const before = await rowCount(t, 'custom_responses', chatbotId);
    expectError(
      await t.call('POST', base(chatbotId), token, { question: 'q', answer: 'a', ...extra }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await t.call('PATCH', `${base(chatbotId)}/${responseId}`, token, { answer: 'z', ...extra }),
      400,
      'VALIDATION_FAILED',
    );
    expect(await rowCount(t, 'custom_responses', chatbotId)).toBe(before);
    expect((await t.call('GET', `${base(chatbotId)}/${responseId}`, token)).body.data.customResponse.answer).toBe(
      'Yes, in 3 to 5 days.',
    );
  });

  test('DELETE without ?confirm=true: 400 CONFIRMATION_REQUIRED, nothing deleted; with it data.deletedCustomResponse', async () => {
    const r = await create(chatbotId, { question: 'bye', answer: 'a' });
    const before = await rowCount(t, 'custom_responses');
    expectError(await t.call('DELETE', `${base(chatbotId)}/${r.id}`, token), 400, 'CONFIRMATION_REQUIRED');
    expect(await rowCount(t, 'custom_responses')).toBe(before);
    const res = await t.call('DELETE', `${base(chatbotId)}/${r.id}?confirm=true`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedCustomResponse).toEqual(r);
    expect(await rowCount(t, 'custom_responses')).toBe(before - 1);
  });

  test('one of another chatbot, or an unknown id, is 404 NOT_FOUND', async () => {
    const other = await createChatbot(t, token);
    const before = await rowCount(t, 'custom_responses');
    for (const [bot, id] of [
      [other, responseId],
      [chatbotId, newId()],
    ]) {
      expectError(await t.call('GET', `${base(bot)}/${id}`, token), 404, 'NOT_FOUND');
      expectError(await t.call('PATCH', `${base(bot)}/${id}`, token, { answer: 'x' }), 404, 'NOT_FOUND');
      expectError(await t.call('DELETE', `${base(bot)}/${id}?confirm=true`, token), 404, 'NOT_FOUND');
    }
    expect(await rowCount(t, 'custom_responses')).toBe(before);
  });

  test("another account's token gets 404 CHATBOT_NOT_FOUND", async () => {
    const other = await freshAccount(t);
    expectError(await t.call('GET', base(chatbotId), other.token), 404, 'CHATBOT_NOT_FOUND');
  });

  test('the store lists every custom response of a chatbot for the answer engine', async () => {
    const all = await t.app.services.store.resources.customResponses.all(chatbotId);
    expect(all.map((r) => r.id)).toContain(responseId);
    expect(all.every((r) => r.chatbotId === chatbotId)).toBe(true);
  });
});

describeRouteErrors('custom responses', () => ({
  t,
  token,
  chatbotId,
  routes: [
    { method: 'GET', path: (id) => `/chatbots/${id}/custom-responses`, scopes: ['instructions:read'] },
    {
      method: 'POST',
      path: (id) => `/chatbots/${id}/custom-responses`,
      scopes: ['instructions:write'],
      body: { question: 'q', answer: 'a' },
    },
    { method: 'GET', path: (id) => `/chatbots/${id}/custom-responses/${responseId}`, scopes: ['instructions:read'] },
    {
      method: 'PATCH',
      path: (id) => `/chatbots/${id}/custom-responses/${responseId}`,
      scopes: ['instructions:write'],
      body: { answer: 'a' },
    },
    {
      method: 'DELETE',
      path: (id) => `/chatbots/${id}/custom-responses/${responseId}?confirm=true`,
      scopes: ['instructions:delete'],
    },
  ],
}));
