/**
 * The legacy v0 API (and the v1 links route) on the real app: each mapped route against its v2
 * twin on the same data (what v0 writes v2 reads and the other way round, in the legacy shapes),
 * the legacy bodies for every kind of error, legacy-key authentication, and the v2-only routes
 * answering 404 under v0.
 */
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let key: string;
let token: string;
let chatbotId: string;
const v0 = (path = '') => `/api/v0/chatbots/${chatbotId}${path}`;
const v2 = (path = '') => `/api/v2/chatbots/${chatbotId}${path}`;

async function newLegacyKey(accountId?: string) {
  const account = await t.app.services.accounts.resolve(accountId);
  const owner = await t.app.services.store.users.owner(account.id);
  return { ...(await t.app.services.tokens.createLegacyKey(owner!)), accountId: account.id };
}
const legacyKey = async (accountId?: string) => (await newLegacyKey(accountId)).token;
const RETURNS =
  '# Returns\n\nYou can return any item within 30 days of delivery. Refunds are paid to the original card within 5 business days.';

/** A chatbot made in v0 with one text of knowledge, indexed: each test has its own, so none depends on another's. */
async function freshChatbot(): Promise<string> {
  const created = await t.call('POST', '/api/v0/chatbots', key, { title: 'Legacy shop', description: 'Made in v0' });
  expect(created.status).toBe(201);
  const id = created.body.data.id as string;
  expect(
    (await t.call('POST', `/api/v0/chatbots/${id}/custom-content`, key, { title: 'Returns', content: RETURNS })).status,
  ).toBe(202);
  await t.app.services.queue.drain(30_000);
  return id;
}

beforeAll(async () => {
  t = await buildTestApp({ env: { QUEUE_POLL_MS: '20' } });
  key = await legacyKey();
  token = (await t.token()).token;
});
beforeEach(async () => {
  chatbotId = await freshChatbot();
});
afterAll(() => t.close());

/** A legacy success body: success, message, data and nothing else. */
function success(res: { status: number; body: any }, status = 200) {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'success']);
  expect(res.body.success).toBe(true);
  expect(res.body.message).toEqual(expect.any(String));
  return res.body.data;
}

/** A legacy error body (spec 2.4) with this status and code. */
function failure(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'message', 'success']);
  expect(res.body).toMatchObject({
    success: false,
    message: expect.any(String),
    data: null,
    error: { code, message: expect.any(String) },
  });
  expect(Object.keys(res.body.error).sort()).toEqual(['code', 'details', 'message']);
  return res.body.error as {
    code: string;
    message: string;
    details: { path: (string | number)[]; message: string }[] | null;
  };
}

describe('legacy key authentication', () => {
  test('a missing, malformed, unknown, revoked key or a v2 token is 401 in the legacy body, with a WWW-Authenticate challenge', async () => {
    const revoked = await newLegacyKey();
    const cases: [Record<string, string>, string][] = [
      [{}, 'AUTHORIZATION_HEADER_REQUIRED'],
      [{ authorization: `Basic ${key}` }, 'AUTHORIZATION_HEADER_NOT_VALID'],
      [{ authorization: `Bearer  ${key}` }, 'AUTHORIZATION_HEADER_NOT_VALID'],
      [{ authorization: 'Bearer not-a-key-of-this-server' }, 'TOKEN_NOT_VALID'],
      [{ authorization: `Bearer ${token}` }, 'TOKEN_NOT_VALID'],
    ];
    for (const [headers, code] of cases) {
      const res = await t.call('GET', '/api/v0/chatbots', null, undefined, headers);
      failure(res, 401, code);
      expect(res.body.error.details).toBeNull();
      expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer realm=/);
    }
    // A revoked key stops at once.
    success(await t.call('GET', '/api/v0/chatbots', revoked.token));
    await t.app.services.tokens.revokeAsOperator(revoked.accountId, revoked.id);
    failure(await t.call('GET', '/api/v0/chatbots', revoked.token), 401, 'TOKEN_NOT_VALID');
    success(await t.call('GET', '/api/v0/chatbots', key));
  });

  test('a legacy key does not work on v2 (v2 answers in its own envelope)', async () => {
    const res = await t.call('GET', '/api/v2/chatbots', key);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ ok: false, error: { code: 'TOKEN_NOT_VALID' } });
  });

  test('an inactive account: 403 ACCOUNT_INACTIVE in the legacy body, as on v2', async () => {
    const { account } = await t.app.services.accounts.create(`inactive-${Date.now()}@example.com`);
    const k = await legacyKey(account.id);
    await t.app.services.accounts.setPlan(account.id, { active: false });
    failure(await t.call('POST', '/api/v0/chatbots', k, { title: 'no' }), 403, 'ACCOUNT_INACTIVE');
    await t.app.services.accounts.setPlan(account.id, { active: true });
    success(await t.call('POST', '/api/v0/chatbots', k, { title: 'yes' }), 201);
  });

  test("a key reaches only its own account's chatbots: another account's chatbot is 404", async () => {
    const other = await t.app.services.accounts.create(`other-${Date.now()}@example.com`);
    const otherKey = await legacyKey(other.account.id);
    expect(success(await t.call('GET', '/api/v0/chatbots', otherKey))).toEqual([]);
    failure(await t.call('GET', v0(), otherKey), 404, 'CHATBOT_NOT_FOUND');
    failure(await t.call('DELETE', v0(), otherKey), 404, 'CHATBOT_NOT_FOUND');
    success(await t.call('GET', v0(), key));
  });

  test("a member's key acts with the member's role: what the role cannot do on v2 is 403 on v0 too, and changes nothing", async () => {
    const account = await t.app.services.accounts.resolve();
    const member = {
      id: `member-${Date.now()}`,
      accountId: account.id,
      email: `member-${Date.now()}@example.com`,
      name: null,
      role: 'member' as const,
      createdAt: new Date().toISOString(),
    };
    await t.app.services.store.users.insert(member);
    await t.app.services.store.resources.members.insert({
      id: `m-${member.id}`,
      chatbotId,
      userId: member.id,
      role: 'member',
      invitedById: null,
      createdAt: member.createdAt,
    });
    const memberKey = (await t.app.services.tokens.createLegacyKey(member)).token;
    const before = success(await t.call('GET', v0(), key));
    const chatbotsBefore = success(await t.call('GET', '/api/v0/chatbots', key)).length;
    // What a member may do: read, and talk in threads.
    success(await t.call('GET', v0(), memberKey));
    success(await t.call('GET', v0('/threads'), memberKey));
    success(await t.call('POST', v0('/message'), memberKey, { message: 'Hello from a member' }), 201);
    const refused: [string, string, unknown?][] = [
      ['DELETE', v0()],
      ['POST', '/api/v0/chatbots', { title: 'Made by a member' }],
      ['PATCH', v0('/settings/general'), { historyCount: 7 }],
      ['PATCH', v0('/settings/advanced'), { temperature: 1.5 }],
      ['PATCH', v0('/appearance'), { brandColor: '#123456' }],
      ['POST', v0('/quick-prompts'), { title: 'Member prompt', description: 'x' }],
      ['POST', v0('/settings/personas'), { title: 'Member persona', description: 'x', instructions: 'x' }],
    ];
    for (const [method, url, body] of refused) {
      const error = failure(await t.call(method as 'POST', url, memberKey, body), 403, 'TOKEN_SCOPE_NOT_ALLOWED');
      expect(error.message, `${method} ${url}`).toMatch(/role/);
    }
    expect(success(await t.call('GET', v0(), key))).toEqual(before);
    expect(success(await t.call('GET', '/api/v0/chatbots', key))).toHaveLength(chatbotsBefore);
  });
});

describe('chatbots', () => {
  test('a chatbot made in v0 is the same chatbot in v2, in the v0 Chatbot shape', async () => {
    const legacy = success(await t.call('GET', v0(), key));
    const twin = (await t.call('GET', v2(), token)).body.data.chatbot;
    expect(legacy).toMatchObject({
      id: twin.id,
      title: 'Legacy shop',
      description: 'Made in v0',
      createdById: twin.createdById,
      createdByEmail: twin.createdByEmail,
      customContent: RETURNS,
    });
    expect(Object.keys(legacy).sort()).toEqual([
      'createdByEmail',
      'createdById',
      'customContent',
      'description',
      'id',
      'nextSuggestions',
      'prompts',
      'settings',
      'suggestions',
      'title',
    ]);
    // v0 settings: the spec 2.4 fields with v2's values; v2-only fields stay out.
    for (const [k, v] of Object.entries(legacy.settings)) expect(twin.settings[k], k).toEqual(v);
    expect(legacy.settings).not.toHaveProperty('allowedDomains');
    expect(legacy.settings).not.toHaveProperty('leadFields');
    expect(legacy.settings).toHaveProperty('collectUserData');
    expect(Object.keys(legacy.settings)).toHaveLength(49);
  });

  test('GET /chatbots lists every chatbot, v2-made too, with no pagination', async () => {
    const madeInV2 = [];
    for (let i = 0; i < 3; i++)
      madeInV2.push((await t.call('POST', '/api/v2/chatbots', token, { title: `v2 made ${i}` })).body.data.chatbot.id);
    const list = success(await t.call('GET', '/api/v0/chatbots', key));
    expect(Array.isArray(list)).toBe(true);
    const v2ids = [];
    let cursor = '';
    do {
      const page = (await t.call('GET', `/api/v2/chatbots?limit=1${cursor && `&cursor=${cursor}`}`, token)).body;
      v2ids.push(...page.data.chatbots.map((c: { id: string }) => c.id));
      cursor = page.meta.nextCursor ?? '';
    } while (cursor);
    expect(list.map((c: { id: string }) => c.id)).toEqual(v2ids);
    expect(list.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining([...madeInV2, chatbotId]));
    // The same list with a query v0 never had: v0 takes none.
    for (const id of madeInV2) await t.call('DELETE', `/api/v2/chatbots/${id}?confirm=true`, token);
  });

  test('DELETE needs no confirmation in v0: the chatbot is gone in v2 too', async () => {
    const id = (await t.call('POST', '/api/v2/chatbots', token, { title: 'short-lived' })).body.data.chatbot.id;
    const deleted = success(await t.call('DELETE', `/api/v0/chatbots/${id}`, key));
    expect(deleted).toMatchObject({ id, title: 'short-lived' });
    expect((await t.call('GET', `/api/v2/chatbots/${id}`, token)).status).toBe(404);
    failure(await t.call('DELETE', `/api/v0/chatbots/${id}`, key), 404, 'CHATBOT_NOT_FOUND');
  });

  test('validation errors: a legacy body whose details carry path arrays, nested paths with more than one element; nothing changes', async () => {
    const before = (await t.call('GET', v2(), token)).body.data.chatbot;
    const bad = failure(await t.call('POST', '/api/v0/chatbots', key, { title: 7, zz: 1 }), 400, 'VALIDATION_FAILED');
    expect(bad.details).toEqual(
      expect.arrayContaining([
        { path: ['title'], message: expect.any(String) },
        { path: ['zz'], message: expect.any(String) },
      ]),
    );
    const nested = failure(
      await t.call('PATCH', v0('/settings/localization'), key, { localization: { chatHome: { home: 5 } } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(nested.details).toEqual([{ path: ['localization', 'chatHome', 'home'], message: expect.any(String) }]);
    failure(
      await t.call('POST', '/api/v0/chatbots', key, '{"title":', { 'content-type': 'application/json' }),
      400,
      'INVALID_JSON',
    );
    expect((await t.call('GET', v2(), token)).body.data.chatbot).toEqual(before);
  });

  test('the plan limit: 403 CHATBOT_LIMIT_REACHED in the legacy body, nothing created', async () => {
    const { account } = await t.app.services.accounts.create(`limited-${Date.now()}@example.com`);
    await t.app.services.accounts.setPlan(account.id, { maxChatbots: 1 });
    const k = await legacyKey(account.id);
    success(await t.call('POST', '/api/v0/chatbots', k, { title: 'one' }), 201);
    const err = failure(await t.call('POST', '/api/v0/chatbots', k, { title: 'two' }), 403, 'CHATBOT_LIMIT_REACHED');
    expect(err.details).toBeNull();
    expect(success(await t.call('GET', '/api/v0/chatbots', k))).toHaveLength(1);
  });
});

describe('settings', () => {
  test('appearance and settings/general, chat-mode, localization, user-data write the v2 sections; v0 answers the Chatbot', async () => {
    const changes: [string, Record<string, unknown>][] = [
      ['/appearance', { brandColor: '#112233', welcomeMessage: 'Hallo!', iconPosition: 'BOTTOM_LEFT' }],
      ['/settings/general', { title: 'Renamed in v0', historyCount: 7, topK: 3 }],
      ['/settings/chat-mode', { mode: 'AI_ONLY', smartFollowUpPromptsCount: 5 }],
      ['/settings/localization', { localization: { locale: 'de', chatHome: { home: 'Start' } } }],
      [
        '/settings/user-data',
        { collectUserDetails: 'BEFORE_CONVERSATION', collectUserData: { name: true, phone: true } },
      ],
    ];
    for (const [path, body] of changes) {
      const chatbot = success(await t.call('PATCH', v0(path), key, body));
      const twin = (await t.call('GET', v2(), token)).body.data.chatbot;
      for (const [k, v] of Object.entries(body)) {
        if (k === 'title') {
          expect(chatbot.title).toBe(v);
          expect(twin.title).toBe(v);
        } else {
          expect(twin.settings[k], `${path} ${k}`).toMatchObject(v as object);
          expect(chatbot.settings[k], `${path} ${k}`).toEqual(twin.settings[k]);
        }
      }
    }
    // Ranges are v2's: one rule, one place.
    const out = failure(
      await t.call('PATCH', v0('/settings/chat-mode'), key, { smartFollowUpPromptsCount: 6 }),
      400,
      'VALIDATION_FAILED',
    );
    expect(out.details![0].path).toEqual(['smartFollowUpPromptsCount']);
  });

  test('settings/advanced: creativity and temperature land in v2 general, the webhook pair in v2 webhooks (with its rules)', async () => {
    const chatbot = success(
      await t.call('PATCH', v0('/settings/advanced'), key, { creativity: 'CUSTOM', temperature: 0.7 }),
    );
    expect(chatbot.settings).toMatchObject({ creativity: 'CUSTOM', temperature: 0.7 });
    expect((await t.call('GET', v2(), token)).body.data.chatbot.settings).toMatchObject({
      creativity: 'CUSTOM',
      temperature: 0.7,
    });
    // Not HTTPS: refused by the v2 webhook rule, and the creativity in the same body is not applied either.
    const bad = failure(
      await t.call('PATCH', v0('/settings/advanced'), key, {
        webhookUrl: 'http://example.com/hook',
        creativity: 'STRICT',
      }),
      400,
      'VALIDATION_FAILED',
    );
    expect(bad.details![0].path).toEqual(['webhookUrl']);
    expect((await t.call('GET', v2(), token)).body.data.chatbot.settings.creativity).toBe('CUSTOM');
    failure(await t.call('PATCH', v0('/settings/advanced'), key, { mode: 'AI_ONLY' }), 400, 'VALIDATION_FAILED');
    // Without the plan's webhook add-on: 403 WEBHOOKS_NOT_AVAILABLE, as in v2.
    const { account } = await t.app.services.accounts.create(`nohooks-${Date.now()}@example.com`);
    await t.app.services.accounts.setPlan(account.id, { webhooks: false });
    const k = await legacyKey(account.id);
    const id = success(await t.call('POST', '/api/v0/chatbots', k, { title: 'no hooks' }), 201).id;
    failure(
      await t.call('PATCH', `/api/v0/chatbots/${id}/settings/advanced`, k, { webhookUrl: 'https://example.com/hook' }),
      403,
      'WEBHOOKS_NOT_AVAILABLE',
    );
  });
});

describe('quick prompts, follow-up prompts, prompts and personas', () => {
  test('quick prompts are v2 starters: create, list, get, change, delete without confirmation, in the QuickPrompt shape', async () => {
    const made = success(
      await t.call('POST', v0('/quick-prompts'), key, { title: 'Returns?', description: 'How do I return an item?' }),
      201,
    );
    expect(made).toEqual({
      id: expect.any(String),
      title: 'Returns?',
      link: null,
      description: 'How do I return an item?',
    });
    const twin = (await t.call('GET', v2(`/starters/${made.id}`), token)).body.data.starter;
    expect(twin).toMatchObject(made);
    const fromV2 = (
      await t.call('POST', v2('/starters'), token, {
        title: 'Shipping',
        description: 'Is shipping free?',
        link: 'https://example.com/ship',
      })
    ).body.data.starter;
    expect(success(await t.call('GET', v0('/quick-prompts'), key))).toEqual([
      made,
      { id: fromV2.id, title: 'Shipping', link: 'https://example.com/ship', description: 'Is shipping free?' },
    ]);
    expect(success(await t.call('GET', v0(), key)).suggestions).toHaveLength(2);
    expect(
      success(await t.call('PATCH', v0(`/quick-prompts/${made.id}`), key, { title: 'Return an item' })),
    ).toMatchObject({ title: 'Return an item' });
    expect(success(await t.call('GET', v0(`/quick-prompts/${made.id}`), key)).title).toBe('Return an item');
    expect(success(await t.call('DELETE', v0(`/quick-prompts/${made.id}`), key))).toMatchObject({ id: made.id });
    expect((await t.call('GET', v2(`/starters/${made.id}`), token)).status).toBe(404);
    failure(await t.call('GET', v0(`/quick-prompts/${made.id}`), key), 404, 'NOT_FOUND');
    // v0 has only quick-prompts: the v2-ish name is an unknown path.
    failure(await t.call('GET', v0('/conversation-starters'), key), 404, 'NOT_FOUND');
  });

  test('follow-up prompts are v2 followups, with isEscalationPrompt and its one-per-chatbot rule', async () => {
    const a = success(
      await t.call('POST', v0('/follow-up-prompts'), key, {
        title: 'Talk to a person',
        description: 'I want a person',
        isEscalationPrompt: true,
      }),
      201,
    );
    expect(a).toEqual({
      id: expect.any(String),
      title: 'Talk to a person',
      link: null,
      description: 'I want a person',
      isEscalationPrompt: true,
    });
    const b = success(
      await t.call('POST', v0('/follow-up-prompts'), key, {
        title: 'Agent',
        description: 'Agent please',
        isEscalationPrompt: true,
      }),
      201,
    );
    const list = success(await t.call('GET', v0('/follow-up-prompts'), key));
    expect(list.map((f: { id: string; isEscalationPrompt: boolean }) => [f.id, f.isEscalationPrompt])).toEqual([
      [a.id, false],
      [b.id, true],
    ]);
    const twins = (await t.call('GET', v2('/followups'), token)).body.data.followups;
    expect(twins.map((f: { id: string; isEscalationPrompt: boolean }) => [f.id, f.isEscalationPrompt])).toEqual([
      [a.id, false],
      [b.id, true],
    ]);
    expect(success(await t.call('GET', v0(), key)).nextSuggestions).toEqual(list);
    success(await t.call('DELETE', v0(`/follow-up-prompts/${a.id}`), key));
    success(await t.call('DELETE', v0(`/follow-up-prompts/${b.id}`), key));
    expect((await t.call('GET', v2('/followups'), token)).body.data.followups).toEqual([]);
  });

  test('settings/prompts are v2 instructions; /assign is /use and sets settings.promptId', async () => {
    const p = success(
      await t.call('POST', v0('/settings/prompts'), key, {
        title: 'Formal',
        instructions: 'Answer formally.',
        temperature: 0.2,
      }),
      201,
    );
    expect(p).toEqual({
      id: expect.any(String),
      title: 'Formal',
      description: '',
      instructions: 'Answer formally.',
      temperature: 0.2,
    });
    failure(
      await t.call('POST', v0('/settings/prompts'), key, { title: 'Hot', instructions: 'x', temperature: 1.5 }),
      400,
      'VALIDATION_FAILED',
    );
    const assigned = success(await t.call('POST', v0(`/settings/prompts/${p.id}/assign`), key));
    expect(assigned).toEqual(p);
    expect((await t.call('GET', v2(`/instructions/${p.id}`), token)).body.data.instruction.active).toBe(true);
    const chatbot = success(await t.call('GET', v0(), key));
    expect(chatbot.settings.promptId).toBe(p.id);
    expect(chatbot.prompts).toEqual([p]);
    success(await t.call('DELETE', v0(`/settings/prompts/${p.id}`), key));
    expect(success(await t.call('GET', v0(), key)).settings.promptId).toBeNull();
  });

  test('settings/personas are v2 personas; /assign is /use', async () => {
    const p = success(
      await t.call('POST', v0('/settings/personas'), key, {
        title: 'Pirate',
        description: 'Arr',
        instructions: 'Speak like a pirate.',
      }),
      201,
    );
    expect(p).toEqual({
      id: expect.any(String),
      title: 'Pirate',
      description: 'Arr',
      instructions: 'Speak like a pirate.',
    });
    success(await t.call('POST', v0(`/settings/personas/${p.id}/assign`), key));
    expect((await t.call('GET', v2(), token)).body.data.chatbot.settings.personaId).toBe(p.id);
    expect(success(await t.call('PATCH', v0(`/settings/personas/${p.id}`), key, { title: 'Captain' })).title).toBe(
      'Captain',
    );
    expect(success(await t.call('GET', v0('/settings/personas'), key))).toEqual([{ ...p, title: 'Captain' }]);
    failure(await t.call('POST', v0('/settings/personas/nope/assign'), key), 404, 'NOT_FOUND');
    success(await t.call('DELETE', v0(`/settings/personas/${p.id}`), key));
    expect((await t.call('GET', v2(`/personas/${p.id}`), token)).status).toBe(404);
  });
});

describe('every resource route against its v2 twin', () => {
  const twins = [
    {
      v0: '/quick-prompts',
      v2: '/starters',
      item: 'starter',
      body: { title: 'T', description: 'D', link: 'https://example.com/t' },
      patch: { description: 'D2' },
      keys: ['id', 'title', 'link', 'description'],
    },
    {
      v0: '/follow-up-prompts',
      v2: '/followups',
      item: 'followup',
      body: { title: 'T', description: 'D' },
      patch: { isEscalationPrompt: true },
      keys: ['id', 'title', 'link', 'description', 'isEscalationPrompt'],
    },
    {
      v0: '/settings/prompts',
      v2: '/instructions',
      item: 'instruction',
      body: { title: 'T', instructions: 'I' },
      patch: { temperature: 0.4 },
      keys: ['id', 'title', 'description', 'instructions', 'temperature'],
    },
    {
      v0: '/settings/personas',
      v2: '/personas',
      item: 'persona',
      body: { title: 'T', instructions: 'I' },
      patch: { description: 'D2' },
      keys: ['id', 'title', 'description', 'instructions'],
    },
  ];
  const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));

  test.each(twins)(
    '$v0: made in v2, read, changed and deleted in v0; the same data in the v0 shape',
    async ({ v0: path0, v2: path2, item, body, patch, keys }) => {
      const made = (await t.call('POST', v2(path2), token, body)).body.data[item];
      const shaped = pick(made, keys);
      expect(success(await t.call('GET', v0(`${path0}/${made.id}`), key))).toEqual(shaped);
      expect(success(await t.call('GET', v0(path0), key))).toEqual(
        (await t.call('GET', v2(path2), token)).body.data[`${item}s`].map((x: Record<string, unknown>) =>
          pick(x, keys),
        ),
      );
      const changed = success(await t.call('PATCH', v0(`${path0}/${made.id}`), key, patch));
      const twin = (await t.call('GET', v2(`${path2}/${made.id}`), token)).body.data[item];
      expect(twin).toMatchObject(patch);
      expect(changed).toEqual(pick(twin, keys));
      // v2's validation, in the legacy body.
      failure(await t.call('PATCH', v0(`${path0}/${made.id}`), key, {}), 400, 'VALIDATION_FAILED');
      failure(await t.call('PATCH', v0(`${path0}/${made.id}`), key, { title: '' }), 400, 'VALIDATION_FAILED');
      expect(success(await t.call('DELETE', v0(`${path0}/${made.id}`), key))).toEqual(pick(twin, keys));
      expect((await t.call('GET', v2(`${path2}/${made.id}`), token)).status).toBe(404);
      failure(await t.call('DELETE', v0(`${path0}/${made.id}`), key), 404, 'NOT_FOUND');
    },
  );
});

describe('threads and messages', () => {
  test('POST /message starts a thread (or continues `threadId`); the thread is the v2 conversation with every message', async () => {
    const first = success(await t.call('POST', v0('/message'), key, { message: 'How long do refunds take?' }), 201);
    expect(first.answer.text).toMatch(/5 business days/);
    const { threadId } = first;
    const second = success(
      await t.call('POST', v0('/message'), key, { message: 'Can I return shoes?', threadId }),
      201,
    );
    expect(second.threadId).toBe(threadId);
    const thread = success(await t.call('GET', v0(`/threads/${threadId}`), key));
    const conversation = (await t.call('GET', v2(`/conversations/${threadId}`), token)).body.data.conversation;
    const messages = (await t.call('GET', v2(`/conversations/${threadId}/messages`), token)).body.data.messages;
    expect(thread.messages).toEqual(messages);
    expect(thread.messages.map((m: { author: string }) => m.author)).toEqual(['visitor', 'ai', 'visitor', 'ai']);
    expect(Object.keys(thread).sort()).toEqual([
      'chatUser',
      'chatUserId',
      'chatbotId',
      'endedAt',
      'escalated',
      'messages',
      'mode',
      'startedAt',
      'threadId',
      'totalMessagesRead',
      'updatedAt',
      'webhookToken',
      'webhookUrl',
    ]);
    for (const k of Object.keys(thread).filter((k) => k !== 'messages')) expect(thread[k], k).toEqual(conversation[k]);
  });

  test('GET /threads lists every thread without messages and without pagination, as v2 pages them', async () => {
    const created = success(
      await t.call('POST', v0('/threads'), key, { visitor: { name: 'Ada', email: 'ada@example.com' } }),
      201,
    );
    expect(created).toMatchObject({
      mode: 'AI',
      escalated: false,
      messages: [],
      chatUser: { name: 'Ada', email: 'ada@example.com' },
    });
    success(await t.call('POST', v0('/message'), key, { message: 'How long do refunds take?' }), 201);
    const list = success(await t.call('GET', v0('/threads'), key));
    const v2ids = [];
    let cursor = '';
    do {
      const page = (await t.call('GET', v2(`/conversations?limit=1${cursor && `&cursor=${cursor}`}`), token)).body;
      v2ids.push(...page.data.conversations.map((c: { threadId: string }) => c.threadId));
      cursor = page.meta.nextCursor ?? '';
    } while (cursor);
    expect(list.map((c: { threadId: string }) => c.threadId)).toEqual(v2ids);
    expect(list.length).toBeGreaterThan(1);
    expect(list[0]).not.toHaveProperty('messages');
  });

  test('PATCH /messages/{messageId} rates an answer of the thread it belongs to; a message of another chatbot is 404', async () => {
    const sent = success(await t.call('POST', v0('/message'), key, { message: 'How long do refunds take?' }), 201);
    const rated = success(
      await t.call('PATCH', v0(`/messages/${sent.answer.id}`), key, { feedback: 'down', feedbackComment: 'too short' }),
    );
    expect(rated).toMatchObject({ id: sent.answer.id, feedback: 'down', feedbackComment: 'too short' });
    const twin = (await t.call('GET', v2(`/conversations/${sent.threadId}/messages`), token)).body.data.messages.find(
      (m: { id: string }) => m.id === sent.answer.id,
    );
    expect(twin).toEqual(rated);
    // The rule is v2's: only AI answers take feedback.
    const err = failure(
      await t.call('PATCH', v0(`/messages/${sent.message.id}`), key, { feedback: 'up' }),
      400,
      'VALIDATION_FAILED',
    );
    expect(err.details![0].path).toEqual(['feedback']);
    const other = success(await t.call('POST', '/api/v0/chatbots', key, { title: 'other bot' }), 201);
    failure(
      await t.call('PATCH', `/api/v0/chatbots/${other.id}/messages/${sent.answer.id}`, key, { feedback: 'up' }),
      404,
      'NOT_FOUND',
    );
    await t.call('DELETE', `/api/v0/chatbots/${other.id}`, key);
  });

  test('escalate, resolve by PATCH, then a message or an escalation is 409 CONVERSATION_CLOSED in the legacy body; a take-over blocks escalation with 403 HUMAN_TAKEOVER', async () => {
    const { threadId } = success(await t.call('POST', v0('/message'), key, { message: 'Hello' }), 201);
    const escalated = success(await t.call('POST', v0(`/threads/${threadId}/escalate`), key));
    expect(escalated).toMatchObject({ threadId, escalated: true });
    expect((await t.call('GET', v2(`/conversations/${threadId}`), token)).body.data.conversation.escalated).toBe(true);
    const resolved = success(await t.call('PATCH', v0(`/threads/${threadId}`), key, { status: 'RESOLVED' }));
    expect(resolved.endedAt).toEqual(expect.any(String));
    const before = (await t.call('GET', v2(`/conversations/${threadId}/messages`), token)).body.data.messages.length;
    failure(
      await t.call('POST', v0('/message'), key, { message: 'Still there?', threadId }),
      409,
      'CONVERSATION_CLOSED',
    );
    failure(await t.call('POST', v0(`/threads/${threadId}/escalate`), key), 409, 'CONVERSATION_CLOSED');
    expect((await t.call('GET', v2(`/conversations/${threadId}/messages`), token)).body.data.messages).toHaveLength(
      before,
    );

    const other = success(await t.call('POST', v0('/message'), key, { message: 'Hi again' }), 201);
    expect((await t.call('POST', v2(`/conversations/${other.threadId}/take-over`), token)).status).toBe(200);
    failure(await t.call('POST', v0(`/threads/${other.threadId}/escalate`), key), 403, 'HUMAN_TAKEOVER');
    failure(await t.call('GET', v0('/threads/no-such-thread'), key), 404, 'NOT_FOUND');
  });

  test('an Idempotency-Key retry of POST /message stores nothing new and says so', async () => {
    const headers = { 'idempotency-key': `legacy-${Date.now()}` };
    const a = await t.call('POST', v0('/message'), key, { message: 'Refunds?' }, headers);
    const b = await t.call('POST', v0('/message'), key, { message: 'Refunds?' }, headers);
    expect(success(b, 201)).toEqual(success(a, 201));
    expect(b.headers['idempotent-replayed']).toBe('true');
  });
});

describe('knowledge: links, custom content and the v1 links route', () => {
  const sources = async () =>
    (await t.call('GET', v2('/knowledge/sources'), token)).body.data.sources as {
      id: string;
      type: string;
      config: Record<string, unknown>;
    }[];

  test("custom content is v2 knowledge text: the answer engine uses it (each test's chatbot answers from it) and it is a text source", async () => {
    const started = success(
      await t.call('POST', v0('/custom-content'), key, { content: 'Opening hours: 9 to 5.' }),
      202,
    );
    expect(started.source.type).toBe('text');
    expect((await sources()).map((s) => s.type)).toContain('text');
    failure(await t.call('POST', v0('/custom-content'), key, { title: 'empty' }), 400, 'VALIDATION_FAILED');
  });

  test("the Chatbot's customContent is the text v0 added, while its v2 document lives; deleting it in v2 removes it", () =>
    customContentFollowsItsDocument(t, key, token));

  test('v0 links and v1 URLS_LIST are v2 knowledge links; WEBSITE, SITEMAP, YOUTUBE are v2 website, sitemap, youtube', async () => {
    const links = success(await t.call('POST', v0('/links'), key, { urls: ['https://docs.example.com/a'] }), 202);
    expect(links.source.type).toBe('links');
    const list = success(
      await t.call('POST', `/api/v1/chatbots/${chatbotId}/links`, key, {
        sourceType: 'URLS_LIST',
        urls: ['https://docs.example.com/b'],
      }),
      202,
    );
    expect(list.source.id).toBe(links.source.id);
    const site = success(
      await t.call('POST', `/api/v1/chatbots/${chatbotId}/links`, key, {
        sourceType: 'WEBSITE',
        url: 'https://www.example.org/',
        maxPages: 5,
        pathPrefix: '/help',
      }),
      202,
    );
    expect(site.source).toMatchObject({ type: 'website' });
    const map = success(
      await t.call('POST', `/api/v1/chatbots/${chatbotId}/links`, key, {
        sourceType: 'SITEMAP',
        url: 'https://www.example.net/sitemap.xml',
      }),
      202,
    );
    expect(map.source.type).toBe('sitemap');
    const yt = success(
      await t.call('POST', `/api/v1/chatbots/${chatbotId}/links`, key, {
        sourceType: 'YOUTUBE',
        urls: ['https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
      }),
      202,
    );
    expect(yt.source.type).toBe('youtube');
    const twins = await sources();
    for (const s of [links, site, map, yt]) expect(twins.map((x) => x.id)).toContain(s.source.id);
    expect(twins.find((x) => x.id === site.source.id)!.config).toMatchObject({ maxPages: 5, pathPrefix: '/help' });
  });

  test('v1 refuses a source type without its field, or with a field it does not read; the v2 rules refuse bad URLs', async () => {
    const before = (await sources()).length;
    const missing = failure(
      await t.call('POST', `/api/v1/chatbots/${chatbotId}/links`, key, {
        sourceType: 'WEBSITE',
        urls: ['https://a.example/'],
      }),
      400,
      'VALIDATION_FAILED',
    );
    expect(missing.details).toEqual(
      expect.arrayContaining([
        { path: ['url'], message: expect.stringMatching(/required/) },
        { path: ['urls'], message: expect.any(String) },
      ]),
    );
    failure(
      await t.call('POST', `/api/v1/chatbots/${chatbotId}/links`, key, {
        sourceType: 'URLS_LIST',
        urls: ['https://a.example/'],
        maxDepth: 2,
      }),
      400,
      'VALIDATION_FAILED',
    );
    failure(
      await t.call('POST', `/api/v1/chatbots/${chatbotId}/links`, key, {
        sourceType: 'FTP',
        urls: ['https://a.example/'],
      }),
      400,
      'VALIDATION_FAILED',
    );
    failure(
      await t.call('POST', `/api/v1/chatbots/${chatbotId}/links`, key, {
        sourceType: 'YOUTUBE',
        urls: ['https://example.com/not-a-video'],
      }),
      400,
      'VALIDATION_FAILED',
    );
    failure(await t.call('POST', v0('/links'), key, { urls: [] }), 400, 'VALIDATION_FAILED');
    expect((await sources()).length).toBe(before);
    // v1 has only the links route.
    failure(await t.call('GET', '/api/v1/chatbots', key), 404, 'NOT_FOUND');
  });

  test('the page quota: 429 CHATBOT_PAGES_LIMIT_REACHED in the legacy body', async () => {
    const { account } = await t.app.services.accounts.create(`pages-${Date.now()}@example.com`);
    await t.app.services.accounts.setPlan(account.id, { maxPages: 0 });
    const k = await legacyKey(account.id);
    const id = success(await t.call('POST', '/api/v0/chatbots', k, { title: 'full' }), 201).id;
    failure(
      await t.call('POST', `/api/v0/chatbots/${id}/links`, k, { urls: ['https://a.example/'] }),
      429,
      'CHATBOT_PAGES_LIMIT_REACHED',
    );
  });
});

describe('icons', () => {
  function png(): Buffer {
    const crcTable = Array.from({ length: 256 }, (_, n) => {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      return c >>> 0;
    });
    const crc = (buf: Buffer) => {
      let c = 0xffffffff;
      for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
      return (c ^ 0xffffffff) >>> 0;
    };
    const chunk = (type: string, data: Buffer) => {
      const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
      const out = Buffer.alloc(12 + data.length);
      out.writeUInt32BE(data.length, 0);
      body.copy(out, 4);
      out.writeUInt32BE(crc(body), 8 + data.length);
      return out;
    };
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(1, 0);
    ihdr.writeUInt32BE(1, 4);
    ihdr[8] = 8;
    ihdr[9] = 6;
    return Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(Buffer.from([0, 1, 2, 3, 255]))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
  }

  test('upload is the v2 upload (the setting holds the URL); DELETE ?type= removes it without confirmation', async () => {
    const boundary = 'legacyboundary';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nbubble\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      png(),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const icon = success(
      await t.call('POST', v0('/icons'), key, body, { 'content-type': `multipart/form-data; boundary=${boundary}` }),
      201,
    );
    expect(icon).toMatchObject({
      type: 'bubble',
      setting: 'bubbleIconSrcId',
      url: expect.stringMatching(/^http:\/\/parley\.test\/icons\//),
    });
    expect((await t.call('GET', v2(), token)).body.data.chatbot.settings.bubbleIconSrcId).toBe(icon.url);
    expect(success(await t.call('GET', v0(), key)).settings.bubbleIconSrcId).toBe(icon.url);
    expect(
      failure(await t.call('POST', v0('/icons'), key, { type: 'bubble' }), 400, 'VALIDATION_FAILED').details,
    ).toEqual([{ path: ['file'], message: expect.any(String) }]);
    failure(await t.call('DELETE', v0('/icons?type=constructor'), key), 400, 'VALIDATION_FAILED');
    expect(success(await t.call('DELETE', v0('/icons?type=bubble'), key))).toMatchObject({
      type: 'bubble',
      ids: [icon.id],
    });
    expect((await t.call('GET', v2(), token)).body.data.chatbot.settings.bubbleIconSrcId).toBeNull();
    failure(await t.call('DELETE', v0('/icons?type=bubble'), key), 404, 'NOT_FOUND');
  });
});

describe('v2-only routes and unknown paths', () => {
  test('every route new in v2 answers 404 NOT_FOUND under v0, in the legacy body', async () => {
    const threadId = success(await t.call('POST', v0('/threads'), key, {}), 201).threadId;
    const paths: [string, string][] = [
      ['GET', v0('/custom-responses')],
      ['POST', v0('/custom-responses')],
      ['GET', v0('/documents')],
      ['POST', v0('/documents/delete')],
      ['GET', v0('/ingest-jobs')],
      ['GET', v0('/knowledge/sources')],
      ['POST', v0('/knowledge/files')],
      ['POST', v0('/knowledge/links')],
      ['GET', v0('/leads')],
      ['GET', v0('/members')],
      ['GET', v0('/tags')],
      ['GET', v0('/analytics')],
      ['POST', v0(`/threads/${threadId}/take-over`)],
      ['POST', v0(`/threads/${threadId}/switch-to-ai`)],
      ['POST', v0(`/threads/${threadId}/replies`)],
      ['GET', v0(`/threads/${threadId}/messages`)],
      ['GET', '/api/v0/account'],
      ['GET', '/api/v0/usage'],
      ['GET', '/api/v0/billing/invoices'],
      ['GET', '/api/v0/tokens'],
      ['GET', '/api/v0/me'],
      ['GET', '/api/v0/health'],
      ['GET', v0('/conversation-starters')],
      ['GET', v0('/starters')],
      ['GET', v0('/instructions')],
      ['GET', v0('/conversations')],
      ['GET', '/api/v0/w/brands/'],
      ['GET', '/api/v0/w/brands/x'],
    ];
    for (const [method, url] of paths) {
      const res = await t.call(method as 'GET', url, key, method === 'POST' ? {} : undefined);
      failure(res, 404, 'NOT_FOUND');
      expect(res.body.error.details, url).toBeNull();
    }
  });

  test('a known v0 path with another method is 405 in the legacy body', async () => {
    const res = await t.call('PUT', v0('/quick-prompts'), key, {});
    failure(res, 405, 'METHOD_NOT_ALLOWED');
    expect(String(res.headers.allow)).toContain('GET');
  });
});

/** v0 custom content read back in the Chatbot, against the v2 documents it became (run on each dialect). */
async function customContentFollowsItsDocument(tt: TestApp, k: string, tok: string) {
  const bot = success(await tt.call('POST', '/api/v0/chatbots', k, { title: 'Custom content bot' }), 201).id as string;
  const other = success(await tt.call('POST', '/api/v0/chatbots', k, { title: 'Untouched bot' }), 201).id as string;
  const chatbot = async (id = bot) => success(await tt.call('GET', `/api/v0/chatbots/${id}`, k));
  expect((await chatbot()).customContent).toBeNull();
  success(
    await tt.call('POST', `/api/v0/chatbots/${bot}/custom-content`, k, { content: 'Shipping takes 2 days.' }),
    202,
  );
  // Readable at once, while its ingest job is still queued.
  expect((await chatbot()).customContent).toBe('Shipping takes 2 days.');
  success(
    await tt.call('POST', `/api/v0/chatbots/${bot}/custom-content`, k, { title: 'Hours', content: 'Open 9 to 5.' }),
    202,
  );
  // v2 knowledge text is not v0 custom content.
  expect(
    (
      await tt.call('POST', `/api/v2/chatbots/${bot}/knowledge/text`, tok, {
        title: 'v2 only',
        text: 'Not custom content.',
      })
    ).status,
  ).toBe(202);
  await tt.app.services.queue.drain(30_000);
  expect((await chatbot()).customContent).toBe('Shipping takes 2 days.\n\nOpen 9 to 5.');
  expect((await chatbot(other)).customContent).toBeNull();
  expect(
    (await tt.call('GET', '/api/v0/chatbots', k)).body.data.find((c: { id: string }) => c.id === bot).customContent,
  ).toBe('Shipping takes 2 days.\n\nOpen 9 to 5.');

  // The same knowledge item v2 sees: deleting its document there removes its text here.
  const docs = (await tt.call('GET', `/api/v2/chatbots/${bot}/documents`, tok)).body.data.documents as {
    id: string;
    title: string;
    kind: string;
  }[];
  expect(docs.map((d) => d.title).sort()).toEqual(['Custom content', 'Hours', 'v2 only']);
  const hours = docs.find((d) => d.title === 'Hours')!;
  expect(
    (await tt.call('POST', `/api/v2/chatbots/${bot}/documents/delete`, tok, { documentIds: [hours.id], confirm: true }))
      .status,
  ).toBe(200);
  expect((await chatbot()).customContent).toBe('Shipping takes 2 days.');
  // Deleting the whole text source takes the rest.
  const text = (await tt.call('GET', `/api/v2/chatbots/${bot}/knowledge/sources`, tok)).body.data.sources.find(
    (s: { type: string }) => s.type === 'text',
  );
  expect(
    (await tt.call('DELETE', `/api/v2/chatbots/${bot}/knowledge/sources/${text.id}?confirm=true`, tok)).status,
  ).toBe(200);
  expect((await chatbot()).customContent).toBeNull();
}

describe('custom content on PostgreSQL', () => {
  test('the same, on PostgreSQL (the kept-text query joins documents and jobs)', async () => {
    const pg = await buildTestApp({ dialect: 'postgres', env: { QUEUE_POLL_MS: '20' } });
    try {
      const account = await pg.app.services.accounts.resolve(undefined);
      const owner = await pg.app.services.store.users.owner(account.id);
      const k = (await pg.app.services.tokens.createLegacyKey(owner!)).token;
      await customContentFollowsItsDocument(pg, k, (await pg.token()).token);
    } finally {
      await pg.close();
    }
  });
});
