/**
 * Searching the team's conversations (`q`): the visitor's name or e-mail, or the text of any
 * message, case-insensitive; LIKE's wildcards match only themselves; it combines with the state
 * filters and pages with its cursor; a bad search is refused and changes nothing. SQLite and
 * PostgreSQL.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';

describeOnDialects('searching conversations on %s', (dialect) => {
  let t: TestApp;
  let token: string;
  let base: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await buildTestApp({ dialect });
    token = (await t.token()).token;
    base = `/api/v2/chatbots/${(await t.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id}`;
    const start = async (key: string, message: string, visitor?: Record<string, string>) => {
      const res = await t.call('POST', `${base}/messages`, token, { message, ...(visitor && { visitor }) });
      expect(res.status).toBe(201);
      ids[key] = res.body.data.conversation.threadId;
    };
    await start('ada', 'Do you ship to Norway?', { name: 'Ada Lovelace', email: 'ada@example.com' });
    await start('grace', 'Is 100% cotton available?', { email: 'grace@navy.example' });
    await start('anon', 'Where is my order_42?');
    expect((await t.call('PATCH', `${base}/conversations/${ids.grace}`, token, { status: 'RESOLVED' })).status).toBe(
      200,
    );
  });
  afterAll(() => t.close());

  const search = async (query: Record<string, string>) => {
    const res = await t.call('GET', `${base}/conversations?${new URLSearchParams(query)}`, token);
    expect(res.status).toBe(200);
    return (res.body.data.conversations as Array<{ threadId: string }>).map((c) => c.threadId).sort();
  };

  test("finds by the visitor's name or e-mail, or a message's text, in any case", async () => {
    expect(await search({ q: 'LOVELACE' })).toEqual([ids.ada]);
    expect(await search({ q: 'navy.example' })).toEqual([ids.grace]);
    expect(await search({ q: 'norway' })).toEqual([ids.ada]);
    expect(await search({ q: 'order_42' })).toEqual([ids.anon]);
    expect(await search({ q: 'nobody' })).toEqual([]);
  });

  test('wildcards match only themselves', async () => {
    expect(await search({ q: '100%' })).toEqual([ids.grace]);
    expect(await search({ q: '%' })).toEqual([ids.grace]);
    expect(await search({ q: 'r_4' })).toEqual([ids.anon]);
  });

  test('combines with the state filters and pages with its cursor', async () => {
    expect(await search({ q: 'example', status: 'OPEN' })).toEqual([ids.ada]);
    expect(await search({ q: 'example', status: 'RESOLVED' })).toEqual([ids.grace]);
    const first = await t.call('GET', `${base}/conversations?q=o&limit=1`, token);
    const cursor = first.body.data.pagination.nextCursor;
    expect(cursor).toBeTruthy();
    const second = await t.call('GET', `${base}/conversations?q=o&limit=1&cursor=${encodeURIComponent(cursor)}`, token);
    expect(second.status).toBe(200);
    expect(second.body.data.conversations).toHaveLength(1);
    expect(second.body.data.conversations[0].threadId).not.toBe(first.body.data.conversations[0].threadId);
    // A cursor of one search is not another's.
    const other = await t.call('GET', `${base}/conversations?q=e&limit=1&cursor=${encodeURIComponent(cursor)}`, token);
    expect(other.status).toBe(400);
  });

  test('a search over 200 characters, or empty, is refused in the envelope', async () => {
    for (const q of ['x'.repeat(201), '']) {
      const res = await t.call('GET', `${base}/conversations?q=${q}`, token);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });
});
