/**
 * /chatbots/{chatbotId}/followups: the starter rules plus isEscalationPrompt, of which a chatbot
 * has at most one (marking one unmarks the other, on create and on patch); confirm rule,
 * validation, mass assignment, cap, 404s and the errors every route answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../../../server/domain/ids.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { createChatbot, describeRouteErrors, expectError, freshAccount, rowCount } from '../../../helpers/resources.js';

let t: TestApp;
let token: string;
let chatbotId: string;
let followupId: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  chatbotId = await createChatbot(t, token, 'followups');
  followupId = (await create(chatbotId, { title: 'More', description: 'Tell me more' })).id;
});
afterAll(() => t.close());

const base = (id: string) => `/api/v2/chatbots/${id}/followups`;

async function create(id: string, body: Record<string, unknown>) {
  const res = await t.call('POST', base(id), token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.followup;
}

const escalating = async (id: string) =>
  (await t.call('GET', base(id), token)).body.data.followups
    .filter((f: { isEscalationPrompt: boolean }) => f.isEscalationPrompt)
    .map((f: { id: string }) => f.id);

describe('create, list, get, patch', () => {
  test('POST creates a follow-up (201) with isEscalationPrompt false by default', async () => {
    const id = await createChatbot(t, token);
    const f = await create(id, { title: ' Talk ', description: 'Can I talk to someone?' });
    expect(f).toEqual({
      id: expect.any(String),
      chatbotId: id,
      title: 'Talk',
      description: 'Can I talk to someone?',
      link: null,
      isEscalationPrompt: false,
      position: 0,
      createdAt: expect.any(String),
      updatedAt: f.createdAt,
    });
    expect((await t.call('GET', `${base(id)}/${f.id}`, token)).body.data.followup).toEqual(f);
  });

  test('GET lists them by position as a plain array', async () => {
    const id = await createChatbot(t, token);
    const a = await create(id, { title: 'a', description: 'a', position: 3 });
    const b = await create(id, { title: 'b', description: 'b', position: 0 });
    const res = await t.call('GET', base(id), token);
    expect(res.body.data).toEqual({ followups: [b, a] });
  });

  test('PATCH changes only the fields sent', async () => {
    const f = await create(chatbotId, { title: 'x', description: 'y', link: 'https://example.com/a' });
    const res = await t.call('PATCH', `${base(chatbotId)}/${f.id}`, token, { description: 'z', link: null });
    expect(res.status).toBe(200);
    expect(res.body.data.followup).toMatchObject({
      title: 'x',
      description: 'z',
      link: null,
      isEscalationPrompt: false,
    });
  });
});

describe('the escalation prompt: at most one per chatbot', () => {
  test('creating a second escalation prompt unmarks the first', async () => {
    const id = await createChatbot(t, token);
    const first = await create(id, { title: 'Human', description: 'Talk to a person', isEscalationPrompt: true });
    expect(first.isEscalationPrompt).toBe(true);
    expect(await escalating(id)).toEqual([first.id]);
    const second = await create(id, { title: 'Agent', description: 'Get an agent', isEscalationPrompt: true });
    expect(await escalating(id)).toEqual([second.id]);
    expect((await t.call('GET', `${base(id)}/${first.id}`, token)).body.data.followup.isEscalationPrompt).toBe(false);
  });

  test('marking one by PATCH unmarks the other; unmarking leaves none', async () => {
    const id = await createChatbot(t, token);
    const a = await create(id, { title: 'a', description: 'a', isEscalationPrompt: true });
    const b = await create(id, { title: 'b', description: 'b' });
    const res = await t.call('PATCH', `${base(id)}/${b.id}`, token, { isEscalationPrompt: true });
    expect(res.body.data.followup.isEscalationPrompt).toBe(true);
    expect(await escalating(id)).toEqual([b.id]);
    await t.call('PATCH', `${base(id)}/${b.id}`, token, { isEscalationPrompt: false });
    expect(await escalating(id)).toEqual([]);
    expect(a.id).not.toBe(b.id);
  });

  test("another chatbot's escalation prompt is not touched", async () => {
    const one = await createChatbot(t, token);
    const two = await createChatbot(t, token);
    const a = await create(one, { title: 'a', description: 'a', isEscalationPrompt: true });
    const b = await create(two, { title: 'b', description: 'b', isEscalationPrompt: true });
    expect(await escalating(one)).toEqual([a.id]);
    expect(await escalating(two)).toEqual([b.id]);
  });

  test('isEscalationPrompt must be a boolean', async () => {
    const res = await t.call('POST', base(chatbotId), token, {
      title: 't',
      description: 'd',
      isEscalationPrompt: 'yes',
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details[0].path).toEqual(['isEscalationPrompt']);
  });
});

describe('validation, mass assignment, cap', () => {
  test.each([
    ['title missing', { description: 'd' }, ['title']],
    ['title blank', { title: ' ', description: 'd' }, ['title']],
    ['description blank', { title: 't', description: '' }, ['description']],
    ['description too long', { title: 't', description: 'x'.repeat(2001) }, ['description']],
    ['link not a URL', { title: 't', description: 'd', link: 'example.com' }, ['link']],
    ['position too large', { title: 't', description: 'd', position: 10_001 }, ['position']],
  ])('%s: 400 VALIDATION_FAILED naming the field, nothing created', async (_label, body, path) => {
    const before = await rowCount(t, 'followups', chatbotId);
    const res = await t.call('POST', base(chatbotId), token, body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await rowCount(t, 'followups', chatbotId)).toBe(before);
  });

  test.each([
    ['id', { id: 'x' }],
    ['chatbotId', { chatbotId: 'x' }],
    ['updatedAt', { updatedAt: '2000-01-01T00:00:00.000Z' }],
  ])('mass assignment of %s is refused on POST and PATCH', async (_label, extra) => {
    const before = await rowCount(t, 'followups', chatbotId);
    expectError(
      await t.call('POST', base(chatbotId), token, { title: 't', description: 'd', ...extra }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await t.call('PATCH', `${base(chatbotId)}/${followupId}`, token, extra), 400, 'VALIDATION_FAILED');
    expect(await rowCount(t, 'followups', chatbotId)).toBe(before);
    expect((await t.call('GET', `${base(chatbotId)}/${followupId}`, token)).body.data.followup.id).toBe(followupId);
  });

  test('an empty PATCH is 400 VALIDATION_FAILED', async () => {
    expectError(await t.call('PATCH', `${base(chatbotId)}/${followupId}`, token, {}), 400, 'VALIDATION_FAILED');
  });

  test('a chatbot holds at most 100 follow-ups', async () => {
    const id = await createChatbot(t, token);
    const at = new Date().toISOString();
    for (let i = 0; i < 100; i++) {
      await t.app.services.store.resources.followups.insert({
        id: newId(),
        chatbotId: id,
        title: `f${i}`,
        description: 'd',
        link: null,
        isEscalationPrompt: false,
        position: i,
        createdAt: at,
        updatedAt: at,
      });
    }
    expectError(await t.call('POST', base(id), token, { title: 'x', description: 'd' }), 400, 'VALIDATION_FAILED');
    expect(await rowCount(t, 'followups', id)).toBe(100);
  });
});

describe('delete and reach', () => {
  test('without ?confirm=true: 400 CONFIRMATION_REQUIRED, nothing deleted', async () => {
    const before = await rowCount(t, 'followups');
    expectError(await t.call('DELETE', `${base(chatbotId)}/${followupId}`, token), 400, 'CONFIRMATION_REQUIRED');
    expect(await rowCount(t, 'followups')).toBe(before);
  });

  test('?confirm=true returns data.deletedFollowup', async () => {
    const f = await create(chatbotId, { title: 'bye', description: 'd', isEscalationPrompt: true });
    const res = await t.call('DELETE', `${base(chatbotId)}/${f.id}?confirm=true`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedFollowup).toEqual(f);
    expectError(await t.call('GET', `${base(chatbotId)}/${f.id}`, token), 404, 'NOT_FOUND');
  });

  test('a follow-up of another chatbot, or an unknown id, is 404 NOT_FOUND', async () => {
    const other = await createChatbot(t, token);
    for (const [bot, id] of [
      [other, followupId],
      [chatbotId, newId()],
    ]) {
      expectError(await t.call('GET', `${base(bot)}/${id}`, token), 404, 'NOT_FOUND');
      expectError(await t.call('PATCH', `${base(bot)}/${id}`, token, { isEscalationPrompt: true }), 404, 'NOT_FOUND');
      expectError(await t.call('DELETE', `${base(bot)}/${id}?confirm=true`, token), 404, 'NOT_FOUND');
    }
    expect((await t.call('GET', `${base(chatbotId)}/${followupId}`, token)).body.data.followup.isEscalationPrompt).toBe(
      false,
    );
  });

  test("another account's token gets 404 CHATBOT_NOT_FOUND", async () => {
    const other = await freshAccount(t);
    expectError(await t.call('GET', `${base(chatbotId)}/${followupId}`, other.token), 404, 'CHATBOT_NOT_FOUND');
  });
});

describeRouteErrors('followups', () => ({
  t,
  token,
  chatbotId,
  routes: [
    { method: 'GET', path: (id) => `/chatbots/${id}/followups`, scopes: ['followups:read'] },
    {
      method: 'POST',
      path: (id) => `/chatbots/${id}/followups`,
      scopes: ['followups:write'],
      body: { title: 't', description: 'd' },
    },
    { method: 'GET', path: (id) => `/chatbots/${id}/followups/${followupId}`, scopes: ['followups:read'] },
    {
      method: 'PATCH',
      path: (id) => `/chatbots/${id}/followups/${followupId}`,
      scopes: ['followups:write'],
      body: { title: 't' },
    },
    {
      method: 'DELETE',
      path: (id) => `/chatbots/${id}/followups/${followupId}?confirm=true`,
      scopes: ['followups:delete'],
    },
  ],
}));
