/**
 * /chatbots/{chatbotId}/starters: create (defaults, trimming, positions), list order, get, patch,
 * delete with the confirm rule, validation with details, mass assignment, the per-chatbot cap,
 * 404 for items of other chatbots, and the errors every route answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../../../server/domain/ids.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { createChatbot, describeRouteErrors, expectError, freshAccount, rowCount } from '../../../helpers/resources.js';

let t: TestApp;
let token: string;
let chatbotId: string;
let starterId: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  chatbotId = await createChatbot(t, token, 'starters');
  starterId = (await create(chatbotId, { title: 'Pricing', description: 'What does it cost?' })).id;
});
afterAll(() => t.close());

const base = (id: string) => `/api/v2/chatbots/${id}/starters`;

async function create(id: string, body: Record<string, unknown>, tk = token) {
  const res = await t.call('POST', base(id), tk, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.starter;
}

describe('create, list, get', () => {
  test('POST creates a starter (201): trimmed text, link null, appended after the last one', async () => {
    const id = await createChatbot(t, token);
    const first = await create(id, { title: '  Hours  ', description: '  When are you open?  ' });
    expect(first).toEqual({
      id: expect.any(String),
      chatbotId: id,
      title: 'Hours',
      description: 'When are you open?',
      link: null,
      position: 0,
      createdAt: expect.any(String),
      updatedAt: first.createdAt,
    });
    const second = await create(id, {
      title: 'Docs',
      description: 'Open the docs',
      link: 'https://docs.example.com/start',
    });
    expect(second).toMatchObject({ position: 1, link: 'https://docs.example.com/start' });
    expect(second).not.toHaveProperty('isEscalationPrompt');
    const got = await t.call('GET', `${base(id)}/${first.id}`, token);
    expect(got.status).toBe(200);
    expect(got.body.data.starter).toEqual(first);
  });

  test('GET lists every starter by position, then oldest first, as a plain array', async () => {
    const id = await createChatbot(t, token);
    const a = await create(id, { title: 'a', description: 'a', position: 5 });
    const b = await create(id, { title: 'b', description: 'b', position: 1 });
    const c = await create(id, { title: 'c', description: 'c', position: 5 });
    const d = await create(id, { title: 'd', description: 'd' });
    expect(d.position).toBe(6);
    const res = await t.call('GET', base(id), token);
    expect(res.status).toBe(200);
    expect(res.body.data.starters.map((s: { id: string }) => s.id)).toEqual([b.id, a.id, c.id, d.id]);
    expect(res.body.data).not.toHaveProperty('pagination');
  });

  test('an empty list is []', async () => {
    const id = await createChatbot(t, token);
    expect((await t.call('GET', base(id), token)).body.data).toEqual({ starters: [] });
  });
});

describe('patch', () => {
  test('PATCH changes only the fields sent; link null removes the link', async () => {
    const s = await create(chatbotId, { title: 'Old', description: 'old text', link: 'http://example.com' });
    const res = await t.call('PATCH', `${base(chatbotId)}/${s.id}`, token, { title: ' New ', link: null, position: 9 });
    expect(res.status).toBe(200);
    expect(res.body.data.starter).toMatchObject({
      id: s.id,
      title: 'New',
      description: 'old text',
      link: null,
      position: 9,
      createdAt: s.createdAt,
    });
    expect(res.body.data.starter.updatedAt >= s.updatedAt).toBe(true);
    expect((await t.call('GET', `${base(chatbotId)}/${s.id}`, token)).body.data.starter).toEqual(res.body.data.starter);
  });

  test('an empty PATCH is 400 VALIDATION_FAILED', async () => {
    expectError(await t.call('PATCH', `${base(chatbotId)}/${starterId}`, token, {}), 400, 'VALIDATION_FAILED');
  });
});

describe('validation', () => {
  test.each([
    ['title missing', { description: 'd' }, ['title']],
    ['title empty', { title: '', description: 'd' }, ['title']],
    ['title only spaces', { title: '   ', description: 'd' }, ['title']],
    ['title too long', { title: 'x'.repeat(201), description: 'd' }, ['title']],
    ['description missing', { title: 't' }, ['description']],
    ['description too long', { title: 't', description: 'x'.repeat(2001) }, ['description']],
    ['link not http(s)', { title: 't', description: 'd', link: 'javascript:alert(1)' }, ['link']],
    ['link ftp', { title: 't', description: 'd', link: 'ftp://example.com' }, ['link']],
    ['position negative', { title: 't', description: 'd', position: -1 }, ['position']],
    ['position fractional', { title: 't', description: 'd', position: 1.5 }, ['position']],
    ['title a number', { title: 5, description: 'd' }, ['title']],
  ])('%s: 400 VALIDATION_FAILED naming the field, nothing created', async (_label, body, path) => {
    const before = await rowCount(t, 'starters', chatbotId);
    const res = await t.call('POST', base(chatbotId), token, body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path, in: 'body' })]));
    expect(await rowCount(t, 'starters', chatbotId)).toBe(before);
  });

  test.each([
    ['id', { id: 'chosen' }],
    ['chatbotId', { chatbotId: 'other' }],
    ['createdAt', { createdAt: '2000-01-01T00:00:00.000Z' }],
    ['isEscalationPrompt (follow-ups only)', { isEscalationPrompt: true }],
  ])('mass assignment of %s is refused on POST and PATCH; nothing changes', async (_label, extra) => {
    const before = await rowCount(t, 'starters', chatbotId);
    const post = await t.call('POST', base(chatbotId), token, { title: 't', description: 'd', ...extra });
    expectError(post, 400, 'VALIDATION_FAILED');
    expect(post.body.error.details[0].message).toBe('is not a field of this request');
    expect(await rowCount(t, 'starters', chatbotId)).toBe(before);
    const patch = await t.call('PATCH', `${base(chatbotId)}/${starterId}`, token, { title: 'changed', ...extra });
    expectError(patch, 400, 'VALIDATION_FAILED');
    expect((await t.call('GET', `${base(chatbotId)}/${starterId}`, token)).body.data.starter.title).toBe('Pricing');
  });

  test('a chatbot holds at most 100 starters: the 101st is 400 VALIDATION_FAILED', async () => {
    const id = await createChatbot(t, token);
    const at = new Date().toISOString();
    for (let i = 0; i < 100; i++) {
      await t.app.services.store.resources.starters.insert({
        id: newId(),
        chatbotId: id,
        title: `s${i}`,
        description: 'd',
        link: null,
        isEscalationPrompt: false,
        position: i,
        createdAt: at,
        updatedAt: at,
      });
    }
    const res = await t.call('POST', base(id), token, { title: 'one more', description: 'd' });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.hint).toMatch(/Delete/);
    expect(await rowCount(t, 'starters', id)).toBe(100);
  });
});

describe('delete', () => {
  test.each(['', '?confirm=false'])('DELETE%s is 400 CONFIRMATION_REQUIRED and deletes nothing', async (query) => {
    const s = await create(chatbotId, { title: 'keep', description: 'd' });
    const before = await rowCount(t, 'starters');
    const res = await t.call('DELETE', `${base(chatbotId)}/${s.id}${query}`, token);
    expectError(res, 400, 'CONFIRMATION_REQUIRED');
    expect(res.body.error.hint).toContain('confirm=true');
    expect(await rowCount(t, 'starters')).toBe(before);
    expect((await t.call('GET', `${base(chatbotId)}/${s.id}`, token)).status).toBe(200);
  });

  test('DELETE ?confirm=true returns data.deletedStarter; it is gone afterwards', async () => {
    const s = await create(chatbotId, { title: 'gone', description: 'd' });
    const res = await t.call('DELETE', `${base(chatbotId)}/${s.id}?confirm=true`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedStarter).toEqual(s);
    expectError(await t.call('GET', `${base(chatbotId)}/${s.id}`, token), 404, 'NOT_FOUND');
    expectError(await t.call('DELETE', `${base(chatbotId)}/${s.id}?confirm=true`, token), 404, 'NOT_FOUND');
  });

  test('an unknown confirm value is 400 VALIDATION_FAILED', async () => {
    expectError(await t.call('DELETE', `${base(chatbotId)}/${starterId}?confirm=yes`, token), 400, 'VALIDATION_FAILED');
    expectError(
      await t.call('DELETE', `${base(chatbotId)}/${starterId}?confirm=true&force=1`, token),
      400,
      'VALIDATION_FAILED',
    );
  });
});

describe('reach', () => {
  test('a starter of another chatbot (same account) or an unknown id is 404 NOT_FOUND on GET, PATCH and DELETE; nothing changes', async () => {
    const other = await createChatbot(t, token, 'other');
    const before = await rowCount(t, 'starters');
    for (const [bot, id] of [
      [other, starterId],
      [chatbotId, newId()],
    ]) {
      expectError(await t.call('GET', `${base(bot)}/${id}`, token), 404, 'NOT_FOUND');
      expectError(await t.call('PATCH', `${base(bot)}/${id}`, token, { title: 'hijack' }), 404, 'NOT_FOUND');
      expectError(await t.call('DELETE', `${base(bot)}/${id}?confirm=true`, token), 404, 'NOT_FOUND');
    }
    expect(await rowCount(t, 'starters')).toBe(before);
    expect((await t.call('GET', `${base(chatbotId)}/${starterId}`, token)).body.data.starter.title).toBe('Pricing');
  });

  test("another account's token cannot see the starters (404 CHATBOT_NOT_FOUND)", async () => {
    const other = await freshAccount(t);
    expectError(await t.call('GET', base(chatbotId), other.token), 404, 'CHATBOT_NOT_FOUND');
    expectError(await t.call('GET', `${base(chatbotId)}/${starterId}`, other.token), 404, 'CHATBOT_NOT_FOUND');
  });
});

describeRouteErrors('starters', () => ({
  t,
  token,
  chatbotId,
  routes: [
    { method: 'GET', path: (id) => `/chatbots/${id}/starters`, scopes: ['starters:read'] },
    {
      method: 'POST',
      path: (id) => `/chatbots/${id}/starters`,
      scopes: ['starters:write'],
      body: { title: 't', description: 'd' },
    },
    { method: 'GET', path: (id) => `/chatbots/${id}/starters/${starterId}`, scopes: ['starters:read'] },
    {
      method: 'PATCH',
      path: (id) => `/chatbots/${id}/starters/${starterId}`,
      scopes: ['starters:write'],
      body: { title: 't' },
    },
    {
      method: 'DELETE',
      path: (id) => `/chatbots/${id}/starters/${starterId}?confirm=true`,
      scopes: ['starters:delete'],
    },
  ],
}));
