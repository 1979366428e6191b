/**
 * /chatbots/{chatbotId}/personas: create, list with `active`, get, patch, `/use`
 * (settings.personaId), delete with the confirm rule (deleting the active one clears
 * personaId), validation (no temperature: that belongs to instructions), mass assignment, cap,
 * 404s, and the errors every route answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../../../server/domain/ids.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import {
  afterMillisecond,
  createChatbot,
  describeRouteErrors,
  expectError,
  freshAccount,
  rowCount,
} from '../../../helpers/resources.js';

let t: TestApp;
let token: string;
let chatbotId: string;
let personaId: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  chatbotId = await createChatbot(t, token, 'personas');
  personaId = (await create(chatbotId, { title: 'Ada', instructions: 'You are Ada, a patient engineer.' })).id;
});
afterAll(() => t.close());

const base = (id: string) => `/api/v2/chatbots/${id}/personas`;

async function create(id: string, body: Record<string, unknown>) {
  const res = await t.call('POST', base(id), token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.persona;
}

const settingsOf = async (id: string) =>
  (await t.call('GET', `/api/v2/chatbots/${id}`, token)).body.data.chatbot.settings;

describe('create, list, get, patch', () => {
  test('POST creates a persona (201), inactive; the settings carry personaId null until /use', async () => {
    const id = await createChatbot(t, token);
    expect((await settingsOf(id)).personaId).toBeNull();
    const p = await create(id, { title: ' Max ', description: 'Sales voice', instructions: ' You are Max. ' });
    expect(p).toEqual({
      id: expect.any(String),
      chatbotId: id,
      title: 'Max',
      description: 'Sales voice',
      instructions: 'You are Max.',
      active: false,
      createdAt: expect.any(String),
      updatedAt: p.createdAt,
    });
    expect(p).not.toHaveProperty('temperature');
    expect((await t.call('GET', `${base(id)}/${p.id}`, token)).body.data.persona).toEqual(p);
  });

  test('GET lists every persona, newest first, with active', async () => {
    const id = await createChatbot(t, token);
    const a = await create(id, { title: 'a', instructions: 'a' });
    await afterMillisecond(a.createdAt);
    const b = await create(id, { title: 'b', instructions: 'b' });
    await t.call('POST', `${base(id)}/${b.id}/use`, token);
    const list = (await t.call('GET', base(id), token)).body.data.personas;
    expect(list.map((x: { id: string; active: boolean }) => [x.id, x.active])).toEqual([
      [b.id, true],
      [a.id, false],
    ]);
  });

  test('PATCH changes only the fields sent', async () => {
    const p = await create(chatbotId, { title: 'p', instructions: 'x' });
    const res = await t.call('PATCH', `${base(chatbotId)}/${p.id}`, token, { instructions: 'y' });
    expect(res.status).toBe(200);
    expect(res.body.data.persona).toMatchObject({ title: 'p', instructions: 'y', description: '' });
    expectError(await t.call('PATCH', `${base(chatbotId)}/${p.id}`, token, {}), 400, 'VALIDATION_FAILED');
  });
});

describe('/use', () => {
  test('POST .../use sets settings.personaId (not promptId); using another moves it', async () => {
    const id = await createChatbot(t, token);
    const a = await create(id, { title: 'a', instructions: 'a' });
    const b = await create(id, { title: 'b', instructions: 'b' });
    const res = await t.call('POST', `${base(id)}/${a.id}/use`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.persona).toMatchObject({ id: a.id, active: true });
    expect(await settingsOf(id)).toMatchObject({ personaId: a.id, promptId: null });
    await t.call('POST', `${base(id)}/${b.id}/use`, token);
    expect((await settingsOf(id)).personaId).toBe(b.id);
  });

  test('personaId is read-only in settings PATCHes', async () => {
    expectError(
      await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/general`, token, { personaId: personaId }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings`, token, { general: { personaId: personaId } }),
      400,
      'VALIDATION_FAILED',
    );
    expect((await settingsOf(chatbotId)).personaId).toBeNull();
  });
});

describe('delete', () => {
  test('without ?confirm=true: 400 CONFIRMATION_REQUIRED, nothing deleted', async () => {
    const before = await rowCount(t, 'personas');
    expectError(await t.call('DELETE', `${base(chatbotId)}/${personaId}`, token), 400, 'CONFIRMATION_REQUIRED');
    expectError(
      await t.call('DELETE', `${base(chatbotId)}/${personaId}?confirm=false`, token),
      400,
      'CONFIRMATION_REQUIRED',
    );
    expect(await rowCount(t, 'personas')).toBe(before);
  });

  test('deleting the active persona returns data.deletedPersona and clears personaId', async () => {
    const id = await createChatbot(t, token);
    const p = await create(id, { title: 'a', instructions: 'a' });
    await t.call('POST', `${base(id)}/${p.id}/use`, token);
    const res = await t.call('DELETE', `${base(id)}/${p.id}?confirm=true`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedPersona).toMatchObject({ id: p.id, active: true });
    expect((await settingsOf(id)).personaId).toBeNull();
  });

  test('deleting another persona keeps the active one', async () => {
    const id = await createChatbot(t, token);
    const a = await create(id, { title: 'a', instructions: 'a' });
    const b = await create(id, { title: 'b', instructions: 'b' });
    await t.call('POST', `${base(id)}/${a.id}/use`, token);
    await t.call('DELETE', `${base(id)}/${b.id}?confirm=true`, token);
    expect((await settingsOf(id)).personaId).toBe(a.id);
  });
});

describe('validation, mass assignment, cap, reach', () => {
  test.each([
    ['title missing', { instructions: 'i' }, ['title']],
    ['title too long', { title: 'x'.repeat(201), instructions: 'i' }, ['title']],
    ['instructions missing', { title: 't' }, ['instructions']],
    ['instructions too long', { title: 't', instructions: 'x'.repeat(8001) }, ['instructions']],
    ['temperature (instructions only)', { title: 't', instructions: 'i', temperature: 0.5 }, ['temperature']],
  ])('%s: 400 VALIDATION_FAILED naming the field', async (_label, body, path) => {
    const before = await rowCount(t, 'personas', chatbotId);
    const res = await t.call('POST', base(chatbotId), token, body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await rowCount(t, 'personas', chatbotId)).toBe(before);
  });

  test.each([
    ['id', { id: 'x' }],
    ['active', { active: true }],
    ['createdAt', { createdAt: '2000-01-01T00:00:00.000Z' }],
  ])('mass assignment of %s is refused', async (_label, extra) => {
    expectError(
      await t.call('POST', base(chatbotId), token, { title: 't', instructions: 'i', ...extra }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await t.call('PATCH', `${base(chatbotId)}/${personaId}`, token, extra), 400, 'VALIDATION_FAILED');
    expect((await settingsOf(chatbotId)).personaId).toBeNull();
  });

  test('a chatbot holds at most 100 personas', async () => {
    const id = await createChatbot(t, token);
    const at = new Date().toISOString();
    for (let i = 0; i < 100; i++) {
      await t.app.services.store.resources.personas.insert({
        id: newId(),
        chatbotId: id,
        title: `p${i}`,
        description: '',
        instructions: 'x',
        temperature: null,
        createdAt: at,
        updatedAt: at,
      });
    }
    expectError(await t.call('POST', base(id), token, { title: 'x', instructions: 'x' }), 400, 'VALIDATION_FAILED');
    expect(await rowCount(t, 'personas', id)).toBe(100);
  });

  test('a persona of another chatbot, or an unknown id, is 404 NOT_FOUND everywhere', async () => {
    const other = await createChatbot(t, token);
    for (const [bot, id] of [
      [other, personaId],
      [chatbotId, newId()],
    ]) {
      expectError(await t.call('GET', `${base(bot)}/${id}`, token), 404, 'NOT_FOUND');
      expectError(await t.call('PATCH', `${base(bot)}/${id}`, token, { title: 'x' }), 404, 'NOT_FOUND');
      expectError(await t.call('POST', `${base(bot)}/${id}/use`, token), 404, 'NOT_FOUND');
      expectError(await t.call('DELETE', `${base(bot)}/${id}?confirm=true`, token), 404, 'NOT_FOUND');
    }
    expect((await settingsOf(other)).personaId).toBeNull();
    expect((await t.call('GET', `${base(chatbotId)}/${personaId}`, token)).body.data.persona.title).toBe('Ada');
  });

  test("another account's token gets 404 CHATBOT_NOT_FOUND", async () => {
    const other = await freshAccount(t);
    expectError(await t.call('GET', base(chatbotId), other.token), 404, 'CHATBOT_NOT_FOUND');
  });
});

describeRouteErrors('personas', () => ({
  t,
  token,
  chatbotId,
  routes: [
    { method: 'GET', path: (id) => `/chatbots/${id}/personas`, scopes: ['personas:read'] },
    {
      method: 'POST',
      path: (id) => `/chatbots/${id}/personas`,
      scopes: ['personas:write'],
      body: { title: 't', instructions: 'i' },
    },
    { method: 'GET', path: (id) => `/chatbots/${id}/personas/${personaId}`, scopes: ['personas:read'] },
    {
      method: 'PATCH',
      path: (id) => `/chatbots/${id}/personas/${personaId}`,
      scopes: ['personas:write'],
      body: { title: 't' },
    },
    { method: 'POST', path: (id) => `/chatbots/${id}/personas/${personaId}/use`, scopes: ['personas:write'] },
    {
      method: 'DELETE',
      path: (id) => `/chatbots/${id}/personas/${personaId}?confirm=true`,
      scopes: ['personas:delete'],
    },
  ],
}));
