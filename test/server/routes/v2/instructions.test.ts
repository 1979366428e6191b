/**
 * /chatbots/{chatbotId}/instructions: create with temperature 0..1 step 0.01 (null by default),
 * list with `active`, get, patch, `/use` (settings.promptId), delete with the confirm rule
 * (deleting the active one clears promptId), validation, mass assignment, cap, 404s, and the
 * errors every route answers.
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
let instructionId: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  chatbotId = await createChatbot(t, token, 'instructions');
  instructionId = (await create(chatbotId, { title: 'Support', instructions: 'Answer briefly.', temperature: 0.2 })).id;
});
afterAll(() => t.close());

const base = (id: string) => `/api/v2/chatbots/${id}/instructions`;

async function create(id: string, body: Record<string, unknown>) {
  const res = await t.call('POST', base(id), token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.instruction;
}

const promptIdOf = async (id: string) =>
  (await t.call('GET', `/api/v2/chatbots/${id}`, token)).body.data.chatbot.settings.promptId;

describe('create, list, get, patch', () => {
  test('POST creates an instruction (201), inactive, temperature null by default, description empty', async () => {
    const id = await createChatbot(t, token);
    const i = await create(id, { title: ' Tone ', instructions: ' Be warm. ' });
    expect(i).toEqual({
      id: expect.any(String),
      chatbotId: id,
      title: 'Tone',
      description: '',
      instructions: 'Be warm.',
      temperature: null,
      active: false,
      createdAt: expect.any(String),
      updatedAt: i.createdAt,
    });
    expect((await t.call('GET', `${base(id)}/${i.id}`, token)).body.data.instruction).toEqual(i);
  });

  test.each([0, 1, 0.01, 0.29, 0.5, 0.99])('temperature %s is accepted as given', async (temperature) => {
    const i = await create(chatbotId, { title: 't', instructions: 'i', temperature });
    expect(i.temperature).toBe(temperature);
    expect((await t.call('GET', `${base(chatbotId)}/${i.id}`, token)).body.data.instruction.temperature).toBe(
      temperature,
    );
  });

  test.each([-0.01, 1.01, 2, 0.005, 0.123])(
    'temperature %s is 400 VALIDATION_FAILED (0 to 1, step 0.01)',
    async (temperature) => {
      const before = await rowCount(t, 'instructions', chatbotId);
      const res = await t.call('POST', base(chatbotId), token, { title: 't', instructions: 'i', temperature });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: ['temperature'] })]),
      );
      expect(await rowCount(t, 'instructions', chatbotId)).toBe(before);
    },
  );

  test('GET lists every instruction, newest first, with active marking the one in use', async () => {
    const id = await createChatbot(t, token);
    const a = await create(id, { title: 'a', instructions: 'a' });
    await afterMillisecond(a.createdAt);
    const b = await create(id, { title: 'b', instructions: 'b' });
    await t.call('POST', `${base(id)}/${a.id}/use`, token);
    const list = (await t.call('GET', base(id), token)).body.data.instructions;
    expect(list.map((x: { id: string; active: boolean }) => [x.id, x.active])).toEqual([
      [b.id, false],
      [a.id, true],
    ]);
  });

  test('PATCH changes the fields sent; temperature null clears it', async () => {
    const i = await create(chatbotId, { title: 'p', description: 'for people', instructions: 'x', temperature: 0.7 });
    const res = await t.call('PATCH', `${base(chatbotId)}/${i.id}`, token, { instructions: 'y', temperature: null });
    expect(res.status).toBe(200);
    expect(res.body.data.instruction).toMatchObject({
      title: 'p',
      description: 'for people',
      instructions: 'y',
      temperature: null,
    });
    const again = await t.call('PATCH', `${base(chatbotId)}/${i.id}`, token, { temperature: 0.35 });
    expect(again.body.data.instruction.temperature).toBe(0.35);
    expectError(
      await t.call('PATCH', `${base(chatbotId)}/${i.id}`, token, { temperature: 1.5 }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await t.call('PATCH', `${base(chatbotId)}/${i.id}`, token, {}), 400, 'VALIDATION_FAILED');
  });
});

describe('/use', () => {
  test('POST .../use sets settings.promptId and returns the instruction with active true; using another moves it', async () => {
    const id = await createChatbot(t, token);
    const a = await create(id, { title: 'a', instructions: 'a' });
    const b = await create(id, { title: 'b', instructions: 'b' });
    expect(await promptIdOf(id)).toBeNull();
    const res = await t.call('POST', `${base(id)}/${a.id}/use`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.instruction).toMatchObject({ id: a.id, active: true });
    expect(await promptIdOf(id)).toBe(a.id);
    await t.call('POST', `${base(id)}/${b.id}/use`, token);
    expect(await promptIdOf(id)).toBe(b.id);
    expect((await t.call('GET', `${base(id)}/${a.id}`, token)).body.data.instruction.active).toBe(false);
    expect((await t.call('GET', `${base(id)}/${b.id}`, token)).body.data.instruction.active).toBe(true);
  });

  test('/use keeps the other settings', async () => {
    const id = await createChatbot(t, token);
    await t.call('PATCH', `/api/v2/chatbots/${id}/settings/general`, token, { topK: 2 });
    const i = await create(id, { title: 'a', instructions: 'a' });
    await t.call('POST', `${base(id)}/${i.id}/use`, token);
    const settings = (await t.call('GET', `/api/v2/chatbots/${id}`, token)).body.data.chatbot.settings;
    expect(settings).toMatchObject({ topK: 2, promptId: i.id });
  });

  test('/use of an instruction of another chatbot is 404 NOT_FOUND and changes nothing', async () => {
    const other = await createChatbot(t, token);
    expectError(await t.call('POST', `${base(other)}/${instructionId}/use`, token), 404, 'NOT_FOUND');
    expect(await promptIdOf(other)).toBeNull();
  });

  test('promptId stays read-only in settings PATCHes', async () => {
    expectError(
      await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/general`, token, { promptId: instructionId }),
      400,
      'VALIDATION_FAILED',
    );
  });
});

describe('delete', () => {
  test('without ?confirm=true: 400 CONFIRMATION_REQUIRED, nothing deleted, still active', async () => {
    const id = await createChatbot(t, token);
    const i = await create(id, { title: 'a', instructions: 'a' });
    await t.call('POST', `${base(id)}/${i.id}/use`, token);
    const before = await rowCount(t, 'instructions');
    expectError(await t.call('DELETE', `${base(id)}/${i.id}`, token), 400, 'CONFIRMATION_REQUIRED');
    expect(await rowCount(t, 'instructions')).toBe(before);
    expect(await promptIdOf(id)).toBe(i.id);
  });

  test('deleting the active instruction returns data.deletedInstruction and clears promptId', async () => {
    const id = await createChatbot(t, token);
    const i = await create(id, { title: 'a', instructions: 'a' });
    await t.call('POST', `${base(id)}/${i.id}/use`, token);
    const res = await t.call('DELETE', `${base(id)}/${i.id}?confirm=true`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedInstruction).toMatchObject({ id: i.id, active: true });
    expect(await promptIdOf(id)).toBeNull();
    expectError(await t.call('GET', `${base(id)}/${i.id}`, token), 404, 'NOT_FOUND');
  });

  test('deleting another instruction keeps the active one', async () => {
    const id = await createChatbot(t, token);
    const a = await create(id, { title: 'a', instructions: 'a' });
    const b = await create(id, { title: 'b', instructions: 'b' });
    await t.call('POST', `${base(id)}/${a.id}/use`, token);
    const res = await t.call('DELETE', `${base(id)}/${b.id}?confirm=true`, token);
    expect(res.body.data.deletedInstruction).toMatchObject({ id: b.id, active: false });
    expect(await promptIdOf(id)).toBe(a.id);
  });
});

describe('validation, mass assignment, cap, reach', () => {
  test.each([
    ['title missing', { instructions: 'i' }, ['title']],
    ['instructions missing', { title: 't' }, ['instructions']],
    ['instructions blank', { title: 't', instructions: '  ' }, ['instructions']],
    ['instructions too long', { title: 't', instructions: 'x'.repeat(8001) }, ['instructions']],
    ['description too long', { title: 't', instructions: 'i', description: 'x'.repeat(2001) }, ['description']],
    ['temperature a string', { title: 't', instructions: 'i', temperature: '0.5' }, ['temperature']],
  ])('%s: 400 VALIDATION_FAILED naming the field', async (_label, body, path) => {
    const res = await t.call('POST', base(chatbotId), token, body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  test.each([
    ['id', { id: 'x' }],
    ['active', { active: true }],
    ['chatbotId', { chatbotId: 'x' }],
  ])('mass assignment of %s is refused', async (_label, extra) => {
    const before = await rowCount(t, 'instructions', chatbotId);
    expectError(
      await t.call('POST', base(chatbotId), token, { title: 't', instructions: 'i', ...extra }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await t.call('PATCH', `${base(chatbotId)}/${instructionId}`, token, extra), 400, 'VALIDATION_FAILED');
    expect(await rowCount(t, 'instructions', chatbotId)).toBe(before);
    expect(await promptIdOf(chatbotId)).toBeNull();
  });

  test('a chatbot holds at most 100 instructions', async () => {
    const id = await createChatbot(t, token);
    const at = new Date().toISOString();
    for (let i = 0; i < 100; i++) {
      await t.app.services.store.resources.instructions.insert({
        id: newId(),
        chatbotId: id,
        title: `i${i}`,
        description: '',
        instructions: 'x',
        temperature: null,
        createdAt: at,
        updatedAt: at,
      });
    }
    expectError(await t.call('POST', base(id), token, { title: 'x', instructions: 'x' }), 400, 'VALIDATION_FAILED');
    expect(await rowCount(t, 'instructions', id)).toBe(100);
  });

  test('an instruction of another chatbot, or an unknown id, is 404 NOT_FOUND everywhere', async () => {
    const other = await createChatbot(t, token);
    const before = await rowCount(t, 'instructions');
    for (const [bot, id] of [
      [other, instructionId],
      [chatbotId, newId()],
    ]) {
      expectError(await t.call('GET', `${base(bot)}/${id}`, token), 404, 'NOT_FOUND');
      expectError(await t.call('PATCH', `${base(bot)}/${id}`, token, { title: 'x' }), 404, 'NOT_FOUND');
      expectError(await t.call('POST', `${base(bot)}/${id}/use`, token), 404, 'NOT_FOUND');
      expectError(await t.call('DELETE', `${base(bot)}/${id}?confirm=true`, token), 404, 'NOT_FOUND');
    }
    expect(await rowCount(t, 'instructions')).toBe(before);
  });

  test("another account's token gets 404 CHATBOT_NOT_FOUND", async () => {
    const other = await freshAccount(t);
    expectError(await t.call('POST', `${base(chatbotId)}/${instructionId}/use`, other.token), 404, 'CHATBOT_NOT_FOUND');
    expect(await promptIdOf(chatbotId)).toBeNull();
  });
});

describeRouteErrors('instructions', () => ({
  t,
  token,
  chatbotId,
  routes: [
    { method: 'GET', path: (id) => `/chatbots/${id}/instructions`, scopes: ['instructions:read'] },
    {
      method: 'POST',
      path: (id) => `/chatbots/${id}/instructions`,
      scopes: ['instructions:write'],
      body: { title: 't', instructions: 'i' },
    },
    { method: 'GET', path: (id) => `/chatbots/${id}/instructions/${instructionId}`, scopes: ['instructions:read'] },
    {
      method: 'PATCH',
      path: (id) => `/chatbots/${id}/instructions/${instructionId}`,
      scopes: ['instructions:write'],
      body: { title: 't' },
    },
    {
      method: 'POST',
      path: (id) => `/chatbots/${id}/instructions/${instructionId}/use`,
      scopes: ['instructions:write'],
    },
    {
      method: 'DELETE',
      path: (id) => `/chatbots/${id}/instructions/${instructionId}?confirm=true`,
      scopes: ['instructions:delete'],
    },
  ],
}));
