/**
 * /me, /account, /usage, /billing/invoices and /chatbots/{id}/analytics: who the token is, what the
 * account may change (never its plan), usage against the plan, recorded invoices with pagination,
 * and the analytics plan lock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../../../server/domain/ids.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function freshAccount(email = `${newId()}@x.test`) {
  const { account, owner } = await t.app.services.accounts.create(email);
  const created = await t.token({ access: 'full', name: 'acct test' }, account.id);
  return { account, owner, token: created.token, tokenId: created.id };
}

const createChatbot = async (tk: string, title = 'c') => {
  const res = await t.call('POST', '/api/v2/chatbots', tk, { title });
  expect(res.status).toBe(201);
  return res.body.data.chatbot.id as string;
};

describe('GET /me', () => {
  test("returns the token's user, account, scopes and chatbot restriction", async () => {
    const { account, owner, token, tokenId } = await freshAccount('Me@X.test');
    const res = await t.call('GET', '/api/v2/me', token);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      user: { id: owner.id, email: 'me@x.test', role: 'owner' },
      account: { id: account.id, active: true },
      token: { id: tokenId, name: 'acct test', access: 'full' },
      chatbotIds: null,
    });
    expect(res.body.data.scopes).toContain('chatbots:read');
    expect(JSON.stringify(res.body.data)).not.toContain(token);
  });

  test('shows the chatbot restriction and custom scopes', async () => {
    const { account, token } = await freshAccount();
    const chatbotId = await createChatbot(token);
    const restricted = await t.token(
      { access: 'custom', scopes: ['chatbots:read'], chatbotIds: [chatbotId] },
      account.id,
    );
    const res = await t.call('GET', '/api/v2/me', restricted.token);
    expect(res.body.data.scopes).toEqual(['chatbots:read']);
    expect(res.body.data.chatbotIds).toEqual([chatbotId]);
    expect(res.body.data.token.access).toBe('custom');
  });
});

describe('/account', () => {
  test("GET returns the account, its plan and the caller's role", async () => {
    const { account, token } = await freshAccount();
    const res = await t.call('GET', '/api/v2/account', token);
    expect(res.status).toBe(200);
    expect(res.body.data.account).toMatchObject({
      id: account.id,
      role: 'owner',
      plan: { maxChatbots: account.plan.maxChatbots, active: true },
    });
  });

  test('PATCH renames the account', async () => {
    const { token } = await freshAccount();
    const res = await t.call('PATCH', '/api/v2/account', token, { name: 'Acme' });
    expect(res.status).toBe(200);
    expect(res.body.data.account.name).toBe('Acme');
    expect((await t.call('GET', '/api/v2/account', token)).body.data.account.name).toBe('Acme');
  });

  test.each([
    ['plan', { plan: { maxChatbots: 1_000_000, analytics: true } }],
    ['plan with a name', { name: 'Acme', plan: { active: true } }],
    ['plan fields at the top', { maxChatbots: 1_000_000 }],
    ['id', { id: 'other' }],
    ['createdAt', { createdAt: '2000-01-01T00:00:00.000Z' }],
    ['role', { role: 'owner' }],
  ])('PATCH with %s is refused with VALIDATION_FAILED and changes nothing', async (_label, body) => {
    const { account, token } = await freshAccount();
    await t.app.services.accounts.setPlan(account.id, { maxChatbots: 3, analytics: false });
    const before = (await t.call('GET', '/api/v2/account', token)).body.data.account;
    const res = await t.call('PATCH', '/api/v2/account', token, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.length).toBeGreaterThan(0);
    const after = (await t.call('GET', '/api/v2/account', token)).body.data.account;
    expect(after).toEqual(before);
    expect(after.plan).toMatchObject({ maxChatbots: 3, analytics: false });
  });

  test('an empty or over-long name is refused', async () => {
    const { token } = await freshAccount();
    for (const name of ['', 'x'.repeat(201)]) {
      const res = await t.call('PATCH', '/api/v2/account', token, { name });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([expect.objectContaining({ path: ['name'] })]);
    }
  });

  test('a Standard token cannot change the account', async () => {
    const { account } = await freshAccount();
    const standard = await t.token({ access: 'standard' }, account.id);
    const res = await t.call('PATCH', '/api/v2/account', standard.token, { name: 'nope' });
    expect(res.status).toBe(403);
    expect(res.body.error.details.requiredScopes).toEqual(['account:write']);
  });
});

describe('GET /usage', () => {
  test('counts the chatbots against the plan and follows creation and deletion', async () => {
    const { account, token } = await freshAccount();
    await t.app.services.accounts.setPlan(account.id, { maxChatbots: 5 });
    const empty = await t.call('GET', '/api/v2/usage', token);
    expect(empty.status).toBe(200);
    expect(empty.body.data.usage.chatbots).toEqual({ used: 0, limit: 5 });
    const a = await createChatbot(token);
    await createChatbot(token);
    expect((await t.call('GET', '/api/v2/usage', token)).body.data.usage.chatbots).toEqual({ used: 2, limit: 5 });
    await t.call('DELETE', `/api/v2/chatbots/${a}?confirm=true`, token);
    const usage = (await t.call('GET', '/api/v2/usage', token)).body.data.usage;
    expect(usage.chatbots).toEqual({ used: 1, limit: 5 });
    expect(usage.contentPages).toMatchObject({ used: 0 });
    expect(usage.messages).toMatchObject({ used: 0 });
    expect(Date.parse(usage.period.start)).toBeLessThan(Date.parse(usage.period.end));
  });

  test('counts every stored message of the account, concurrent conversations included, as soon as they are answered', async () => {
    const { token } = await freshAccount();
    const id = await createChatbot(token);
    // Messages committed at once share the meter's writes (written after each commit, coalesced).
    const asked = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const conv = await t.call('POST', `/api/v2/chatbots/${id}/conversations`, token, {});
        const threadId = conv.body.data.conversation.threadId as string;
        const sent = await t.call('POST', `/api/v2/chatbots/${id}/conversations/${threadId}/messages`, token, {
          message: `Question ${n}?`,
        });
        expect(sent.status).toBe(201);
        return threadId;
      }),
    );
    const stored = await t.database.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('chatbot_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(asked.length * 2); // each question and its answer
    expect((await t.call('GET', '/api/v2/usage', token)).body.data.usage.messages).toMatchObject({ used: 6 });
  });

  test("another account's chatbots do not count", async () => {
    const mine = await freshAccount();
    const theirs = await freshAccount();
    await createChatbot(theirs.token);
    expect((await t.call('GET', '/api/v2/usage', mine.token)).body.data.usage.chatbots.used).toBe(0);
  });
});

describe('GET /billing/invoices', () => {
  test('is empty until an operator records an invoice (no invented rows)', async () => {
    const { token } = await freshAccount();
    const res = await t.call('GET', '/api/v2/billing/invoices', token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ billings: [], pagination: { limit: 50, hasNextPage: false, nextCursor: null } });
    expect(res.body.meta.nextCursor).toBeNull();
  });

  test("lists recorded invoices newest first, page by page, only the account's own", async () => {
    const { account, token } = await freshAccount();
    const other = await freshAccount();
    await t.app.services.billing.record(other.account.id, { name: 'not yours', amount: 1, currency: 'EUR' });
    const recorded = [];
    for (let i = 1; i <= 3; i++) {
      recorded.push(
        await t.app.services.billing.record(account.id, {
          name: `Invoice ${i}`,
          amount: 10 * i + 0.5,
          currency: 'EUR',
        }),
      );
    }
    const all = await t.call('GET', '/api/v2/billing/invoices', token);
    expect(all.body.data.billings.map((b: { id: string }) => b.id).sort()).toEqual(recorded.map((r) => r.id).sort());
    const createdAts: string[] = all.body.data.billings.map((b: { createdAt: string }) => b.createdAt);
    expect([...createdAts].sort().reverse()).toEqual(createdAts);
    const first = all.body.data.billings.find((b: { name: string }) => b.name === 'Invoice 1');
    expect(first).toMatchObject({
      id: expect.any(String),
      name: 'Invoice 1',
      amount: 10.5,
      currency: 'EUR',
      createdAt: expect.any(String),
    });

    const p1 = await t.call('GET', '/api/v2/billing/invoices?limit=2', token);
    expect(p1.body.data.billings).toHaveLength(2);
    expect(p1.body.data.pagination).toMatchObject({ limit: 2, hasNextPage: true, nextCursor: expect.any(String) });
    expect(p1.body.meta.nextCursor).toBe(p1.body.data.pagination.nextCursor);
    const p2 = await t.call(
      'GET',
      `/api/v2/billing/invoices?limit=2&cursor=${encodeURIComponent(p1.body.meta.nextCursor)}`,
      token,
    );
    expect(p2.body.data.billings).toHaveLength(1);
    expect(p2.body.data.pagination).toEqual({ limit: 2, hasNextPage: false, nextCursor: null });
    expect(p2.body.meta.nextCursor).toBeNull();
    expect([...p1.body.data.billings, ...p2.body.data.billings].map((b: { id: string }) => b.id)).toEqual(
      all.body.data.billings.map((b: { id: string }) => b.id),
    );
  });

  test('limit out of range and foreign cursors are refused', async () => {
    const { token } = await freshAccount();
    expect((await t.call('GET', '/api/v2/billing/invoices?limit=0', token)).body.error.code).toBe('VALIDATION_FAILED');
    expect((await t.call('GET', '/api/v2/billing/invoices?limit=101', token)).body.error.code).toBe(
      'VALIDATION_FAILED',
    );
    const bad = await t.call('GET', '/api/v2/billing/invoices?cursor=forged.cursor', token);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_CURSOR');
  });

  test('needs billing:read', async () => {
    const { account } = await freshAccount();
    const noBilling = await t.token({ access: 'custom', scopes: ['account:read'] }, account.id);
    const res = await t.call('GET', '/api/v2/billing/invoices', noBilling.token);
    expect(res.status).toBe(403);
    expect(res.body.error.details.requiredScopes).toEqual(['billing:read']);
  });
});

describe('GET /chatbots/{id}/analytics', () => {
  test('403 ANALYTICS_LOCKED when the plan lacks analytics; 200 once it has them', async () => {
    const { account, token } = await freshAccount();
    const chatbotId = await createChatbot(token);
    await t.app.services.accounts.setPlan(account.id, { analytics: false });
    const locked = await t.call('GET', `/api/v2/chatbots/${chatbotId}/analytics`, token);
    expect(locked.status).toBe(403);
    expect(locked.body).toMatchObject({ ok: false, error: { code: 'ANALYTICS_LOCKED', hint: expect.any(String) } });
    await t.app.services.accounts.setPlan(account.id, { analytics: true });
    const open = await t.call('GET', `/api/v2/chatbots/${chatbotId}/analytics`, token);
    expect(open.status).toBe(200);
    expect(open.body.data.analytics).toMatchObject({ chatbotId });
  });

  test('a chatbot out of reach is 404 even when analytics are locked (no existence leak)', async () => {
    const mine = await freshAccount();
    const theirs = await freshAccount();
    const theirChatbot = await createChatbot(theirs.token);
    await t.app.services.accounts.setPlan(mine.account.id, { analytics: false });
    const res = await t.call('GET', `/api/v2/chatbots/${theirChatbot}/analytics`, mine.token);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('CHATBOT_NOT_FOUND');
  });

  test('a range is validated', async () => {
    const { token } = await freshAccount();
    const chatbotId = await createChatbot(token);
    const ok = await t.call(
      'GET',
      `/api/v2/chatbots/${chatbotId}/analytics?from=2024-01-01T00:00:00Z&to=2024-02-01T00:00:00Z`,
      token,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.data.analytics.range).toEqual({ from: '2024-01-01T00:00:00.000Z', to: '2024-02-01T00:00:00.000Z' });
    const reversed = await t.call(
      'GET',
      `/api/v2/chatbots/${chatbotId}/analytics?from=2024-02-01T00:00:00Z&to=2024-01-01T00:00:00Z`,
      token,
    );
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.details).toEqual([expect.objectContaining({ path: ['from'] })]);
    const notDate = await t.call('GET', `/api/v2/chatbots/${chatbotId}/analytics?from=yesterday`, token);
    expect(notDate.status).toBe(400);
    expect(notDate.body.error.code).toBe('VALIDATION_FAILED');
  });
});
