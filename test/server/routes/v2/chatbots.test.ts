/**
 * /chatbots: create, list (keyset pagination, cursors), get (every settings field), delete
 * (confirm rule), reach (chatbot restriction, other accounts), mass assignment and the plan rules
 * (CHATBOT_LIMIT_REACHED, ACCOUNT_INACTIVE). Each test that counts works in its own account.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chatbotSettingsSchema, DEFAULT_SETTINGS } from '../../../../shared/settings.js';
import { newId } from '../../../../server/domain/ids.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
});
afterAll(() => t.close());

/** A fresh account and a full token of its owner. */
async function freshAccount(): Promise<{ accountId: string; token: string }> {
  const { account } = await t.app.services.accounts.create(`${newId()}@x.test`);
  return { accountId: account.id, token: (await t.token({ access: 'full' }, account.id)).token };
}

async function create(tk: string, title: string) {
  const res = await t.call('POST', '/api/v2/chatbots', tk, { title });
  expect(res.status).toBe(201);
  return res.body.data.chatbot as { id: string; title: string; createdAt: string; settings: Record<string, unknown> };
}

async function rowCount(table: 'chatbots' | 'tokens', accountId?: string): Promise<number> {
  let q = t.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
  if (accountId) q = q.where('account_id', '=', accountId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

describe('create and get', () => {
  test('POST creates a chatbot (201) with the default settings; GET returns it', async () => {
    const res = await t.call('POST', '/api/v2/chatbots', token, {
      title: '  Support  ',
      description: 'Answers questions',
    });
    expect(res.status).toBe(201);
    const chatbot = res.body.data.chatbot;
    expect(chatbot).toMatchObject({ title: 'Support', description: 'Answers questions', id: expect.any(String) });
    expect(chatbot.settings).toEqual(DEFAULT_SETTINGS);
    const got = await t.call('GET', `/api/v2/chatbots/${chatbot.id}`, token);
    expect(got.status).toBe(200);
    expect(got.body.data.chatbot).toEqual(chatbot);
  });

  test('GET returns every settings field, defaults included', async () => {
    const chatbot = await create(token, 'fields');
    const got = await t.call('GET', `/api/v2/chatbots/${chatbot.id}`, token);
    const settings = got.body.data.chatbot.settings;
    expect(Object.keys(settings).sort()).toEqual(Object.keys(DEFAULT_SETTINGS).sort());
    expect(Object.keys(settings).sort()).toEqual(Object.keys(chatbotSettingsSchema.properties).sort());
    expect(settings.smartFollowUpPromptsCount).toBe(3);
    expect(settings.gptModel).toBe('gpt-4.1-mini');
  });

  test('settings given at creation are applied and validated', async () => {
    const res = await t.call('POST', '/api/v2/chatbots', token, {
      title: 'configured',
      settings: { general: { topK: 2, gptModel: 'gpt-4.1' }, 'chat-mode': { mode: 'AI_ONLY' } },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.chatbot.settings).toMatchObject({ topK: 2, gptModel: 'gpt-4.1', mode: 'AI_ONLY' });
    const bad = await t.call('POST', '/api/v2/chatbots', token, { title: 'bad', settings: { general: { topK: 6 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ path: ['settings', 'general', 'topK'] })]);
  });

  test('a title is required and not blank', async () => {
    for (const body of [{}, { title: '' }, { title: 7 }]) {
      const res = await t.call('POST', '/api/v2/chatbots', token, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  test('an unknown id is 404 CHATBOT_NOT_FOUND', async () => {
    const res = await t.call('GET', `/api/v2/chatbots/${newId()}`, token);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ ok: false, error: { code: 'CHATBOT_NOT_FOUND' } });
  });
});

describe('mass assignment', () => {
  test.each([
    ['id', { id: 'chosen-id' }],
    ['accountId', { accountId: 'someone-else' }],
    ['createdAt', { createdAt: '2000-01-01T00:00:00.000Z' }],
    ['updatedAt', { updatedAt: '2000-01-01T00:00:00.000Z' }],
    ['createdById', { createdById: 'someone' }],
    ['settings.general.id', { settings: { general: { id: 'x' } } }],
    [
      'settings.appearance.iconSrcId (read-only)',
      { settings: { appearance: { iconSrcId: 'https://evil.test/x.png' } } },
    ],
    ['settings.promptId (read-only)', { settings: { promptId: 'p' } }],
  ])('%s in POST /chatbots is refused with VALIDATION_FAILED and nothing is created', async (_label, extra) => {
    const { accountId, token: tk } = await freshAccount();
    const before = await rowCount('chatbots');
    const res = await t.call('POST', '/api/v2/chatbots', tk, { title: 'mass', ...extra });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.length).toBeGreaterThan(0);
    expect(await rowCount('chatbots')).toBe(before);
    expect(await rowCount('chatbots', accountId)).toBe(0);
    expect(await t.database.db.selectFrom('chatbots').select('id').where('id', '=', 'chosen-id').execute()).toEqual([]);
  });

  test('a settings PATCH cannot change the id, owner or timestamps either', async () => {
    const chatbot = await create(token, 'patch mass');
    for (const body of [{ id: 'x' }, { accountId: 'x' }, { createdAt: '2000-01-01T00:00:00.000Z' }]) {
      const res = await t.call('PATCH', `/api/v2/chatbots/${chatbot.id}/settings/general`, token, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
    const got = await t.call('GET', `/api/v2/chatbots/${chatbot.id}`, token);
    expect(got.body.data.chatbot.id).toBe(chatbot.id);
    expect(got.body.data.chatbot.createdAt).toBe(chatbot.createdAt);
  });
});

describe('list and pagination', () => {
  test('pages across more than two pages with inserts in between: nothing skipped or repeated, newest first', async () => {
    const { token: tk } = await freshAccount();
    for (let i = 0; i < 8; i++) await create(tk, `bot ${i}`);
    const all = await t.call('GET', '/api/v2/chatbots?limit=100', tk);
    const expected: string[] = all.body.data.chatbots.map((c: { id: string }) => c.id);
    expect(expected).toHaveLength(8);
    const created: string[] = all.body.data.chatbots.map((c: { createdAt: string }) => c.createdAt);
    expect([...created].sort().reverse()).toEqual(created);

    const seen: string[] = [];
    const inserted: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/api/v2/chatbots?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await t.call('GET', url, tk);
      expect(res.status).toBe(200);
      const { chatbots, pagination } = res.body.data;
      expect(pagination.limit).toBe(3);
      expect(chatbots.length).toBeLessThanOrEqual(3);
      expect(res.body.meta.nextCursor).toBe(pagination.nextCursor);
      expect(pagination.hasNextPage).toBe(pagination.nextCursor !== null);
      seen.push(...chatbots.map((c: { id: string }) => c.id));
      cursor = pagination.nextCursor;
      pages++;
      // Someone adds a chatbot while we read.
      inserted.push((await create(tk, `added during page ${pages}`)).id);
    } while (cursor && pages < 10);

    expect(pages).toBe(3);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of inserted) expect(seen).not.toContain(id);

    // A new first page shows the newest additions first (ties within a millisecond in any order).
    const first = await t.call('GET', '/api/v2/chatbots?limit=3', tk);
    expect(first.body.data.chatbots.map((c: { id: string }) => c.id).sort()).toEqual([...inserted].sort());
    const firstCreated: string[] = first.body.data.chatbots.map((c: { createdAt: string }) => c.createdAt);
    expect([...firstCreated].sort().reverse()).toEqual(firstCreated);
  });

  test('deleting an item between pages neither skips nor repeats the others', async () => {
    const { token: tk } = await freshAccount();
    for (let i = 0; i < 6; i++) await create(tk, `d${i}`);
    const all: string[] = (await t.call('GET', '/api/v2/chatbots', tk)).body.data.chatbots.map(
      (c: { id: string }) => c.id,
    );
    const p1 = await t.call('GET', '/api/v2/chatbots?limit=2', tk);
    // Delete the last item of page 1 (the cursor's own row) and the first item of page 2.
    await t.call('DELETE', `/api/v2/chatbots/${all[1]}?confirm=true`, tk);
    await t.call('DELETE', `/api/v2/chatbots/${all[2]}?confirm=true`, tk);
    const p2 = await t.call(
      'GET',
      `/api/v2/chatbots?limit=2&cursor=${encodeURIComponent(p1.body.meta.nextCursor)}`,
      tk,
    );
    expect(p2.body.data.chatbots.map((c: { id: string }) => c.id)).toEqual([all[3], all[4]]);
  });

  test('the last page has nextCursor null in data.pagination and meta', async () => {
    const { token: tk } = await freshAccount();
    await create(tk, 'only');
    const res = await t.call('GET', '/api/v2/chatbots?limit=1', tk);
    expect(res.body.data.pagination).toEqual({ limit: 1, hasNextPage: false, nextCursor: null });
    expect(res.body.meta.nextCursor).toBeNull();
  });

  test('an empty list is a page with no items', async () => {
    const { token: tk } = await freshAccount();
    const res = await t.call('GET', '/api/v2/chatbots', tk);
    expect(res.body.data).toEqual({ chatbots: [], pagination: { limit: 50, hasNextPage: false, nextCursor: null } });
  });

  test.each(['0', '-1', '101', '1000', '1.5', 'abc', ''])('limit=%s is 400 VALIDATION_FAILED', async (limit) => {
    const res = await t.call('GET', `/api/v2/chatbots?limit=${limit}`, token);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: ['limit'] })]));
  });

  test.each(['1', '100'])('limit=%s is accepted', async (limit) => {
    const res = await t.call('GET', `/api/v2/chatbots?limit=${limit}`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.pagination.limit).toBe(Number(limit));
  });

  test('an unknown query parameter is refused', async () => {
    const res = await t.call('GET', '/api/v2/chatbots?offset=10', token);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });

  describe('cursors the API did not issue for this list are 400 INVALID_CURSOR', () => {
    let tk: string;
    let cursor: string;
    beforeAll(async () => {
      tk = (await freshAccount()).token;
      for (let i = 0; i < 3; i++) await create(tk, `c${i}`);
      cursor = (await t.call('GET', '/api/v2/chatbots?limit=1', tk)).body.meta.nextCursor;
      expect(cursor).toEqual(expect.any(String));
    });

    const invalid = async (c: string) => {
      const res = await t.call('GET', `/api/v2/chatbots?limit=1&cursor=${encodeURIComponent(c)}`, tk);
      expect(res.status, c).toBe(400);
      expect(res.body).toMatchObject({ ok: false, error: { code: 'INVALID_CURSOR', hint: expect.any(String) } });
    };

    test('the issued cursor works', async () => {
      const res = await t.call('GET', `/api/v2/chatbots?limit=1&cursor=${encodeURIComponent(cursor)}`, tk);
      expect(res.status).toBe(200);
    });

    test('random strings', async () => {
      for (const c of ['abc', 'abc.def', '...', 'eyJ4IjoxfQ', `${'a'.repeat(40)}.${'b'.repeat(22)}`]) await invalid(c);
    });

    test('a cursor whose payload was changed (an older or newer position forged)', async () => {
      const [body, sig] = cursor.split('.');
      const [list, createdAt, id] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      const forged = Buffer.from(JSON.stringify([list, '2999-01-01T00:00:00.000Z', id])).toString('base64url');
      await invalid(`${forged}.${sig}`);
      const otherId = Buffer.from(JSON.stringify([list, createdAt, 'zzzz'])).toString('base64url');
      await invalid(`${otherId}.${sig}`);
    });

    test('a cursor with one character of its signature changed', async () => {
      const last = cursor.at(-1) === 'A' ? 'B' : 'A';
      await invalid(cursor.slice(0, -1) + last);
      await invalid(`${cursor}.extra`);
      await invalid(cursor.split('.')[0]);
    });

    test('a cursor from another list (tokens)', async () => {
      const { accountId, token: owner } = await freshAccount();
      await t.token({ access: 'standard' }, accountId);
      await t.token({ access: 'standard' }, accountId);
      const tokensPage = await t.call('GET', '/api/v2/tokens?limit=1', owner);
      const tokensCursor = tokensPage.body.meta.nextCursor;
      expect(tokensCursor).toEqual(expect.any(String));
      const res = await t.call('GET', `/api/v2/chatbots?limit=1&cursor=${encodeURIComponent(tokensCursor)}`, owner);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_CURSOR');
    });
  });
});

describe('reach: restriction and other accounts', () => {
  test('a token restricted to chatbot A gets 404 for B everywhere and lists only A', async () => {
    const { accountId, token: owner } = await freshAccount();
    const a = await create(owner, 'A');
    const b = await create(owner, 'B');
    const { token: onlyA } = await t.token({ access: 'full', chatbotIds: [a.id] }, accountId);

    const list = await t.call('GET', '/api/v2/chatbots', onlyA);
    expect(list.body.data.chatbots.map((c: { id: string }) => c.id)).toEqual([a.id]);
    expect((await t.call('GET', `/api/v2/chatbots/${a.id}`, onlyA)).status).toBe(200);

    for (const [method, url, body] of [
      ['GET', `/api/v2/chatbots/${b.id}`, undefined],
      ['GET', `/api/v2/chatbots/${b.id}/settings`, undefined],
      ['PATCH', `/api/v2/chatbots/${b.id}/settings/general`, { title: 'hijacked' }],
      ['PATCH', `/api/v2/chatbots/${b.id}/settings`, { general: { title: 'hijacked' } }],
      ['DELETE', `/api/v2/chatbots/${b.id}?confirm=true`, undefined],
      ['DELETE', `/api/v2/chatbots/${b.id}`, undefined],
      ['DELETE', `/api/v2/chatbots/${b.id}/icons/icon?confirm=true`, undefined],
      ['GET', `/api/v2/chatbots/${b.id}/analytics`, undefined],
    ] as const) {
      const res = await t.call(method, url, onlyA, body);
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.error.code, `${method} ${url}`).toBe('CHATBOT_NOT_FOUND');
    }
    const still = await t.call('GET', `/api/v2/chatbots/${b.id}`, owner);
    expect(still.body.data.chatbot.title).toBe('B');
  });

  test("another account's chatbot is 404 CHATBOT_NOT_FOUND, the same answer as an unknown id, and is untouched", async () => {
    const other = await freshAccount();
    const theirs = await create(other.token, 'theirs');
    for (const [method, url, body] of [
      ['GET', `/api/v2/chatbots/${theirs.id}`, undefined],
      ['PATCH', `/api/v2/chatbots/${theirs.id}/settings/general`, { title: 'mine now' }],
      ['DELETE', `/api/v2/chatbots/${theirs.id}?confirm=true`, undefined],
      ['DELETE', `/api/v2/chatbots/${theirs.id}`, undefined],
      ['GET', `/api/v2/chatbots/${theirs.id}/analytics`, undefined],
    ] as const) {
      const res = await t.call(method, url, token, body);
      const unknown = await t.call(method, url.replace(theirs.id, newId()), token, body);
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.error.code).toBe('CHATBOT_NOT_FOUND');
      expect(res.body.error).toEqual(unknown.body.error);
    }
    const list = await t.call('GET', '/api/v2/chatbots?limit=100', token);
    expect(list.body.data.chatbots.map((c: { id: string }) => c.id)).not.toContain(theirs.id);
    expect((await t.call('GET', `/api/v2/chatbots/${theirs.id}`, other.token)).body.data.chatbot.title).toBe('theirs');
  });

  test("a token cannot be restricted to another account's chatbot", async () => {
    const other = await freshAccount();
    const theirs = await create(other.token, 'theirs');
    const res = await t.call('POST', '/api/v2/tokens', token, {
      access: 'custom',
      scopes: ['chatbots:read'],
      chatbotIds: [theirs.id],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('delete', () => {
  test.each(['', '?confirm=false'])('DELETE%s is 400 CONFIRMATION_REQUIRED and deletes nothing', async (query) => {
    const { accountId, token: tk } = await freshAccount();
    const chatbot = await create(tk, 'keep me');
    const before = await rowCount('chatbots');
    const res = await t.call('DELETE', `/api/v2/chatbots/${chatbot.id}${query}`, tk);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      ok: false,
      error: { code: 'CONFIRMATION_REQUIRED', hint: expect.stringContaining('confirm=true') },
    });
    expect(await rowCount('chatbots')).toBe(before);
    expect(await rowCount('chatbots', accountId)).toBe(1);
    expect((await t.call('GET', `/api/v2/chatbots/${chatbot.id}`, tk)).status).toBe(200);
  });

  test.each(['?confirm=yes', '?confirm', '?confirm=TRUE1'])(
    'DELETE%s (not a boolean) is 400 and deletes nothing',
    async (query) => {
      const { accountId, token: tk } = await freshAccount();
      const chatbot = await create(tk, 'keep me');
      const res = await t.call('DELETE', `/api/v2/chatbots/${chatbot.id}${query}`, tk);
      expect(res.status).toBe(400);
      expect(res.body.ok).toBe(false);
      expect(await rowCount('chatbots', accountId)).toBe(1);
    },
  );

  test('DELETE ?confirm=true removes the chatbot and returns it', async () => {
    const { accountId, token: tk } = await freshAccount();
    const chatbot = await create(tk, 'bye');
    const other = await create(tk, 'stays');
    const res = await t.call('DELETE', `/api/v2/chatbots/${chatbot.id}?confirm=true`, tk);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedChatbot).toMatchObject({ id: chatbot.id, title: 'bye' });
    expect(await rowCount('chatbots', accountId)).toBe(1);
    expect((await t.call('GET', `/api/v2/chatbots/${chatbot.id}`, tk)).status).toBe(404);
    expect((await t.call('GET', `/api/v2/chatbots/${other.id}`, tk)).status).toBe(200);
    const again = await t.call('DELETE', `/api/v2/chatbots/${chatbot.id}?confirm=true`, tk);
    expect(again.status).toBe(404);
  });
});

describe('plan rules', () => {
  test('past maxChatbots: 403 CHATBOT_LIMIT_REACHED with a hint, nothing created; deleting frees the slot', async () => {
    const { accountId, token: tk } = await freshAccount();
    await t.app.services.accounts.setPlan(accountId, { maxChatbots: 1 });
    const first = await create(tk, 'one');
    const res = await t.call('POST', '/api/v2/chatbots', tk, { title: 'two' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ ok: false, error: { code: 'CHATBOT_LIMIT_REACHED', hint: expect.any(String) } });
    expect(res.body.error.hint.length).toBeGreaterThan(10);
    expect(await rowCount('chatbots', accountId)).toBe(1);
    await t.call('DELETE', `/api/v2/chatbots/${first.id}?confirm=true`, tk);
    expect((await t.call('POST', '/api/v2/chatbots', tk, { title: 'two' })).status).toBe(201);
  });

  test('concurrent creates never pass the limit', async () => {
    const { accountId, token: tk } = await freshAccount();
    await t.app.services.accounts.setPlan(accountId, { maxChatbots: 2 });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => t.call('POST', '/api/v2/chatbots', tk, { title: `race ${i}` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    expect(results.filter((r) => r.status === 403).every((r) => r.body.error.code === 'CHATBOT_LIMIT_REACHED')).toBe(
      true,
    );
    expect(await rowCount('chatbots', accountId)).toBe(2);
  });

  test('an inactive account: chatbot routes are 403 ACCOUNT_INACTIVE; /me, /account, /usage, /tokens still work', async () => {
    const { accountId, token: tk } = await freshAccount();
    const chatbot = await create(tk, 'dormant');
    await t.app.services.accounts.setPlan(accountId, { active: false });
    for (const [method, url, body] of [
      ['GET', '/api/v2/chatbots', undefined],
      ['POST', '/api/v2/chatbots', { title: 'new' }],
      ['GET', `/api/v2/chatbots/${chatbot.id}`, undefined],
      ['PATCH', `/api/v2/chatbots/${chatbot.id}/settings/general`, { title: 'x' }],
      ['DELETE', `/api/v2/chatbots/${chatbot.id}?confirm=true`, undefined],
    ] as const) {
      const res = await t.call(method, url, tk, body);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error.code).toBe('ACCOUNT_INACTIVE');
      expect(res.body.error.hint).toEqual(expect.any(String));
    }
    expect(await rowCount('chatbots', accountId)).toBe(1);
    for (const url of [
      '/api/v2/me',
      '/api/v2/account',
      '/api/v2/usage',
      '/api/v2/tokens',
      '/api/v2/billing/invoices',
    ]) {
      const res = await t.call('GET', url, tk);
      expect(res.status, url).toBe(200);
    }
    const me = await t.call('GET', '/api/v2/me', tk);
    expect(me.body.data.account.active).toBe(false);
    await t.app.services.accounts.setPlan(accountId, { active: true });
    expect((await t.call('GET', '/api/v2/chatbots', tk)).status).toBe(200);
  });
});

describe('restricted tokens and body-less requests', () => {
  test('a token restricted to chosen chatbots cannot create chatbots, and nothing is created', async () => {
    const t = await buildTestApp();
    try {
      const { token } = await t.token();
      const a = (await t.call('POST', '/api/v2/chatbots', token, { title: 'A' })).body.data.chatbot.id;
      const restricted = (await t.token({ access: 'full', chatbotIds: [a] })).token;
      const res = await t.call('POST', '/api/v2/chatbots', restricted, { title: 'B' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('TOKEN_SCOPE_NOT_ALLOWED');
      expect(res.body.error.details.restrictedTo).toEqual([a]);
      expect((await t.call('GET', '/api/v2/chatbots', token)).body.data.chatbots).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  test('a DELETE or GET that declares JSON but sends no body is not an INVALID_JSON', async () => {
    const t = await buildTestApp();
    try {
      const { token } = await t.token();
      const id = (await t.call('POST', '/api/v2/chatbots', token, { title: 'A' })).body.data.chatbot.id;
      const json = { 'content-type': 'application/json' };
      expect((await t.call('GET', `/api/v2/chatbots/${id}`, token, undefined, json)).status).toBe(200);
      const del = await t.call('DELETE', `/api/v2/chatbots/${id}?confirm=true`, token, undefined, json);
      expect(del.status).toBe(200);
      expect(del.body.data.deletedChatbot.id).toBe(id);
    } finally {
      await t.close();
    }
  });
});
