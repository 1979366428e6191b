/**
 * /chatbots/{chatbotId}/members: invite by e-mail (a new user gets the invited role, an existing
 * one keeps theirs with a warning), list, get, PATCH role (account-wide, next request), delete
 * with the confirm rule, the owner who cannot be demoted or removed, and what roles mean for
 * tokens: a `member` reaches only the chatbots they were added to (GET /chatbots lists those,
 * most recently added first), an admin every chatbot. Plus validation, mass assignment, 404s,
 * and the errors every route answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../../../server/domain/ids.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import {
  createChatbot,
  describeRouteErrors,
  expectError,
  freshAccount,
  rowCount,
  tokenOf,
  userWithToken,
} from '../../../helpers/resources.js';

let t: TestApp;
let token: string;
let accountId: string;
let chatbotId: string;
let memberId: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  accountId = (await t.app.services.accounts.resolve()).id;
  chatbotId = await createChatbot(t, token, 'members');
  memberId = (await invite(chatbotId, { email: `${newId()}@team.test`, role: 'member' })).id;
});
afterAll(() => t.close());

const base = (id: string) => `/api/v2/chatbots/${id}/members`;

async function invite(id: string, body: Record<string, unknown>, tk = token) {
  const res = await t.call('POST', base(id), tk, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.member;
}

const listIds = async (tk: string, query = '') =>
  (await t.call('GET', `/api/v2/chatbots${query}`, tk)).body.data.chatbots.map((c: { id: string }) => c.id);

describe('invite', () => {
  test('a new e-mail becomes a user of the account with the invited role (201)', async () => {
    const email = `New.${newId()}@Team.test`;
    const users = await rowCount(t, 'users');
    const m = await invite(chatbotId, { email: `  ${email}  `, role: 'admin' });
    expect(m).toEqual({
      id: expect.any(String),
      chatbotId,
      userId: expect.any(String),
      email: email.toLowerCase(),
      name: null,
      role: 'admin',
      invitedById: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(await rowCount(t, 'users')).toBe(users + 1);
    const user = await t.app.services.store.users.get(m.userId);
    expect(user).toMatchObject({ accountId, email: email.toLowerCase(), role: 'admin' });
    const owner = await t.app.services.store.users.owner(accountId);
    expect(m.invitedById).toBe(owner!.id);
    expect((await t.call('GET', `${base(chatbotId)}/${m.id}`, token)).body.data.member).toEqual(m);
  });

  test('an existing user keeps their role; meta.warnings says so', async () => {
    const { user } = await userWithToken(t, accountId, 'admin');
    const users = await rowCount(t, 'users');
    const res = await t.call('POST', base(chatbotId), token, { email: user.email.toUpperCase(), role: 'member' });
    expect(res.status).toBe(201);
    expect(res.body.data.member).toMatchObject({ userId: user.id, role: 'admin' });
    expect(res.body.meta.warnings).toEqual([expect.stringContaining('keeps it')]);
    expect(await rowCount(t, 'users')).toBe(users);
    expect((await t.app.services.store.users.get(user.id))!.role).toBe('admin');
  });

  test('an existing user invited with their own role gets no warning', async () => {
    const { user } = await userWithToken(t, accountId, 'member');
    const res = await t.call('POST', base(chatbotId), token, { email: user.email, role: 'member' });
    expect(res.status).toBe(201);
    expect(res.body.meta.warnings).toBeUndefined();
  });

  test('the same person twice is 400 VALIDATION_FAILED on email; nothing added', async () => {
    const email = `twice.${newId()}@team.test`;
    await invite(chatbotId, { email, role: 'member' });
    const before = [await rowCount(t, 'chatbot_members'), await rowCount(t, 'users')];
    const res = await t.call('POST', base(chatbotId), token, { email: email.toUpperCase(), role: 'admin' });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: ['email'] })]);
    expect([await rowCount(t, 'chatbot_members'), await rowCount(t, 'users')]).toEqual(before);
  });

  test('the same person in two chatbots is one user with two memberships', async () => {
    const email = `two.${newId()}@team.test`;
    const a = await invite(chatbotId, { email, role: 'member' });
    const other = await createChatbot(t, token);
    const b = await invite(other, { email, role: 'member' });
    expect(a.userId).toBe(b.userId);
    expect(a.id).not.toBe(b.id);
  });

  test.each([
    ['email missing', { role: 'member' }, ['email']],
    ['email not an address', { email: 'not-an-email', role: 'member' }, ['email']],
    ['email with spaces inside', { email: 'a b@c.test', role: 'member' }, ['email']],
    ['role missing', { email: 'x@y.test' }, ['role']],
    ['role owner', { email: 'x@y.test', role: 'owner' }, ['role']],
    ['role unknown', { email: 'x@y.test', role: 'boss' }, ['role']],
  ])('%s: 400 VALIDATION_FAILED naming the field; no user, no member', async (_label, body, path) => {
    const before = [await rowCount(t, 'chatbot_members'), await rowCount(t, 'users')];
    const res = await t.call('POST', base(chatbotId), token, body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect([await rowCount(t, 'chatbot_members'), await rowCount(t, 'users')]).toEqual(before);
  });

  test.each([
    ['id', { id: 'x' }],
    ['userId', { userId: 'x' }],
    ['invitedById', { invitedById: 'x' }],
    ['email', { email: 'x@y.test' }],
  ])('mass assignment of %s is refused', async (_l, extra) => {
    const before = await rowCount(t, 'chatbot_members');
    if (!('email' in extra))
      expectError(
        await t.call('POST', base(chatbotId), token, { email: `${newId()}@x.test`, role: 'member', ...extra }),
        400,
        'VALIDATION_FAILED',
      );
    expectError(
      await t.call('PATCH', `${base(chatbotId)}/${memberId}`, token, { role: 'admin', ...extra }),
      400,
      'VALIDATION_FAILED',
    );
    expect(await rowCount(t, 'chatbot_members')).toBe(before);
    expect((await t.call('GET', `${base(chatbotId)}/${memberId}`, token)).body.data.member.role).toBe('member');
  });
});

describe('list', () => {
  test('GET lists the members, most recently added first', async () => {
    const id = await createChatbot(t, token);
    const a = await invite(id, { email: `a.${newId()}@x.test`, role: 'member' });
    await new Promise((r) => setTimeout(r, 5));
    const b = await invite(id, { email: `b.${newId()}@x.test`, role: 'admin' });
    const res = await t.call('GET', base(id), token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ members: [b, a] });
  });
});

describe('the owner', () => {
  test('can be added, but not demoted (400) nor removed (400); rows unchanged', async () => {
    const owner = (await t.app.services.store.users.owner(accountId))!;
    const id = await createChatbot(t, token);
    const res = await t.call('POST', base(id), token, { email: owner.email, role: 'admin' });
    expect(res.status).toBe(201);
    expect(res.body.data.member.role).toBe('owner');
    expect(res.body.meta.warnings).toHaveLength(1);
    const m = res.body.data.member;
    const demote = await t.call('PATCH', `${base(id)}/${m.id}`, token, { role: 'member' });
    expectError(demote, 400, 'VALIDATION_FAILED');
    expect(demote.body.error.details[0].path).toEqual(['role']);
    const before = await rowCount(t, 'chatbot_members', id);
    expectError(await t.call('DELETE', `${base(id)}/${m.id}?confirm=true`, token), 400, 'VALIDATION_FAILED');
    expect(await rowCount(t, 'chatbot_members', id)).toBe(before);
    expect((await t.app.services.store.users.get(owner.id))!.role).toBe('owner');
  });
});

describe('PATCH role', () => {
  test("sets the user's dashboard role; their token's scopes follow on the next request", async () => {
    const email = `promote.${newId()}@x.test`;
    const m = await invite(chatbotId, { email, role: 'member' });
    const theirs = await tokenOf(t, accountId, email);
    expect((await t.call('GET', '/api/v2/me', theirs)).body.data.user.role).toBe('member');
    expectError(
      await t.call('POST', `/api/v2/chatbots/${chatbotId}/starters`, theirs, { title: 't', description: 'd' }),
      403,
      'TOKEN_SCOPE_NOT_ALLOWED',
    );

    const res = await t.call('PATCH', `${base(chatbotId)}/${m.id}`, token, { role: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body.data.member).toMatchObject({ id: m.id, role: 'admin' });
    expect((await t.call('GET', '/api/v2/me', theirs)).body.data.user.role).toBe('admin');
    expect(
      (await t.call('POST', `/api/v2/chatbots/${chatbotId}/starters`, theirs, { title: 't', description: 'd' })).status,
    ).toBe(201);
    expect((await t.call('GET', `${base(chatbotId)}/${m.id}`, token)).body.data.member.role).toBe('admin');

    await t.call('PATCH', `${base(chatbotId)}/${m.id}`, token, { role: 'member' });
    expectError(
      await t.call('POST', `/api/v2/chatbots/${chatbotId}/starters`, theirs, { title: 't', description: 'd' }),
      403,
      'TOKEN_SCOPE_NOT_ALLOWED',
    );
  });

  test('role must be admin or member; a body is required', async () => {
    expectError(
      await t.call('PATCH', `${base(chatbotId)}/${memberId}`, token, { role: 'owner' }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await t.call('PATCH', `${base(chatbotId)}/${memberId}`, token, {}), 400, 'VALIDATION_FAILED');
  });
});

describe('display name', () => {
  test('given at invitation, changed and cleared by PATCH (trimmed, blank is none); the owner may be named but not demoted', async () => {
    const m = await invite(chatbotId, { email: `named.${newId()}@x.test`, role: 'member', name: '  Dana   Weiss ' });
    expect(m.name).toBe('Dana Weiss');
    const renamed = await t.call('PATCH', `${base(chatbotId)}/${m.id}`, token, { name: 'Dana from Support' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.member).toMatchObject({ name: 'Dana from Support', role: 'member' });
    expect((await t.app.services.store.users.get(m.userId))!.name).toBe('Dana from Support');
    expect(
      (await t.call('PATCH', `${base(chatbotId)}/${m.id}`, token, { name: '   ' })).body.data.member.name,
    ).toBeNull();
    expect((await t.call('GET', `${base(chatbotId)}/${m.id}`, token)).body.data.member).toMatchObject({
      name: null,
      role: 'member',
    });
    const tooLong = await t.call('PATCH', `${base(chatbotId)}/${m.id}`, token, { name: 'x'.repeat(81) });
    expectError(tooLong, 400, 'VALIDATION_FAILED');
    expect(tooLong.body.error.details[0].path).toEqual(['name']);

    const owner = (await t.app.services.store.users.owner(accountId))!;
    const id = await createChatbot(t, token);
    const om = (await t.call('POST', base(id), token, { email: owner.email, role: 'admin' })).body.data.member;
    expect(
      (await t.call('PATCH', `${base(id)}/${om.id}`, token, { name: 'Sam (owner)' })).body.data.member,
    ).toMatchObject({ name: 'Sam (owner)', role: 'owner' });
    expectError(
      await t.call('PATCH', `${base(id)}/${om.id}`, token, { name: 'Sam', role: 'member' }),
      400,
      'VALIDATION_FAILED',
    );
    expect((await t.app.services.store.users.get(owner.id))!).toMatchObject({ name: 'Sam (owner)', role: 'owner' });
    await t.call('PATCH', `${base(id)}/${om.id}`, token, { name: null });
  });

  test('PATCH /me: an agent (member role, no members:write) names themself; the name is what their member entry shows', async () => {
    const { user, token: agent } = await userWithToken(t, accountId, 'member');
    const m = await invite(chatbotId, { email: user.email, role: 'member' });
    expectError(
      await t.call('PATCH', `${base(chatbotId)}/${m.id}`, agent, { name: 'Dana' }),
      403,
      'TOKEN_SCOPE_NOT_ALLOWED',
    );
    const res = await t.call('PATCH', '/api/v2/me', agent, { name: '  Dana   from Support ' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.user).toMatchObject({ id: user.id, name: 'Dana from Support', role: 'member' });
    expect((await t.call('GET', '/api/v2/me', agent)).body.data.user.name).toBe('Dana from Support');
    expect((await t.call('GET', `${base(chatbotId)}/${m.id}`, token)).body.data.member.name).toBe('Dana from Support');
    expect((await t.call('PATCH', '/api/v2/me', agent, { name: ' ' })).body.data.user.name).toBeNull();
    expectError(await t.call('PATCH', '/api/v2/me', agent, { name: 'x'.repeat(81) }), 400, 'VALIDATION_FAILED');
    expectError(await t.call('PATCH', '/api/v2/me', agent, { name: 'Dana', role: 'owner' }), 400, 'VALIDATION_FAILED');
    const { token: reader } = await t.token({ access: 'custom', scopes: ['conversations:read'] });
    expectError(await t.call('PATCH', '/api/v2/me', reader, { name: 'Nope' }), 403, 'TOKEN_SCOPE_NOT_ALLOWED');
  });

  test('an existing user invited with another name keeps theirs; meta.warnings says so', async () => {
    const email = `keeps.${newId()}@x.test`;
    const first = await invite(chatbotId, { email, role: 'member', name: 'Kim' });
    const other = await createChatbot(t, token);
    const res = await t.call('POST', base(other), token, { email, role: 'member', name: 'Kimberly' });
    expect(res.status).toBe(201);
    expect(res.body.data.member.name).toBe('Kim');
    expect(res.body.meta.warnings).toEqual([expect.stringContaining('already has the name "Kim"')]);
    expect((await t.app.services.store.users.get(first.userId))!.name).toBe('Kim');
  });
});

describe('delete', () => {
  test('without ?confirm=true: 400 CONFIRMATION_REQUIRED, still a member', async () => {
    const before = await rowCount(t, 'chatbot_members');
    expectError(await t.call('DELETE', `${base(chatbotId)}/${memberId}`, token), 400, 'CONFIRMATION_REQUIRED');
    expect(await rowCount(t, 'chatbot_members')).toBe(before);
  });

  test('?confirm=true returns data.deletedMember; the user stays in the account but loses the chatbot', async () => {
    const email = `leaver.${newId()}@x.test`;
    const m = await invite(chatbotId, { email, role: 'member' });
    const theirs = await tokenOf(t, accountId, email);
    expect((await t.call('GET', `/api/v2/chatbots/${chatbotId}`, theirs)).status).toBe(200);
    const users = await rowCount(t, 'users');
    const res = await t.call('DELETE', `${base(chatbotId)}/${m.id}?confirm=true`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedMember).toEqual(m);
    expect(await rowCount(t, 'users')).toBe(users);
    expectError(await t.call('GET', `/api/v2/chatbots/${chatbotId}`, theirs), 404, 'CHATBOT_NOT_FOUND');
    expectError(await t.call('GET', `${base(chatbotId)}/${m.id}`, token), 404, 'NOT_FOUND');
  });

  test('a member of another chatbot, or an unknown id, is 404 NOT_FOUND', async () => {
    const other = await createChatbot(t, token);
    const before = await rowCount(t, 'chatbot_members');
    for (const [bot, id] of [
      [other, memberId],
      [chatbotId, newId()],
    ]) {
      expectError(await t.call('GET', `${base(bot)}/${id}`, token), 404, 'NOT_FOUND');
      expectError(await t.call('PATCH', `${base(bot)}/${id}`, token, { role: 'admin' }), 404, 'NOT_FOUND');
      expectError(await t.call('DELETE', `${base(bot)}/${id}?confirm=true`, token), 404, 'NOT_FOUND');
    }
    expect(await rowCount(t, 'chatbot_members')).toBe(before);
  });

  test("another account's token gets 404 CHATBOT_NOT_FOUND and invites nobody", async () => {
    const other = await freshAccount(t);
    const before = await rowCount(t, 'users');
    expectError(
      await t.call('POST', base(chatbotId), other.token, { email: `${newId()}@x.test`, role: 'admin' }),
      404,
      'CHATBOT_NOT_FOUND',
    );
    expect(await rowCount(t, 'users')).toBe(before);
  });
});

describe('what a role reaches', () => {
  test("a member's token reaches only the chatbots they were added to; GET /chatbots lists them, most recently added first", async () => {
    const own = await freshAccount(t, 'not shared');
    const [a, b, c] = [
      await createChatbot(t, own.token, 'a'),
      await createChatbot(t, own.token, 'b'),
      await createChatbot(t, own.token, 'c'),
    ];
    const email = `reach.${newId()}@x.test`;
    // Added to c, then a, then b (chatbots created a, b, c): the list follows the additions.
    for (const id of [c, a, b]) {
      await invite(id, { email, role: 'member' }, own.token);
      await new Promise((r) => setTimeout(r, 5));
    }
    const theirs = await tokenOf(t, own.accountId, email);
    expect(await listIds(theirs)).toEqual([b, a, c]);
    // The owner's list is by creation (ties within a millisecond in either order).
    expect((await listIds(own.token)).sort()).toEqual([c, b, a, own.chatbotId].sort());

    expectError(await t.call('GET', `/api/v2/chatbots/${own.chatbotId}`, theirs), 404, 'CHATBOT_NOT_FOUND');
    expectError(await t.call('GET', `/api/v2/chatbots/${own.chatbotId}/starters`, theirs), 404, 'CHATBOT_NOT_FOUND');
    expect((await t.call('GET', `/api/v2/chatbots/${a}`, theirs)).status).toBe(200);
    expect((await t.call('GET', `/api/v2/chatbots/${a}/members`, theirs)).status).toBe(200);
  });

  test("a member's list pages on the membership keyset; an owner's cursor is not theirs (400 INVALID_CURSOR)", async () => {
    const own = await freshAccount(t);
    const email = `pages.${newId()}@x.test`;
    const added: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await createChatbot(t, own.token, `p${i}`);
      await invite(id, { email, role: 'member' }, own.token);
      added.unshift(id);
      await new Promise((r) => setTimeout(r, 3));
    }
    const theirs = await tokenOf(t, own.accountId, email);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: any } = await t.call(
        'GET',
        `/api/v2/chatbots?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        theirs,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.data.chatbots.map((c: { id: string }) => c.id));
      cursor = res.body.data.pagination.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(added);

    const ownerPage = await t.call('GET', '/api/v2/chatbots?limit=1', own.token);
    expectError(
      await t.call(
        'GET',
        `/api/v2/chatbots?cursor=${encodeURIComponent(ownerPage.body.data.pagination.nextCursor)}`,
        theirs,
      ),
      400,
      'INVALID_CURSOR',
    );
    const memberPage = await t.call('GET', '/api/v2/chatbots?limit=1', theirs);
    expectError(
      await t.call(
        'GET',
        `/api/v2/chatbots?cursor=${encodeURIComponent(memberPage.body.data.pagination.nextCursor)}`,
        own.token,
      ),
      400,
      'INVALID_CURSOR',
    );
  });

  test("a member's token restricted to chosen chatbots sees the intersection", async () => {
    const own = await freshAccount(t);
    const a = await createChatbot(t, own.token, 'a');
    const b = await createChatbot(t, own.token, 'b');
    const email = `restricted.${newId()}@x.test`;
    await invite(a, { email, role: 'member' }, own.token);
    await invite(b, { email, role: 'member' }, own.token);
    const restricted = await tokenOf(t, own.accountId, email, { chatbotIds: [a, own.chatbotId] });
    expect(await listIds(restricted)).toEqual([a]);
    expectError(await t.call('GET', `/api/v2/chatbots/${b}`, restricted), 404, 'CHATBOT_NOT_FOUND');
    expectError(await t.call('GET', `/api/v2/chatbots/${own.chatbotId}`, restricted), 404, 'CHATBOT_NOT_FOUND');
  });

  test('an admin reaches every chatbot of the account; demoted to member, only their own', async () => {
    const own = await freshAccount(t);
    const a = await createChatbot(t, own.token, 'a');
    const email = `admin.${newId()}@x.test`;
    const m = await invite(a, { email, role: 'admin' }, own.token);
    const theirs = await tokenOf(t, own.accountId, email);
    expect((await listIds(theirs)).sort()).toEqual([a, own.chatbotId].sort());
    expect((await t.call('GET', `/api/v2/chatbots/${own.chatbotId}`, theirs)).status).toBe(200);
    await t.call('PATCH', `${base(a)}/${m.id}`, own.token, { role: 'member' });
    expect(await listIds(theirs)).toEqual([a]);
    expectError(await t.call('GET', `/api/v2/chatbots/${own.chatbotId}`, theirs), 404, 'CHATBOT_NOT_FOUND');
  });

  test('a member cannot invite anyone (members:write is withheld by the role)', async () => {
    const email = `noinvite.${newId()}@x.test`;
    await invite(chatbotId, { email, role: 'member' });
    const theirs = await tokenOf(t, accountId, email);
    const res = await t.call('POST', base(chatbotId), theirs, { email: `${newId()}@x.test`, role: 'admin' });
    expectError(res, 403, 'TOKEN_SCOPE_NOT_ALLOWED');
    expect(res.body.error.details.missingScopes).toEqual(['members:write']);
  });
});

describeRouteErrors('members', () => ({
  t,
  token,
  chatbotId,
  routes: [
    { method: 'GET', path: (id) => `/chatbots/${id}/members`, scopes: ['members:read'] },
    {
      method: 'POST',
      path: (id) => `/chatbots/${id}/members`,
      scopes: ['members:write'],
      body: { email: `${newId()}@x.test`, role: 'member' },
    },
    { method: 'GET', path: (id) => `/chatbots/${id}/members/${memberId}`, scopes: ['members:read'] },
    {
      method: 'PATCH',
      path: (id) => `/chatbots/${id}/members/${memberId}`,
      scopes: ['members:write'],
      body: { role: 'member' },
    },
    { method: 'DELETE', path: (id) => `/chatbots/${id}/members/${memberId}?confirm=true`, scopes: ['members:delete'] },
  ],
}));
