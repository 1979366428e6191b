/**
 * /chatbots/{chatbotId}/tags (scopes conversations:read / write / delete): create with a unique
 * name (case-insensitive; a duplicate is 400 VALIDATION_FAILED), colour, list with conversation
 * counts, get, patch, delete with the confirm rule (data.deletedTag; the tag leaves every
 * conversation), mass assignment, cap, 404s, and the errors every route answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../../../server/domain/ids.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { createChatbot, describeRouteErrors, expectError, freshAccount, rowCount } from '../../../helpers/resources.js';

let t: TestApp;
let token: string;
let chatbotId: string;
let tagId: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  chatbotId = await createChatbot(t, token, 'tags');
  tagId = (await create(chatbotId, { name: 'Billing', color: '#ff8800' })).id;
});
afterAll(() => t.close());

const base = (id: string) => `/api/v2/chatbots/${id}/tags`;

async function create(id: string, body: Record<string, unknown>) {
  const res = await t.call('POST', base(id), token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.tag;
}

/** A conversation row of the chatbot carrying these tags (written directly: the table is fixed). */
async function conversationWith(id: string, tagIds: string[]) {
  const at = new Date().toISOString();
  const conversationId = newId();
  await t.database.db
    .insertInto('conversations')
    .values({
      id: conversationId,
      chatbot_id: id,
      chat_user_id: null,
      status: 'OPEN',
      mode: 'AI',
      agent_id: null,
      webhook_url: null,
      webhook_token: null,
      last_message_at: null,
      created_at: at,
      updated_at: at,
      ended_at: null,
    })
    .execute();
  for (const tag of tagIds)
    await t.database.db
      .insertInto('conversation_tags')
      .values({ conversation_id: conversationId, tag_id: tag })
      .execute();
  return conversationId;
}

const tagsOf = async (conversationId: string) =>
  (
    await t.database.db
      .selectFrom('conversation_tags')
      .select('tag_id')
      .where('conversation_id', '=', conversationId)
      .execute()
  ).map((r) => r.tag_id);

describe('create, list, get, patch', () => {
  test('POST creates a tag (201): trimmed name, colour or null, no conversations yet', async () => {
    const id = await createChatbot(t, token);
    const tag = await create(id, { name: '  Urgent  ', color: '#F00' });
    expect(tag).toEqual({
      id: expect.any(String),
      chatbotId: id,
      name: 'Urgent',
      color: '#F00',
      conversationCount: 0,
      createdAt: expect.any(String),
      updatedAt: tag.createdAt,
    });
    expect((await create(id, { name: 'Plain' })).color).toBeNull();
    expect((await t.call('GET', `${base(id)}/${tag.id}`, token)).body.data.tag).toEqual(tag);
  });

  test('GET lists the tags by name with how many conversations carry each', async () => {
    const id = await createChatbot(t, token);
    const b = await create(id, { name: 'b' });
    const a = await create(id, { name: 'a' });
    await conversationWith(id, [a.id, b.id]);
    await conversationWith(id, [a.id]);
    const res = await t.call('GET', base(id), token);
    expect(res.status).toBe(200);
    expect(
      res.body.data.tags.map((x: { name: string; conversationCount: number }) => [x.name, x.conversationCount]),
    ).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect((await t.call('GET', `${base(id)}/${a.id}`, token)).body.data.tag.conversationCount).toBe(2);
  });

  test('PATCH renames or recolours; conversations keep the tag', async () => {
    const id = await createChatbot(t, token);
    const tag = await create(id, { name: 'old', color: '#000000' });
    const conversation = await conversationWith(id, [tag.id]);
    const res = await t.call('PATCH', `${base(id)}/${tag.id}`, token, { name: 'new' });
    expect(res.status).toBe(200);
    expect(res.body.data.tag).toMatchObject({ name: 'new', color: '#000000', conversationCount: 1 });
    expect((await t.call('PATCH', `${base(id)}/${tag.id}`, token, { color: null })).body.data.tag.color).toBeNull();
    expect(await tagsOf(conversation)).toEqual([tag.id]);
  });

  test('renaming a tag to its own name in another case is allowed', async () => {
    const tag = await create(chatbotId, { name: 'casing' });
    const res = await t.call('PATCH', `${base(chatbotId)}/${tag.id}`, token, { name: 'Casing' });
    expect(res.status).toBe(200);
    expect(res.body.data.tag.name).toBe('Casing');
  });
});

describe('unique names', () => {
  test.each(['Billing', 'billing', ' BILLING '])(
    'creating "%s" next to "Billing" is 400 VALIDATION_FAILED on name; nothing created',
    async (name) => {
      const before = await rowCount(t, 'tags', chatbotId);
      const res = await t.call('POST', base(chatbotId), token, { name });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.error.details).toEqual([expect.objectContaining({ path: ['name'] })]);
      expect(res.body.error.message).toContain('Billing');
      expect(await rowCount(t, 'tags', chatbotId)).toBe(before);
    },
  );

  test('renaming onto an existing name is 400 VALIDATION_FAILED; the tag keeps its name', async () => {
    const tag = await create(chatbotId, { name: 'Sales' });
    const res = await t.call('PATCH', `${base(chatbotId)}/${tag.id}`, token, { name: 'BILLING' });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect((await t.call('GET', `${base(chatbotId)}/${tag.id}`, token)).body.data.tag.name).toBe('Sales');
  });

  test('the same name in another chatbot is fine', async () => {
    const id = await createChatbot(t, token);
    expect((await create(id, { name: 'Billing' })).name).toBe('Billing');
  });

  test('two creates of one name at once: one wins, the other is 400 VALIDATION_FAILED', async () => {
    const id = await createChatbot(t, token);
    const [a, b] = await Promise.all([
      t.call('POST', base(id), token, { name: 'race' }),
      t.call('POST', base(id), token, { name: 'race' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 400]);
    expect(await rowCount(t, 'tags', id)).toBe(1);
  });
});

describe('validation, mass assignment, cap', () => {
  test.each([
    ['name missing', {}, ['name']],
    ['name blank', { name: '  ' }, ['name']],
    ['name too long', { name: 'x'.repeat(51) }, ['name']],
    ['colour not hex', { name: 'n', color: 'red' }, ['color']],
    ['colour without #', { name: 'n', color: 'ff0000' }, ['color']],
    ['colour of 4 digits', { name: 'n', color: '#ff00' }, ['color']],
  ])('%s: 400 VALIDATION_FAILED naming the field', async (_label, body, path) => {
    const res = await t.call('POST', base(chatbotId), token, body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  test.each([
    ['id', { id: 'x' }],
    ['chatbotId', { chatbotId: 'x' }],
    ['conversationCount', { conversationCount: 9 }],
  ])('mass assignment of %s is refused', async (_l, extra) => {
    const before = await rowCount(t, 'tags', chatbotId);
    expectError(
      await t.call('POST', base(chatbotId), token, { name: `n-${newId()}`, ...extra }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await t.call('PATCH', `${base(chatbotId)}/${tagId}`, token, extra), 400, 'VALIDATION_FAILED');
    expect(await rowCount(t, 'tags', chatbotId)).toBe(before);
  });

  test('an empty PATCH is 400 VALIDATION_FAILED', async () => {
    expectError(await t.call('PATCH', `${base(chatbotId)}/${tagId}`, token, {}), 400, 'VALIDATION_FAILED');
  });

  test('a chatbot holds at most 200 tags', async () => {
    const id = await createChatbot(t, token);
    const at = new Date().toISOString();
    for (let i = 0; i < 200; i++)
      await t.app.services.store.resources.tags.insert({
        id: newId(),
        chatbotId: id,
        name: `t${i}`,
        color: null,
        createdAt: at,
        updatedAt: at,
      });
    expectError(await t.call('POST', base(id), token, { name: 'one more' }), 400, 'VALIDATION_FAILED');
    expect(await rowCount(t, 'tags', id)).toBe(200);
  });
});

describe('delete', () => {
  test('without ?confirm=true: 400 CONFIRMATION_REQUIRED; the tag and its conversation links stay', async () => {
    const id = await createChatbot(t, token);
    const tag = await create(id, { name: 'keep' });
    const conversation = await conversationWith(id, [tag.id]);
    const before = [await rowCount(t, 'tags'), await rowCount(t, 'conversation_tags')];
    expectError(await t.call('DELETE', `${base(id)}/${tag.id}`, token), 400, 'CONFIRMATION_REQUIRED');
    expect([await rowCount(t, 'tags'), await rowCount(t, 'conversation_tags')]).toEqual(before);
    expect(await tagsOf(conversation)).toEqual([tag.id]);
  });

  test('?confirm=true returns data.deletedTag and takes the tag off every conversation, leaving other tags', async () => {
    const id = await createChatbot(t, token);
    const gone = await create(id, { name: 'gone', color: '#123456' });
    const stays = await create(id, { name: 'stays' });
    const c1 = await conversationWith(id, [gone.id, stays.id]);
    const c2 = await conversationWith(id, [gone.id]);
    const res = await t.call('DELETE', `${base(id)}/${gone.id}?confirm=true`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedTag).toEqual({ ...gone, conversationCount: 2 });
    expect(await tagsOf(c1)).toEqual([stays.id]);
    expect(await tagsOf(c2)).toEqual([]);
    expect(await rowCount(t, 'conversations', id)).toBe(2);
    expectError(await t.call('GET', `${base(id)}/${gone.id}`, token), 404, 'NOT_FOUND');
  });

  test('a tag of another chatbot, or an unknown id, is 404 NOT_FOUND', async () => {
    const other = await createChatbot(t, token);
    const before = await rowCount(t, 'tags');
    for (const [bot, id] of [
      [other, tagId],
      [chatbotId, newId()],
    ]) {
      expectError(await t.call('GET', `${base(bot)}/${id}`, token), 404, 'NOT_FOUND');
      expectError(await t.call('PATCH', `${base(bot)}/${id}`, token, { name: 'x' }), 404, 'NOT_FOUND');
      expectError(await t.call('DELETE', `${base(bot)}/${id}?confirm=true`, token), 404, 'NOT_FOUND');
    }
    expect(await rowCount(t, 'tags')).toBe(before);
  });

  test("another account's token gets 404 CHATBOT_NOT_FOUND", async () => {
    const other = await freshAccount(t);
    expectError(
      await t.call('DELETE', `${base(chatbotId)}/${tagId}?confirm=true`, other.token),
      404,
      'CHATBOT_NOT_FOUND',
    );
    expect((await t.call('GET', `${base(chatbotId)}/${tagId}`, token)).status).toBe(200);
  });
});

describeRouteErrors('tags', () => ({
  t,
  token,
  chatbotId,
  routes: [
    { method: 'GET', path: (id) => `/chatbots/${id}/tags`, scopes: ['conversations:read'] },
    {
      method: 'POST',
      path: (id) => `/chatbots/${id}/tags`,
      scopes: ['conversations:write'],
      body: { name: `n-${newId()}` },
    },
    { method: 'GET', path: (id) => `/chatbots/${id}/tags/${tagId}`, scopes: ['conversations:read'] },
    {
      method: 'PATCH',
      path: (id) => `/chatbots/${id}/tags/${tagId}`,
      scopes: ['conversations:write'],
      body: { color: '#abcdef' },
    },
    { method: 'DELETE', path: (id) => `/chatbots/${id}/tags/${tagId}?confirm=true`, scopes: ['conversations:delete'] },
  ],
}));
