/**
 * Token ownership: a member, and any token restricted to chosen chatbots, lists and revokes only
 * its own user's tokens; an admin cannot revoke the owner's; the owner and admins see them all.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { UserRecord } from '../../../../server/domain/ports.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

let t: TestApp;
let owner: { token: string; id: string };
let chatbotId: string;
const users: Record<'admin' | 'member' | 'other', UserRecord> = {} as never;

async function tokenOf(user: UserRecord, input: { access?: 'full' | 'standard'; chatbotIds?: string[] } = {}) {
  const created = await t.app.services.tokens.create(user, {
    access: input.access ?? 'full',
    chatbotIds: input.chatbotIds ?? null,
  });
  return { token: created.token, id: created.record.id };
}
const listIds = async (token: string) => {
  const res = await t.call('GET', '/api/v2/tokens?limit=100', token);
  expect(res.status).toBe(200);
  return (res.body.data.tokens as { id: string }[]).map((x) => x.id);
};

beforeAll(async () => {
  t = await buildTestApp();
  owner = await t.token();
  chatbotId = (await t.call('POST', '/api/v2/chatbots', owner.token, { title: 'Desk' })).body.data.chatbot.id;
  const account = await t.app.services.accounts.resolve();
  for (const [key, role] of [
    ['admin', 'admin'],
    ['member', 'member'],
    ['other', 'member'],
  ] as const) {
    const res = await t.call('POST', `/api/v2/chatbots/${chatbotId}/members`, owner.token, {
      email: `${key}@team.test`,
      role,
    });
    expect(res.status).toBe(201);
    users[key] = (await t.app.services.store.users.byEmail(account.id, `${key}@team.test`))!;
  }
});
afterAll(() => t.close());

describe('listing', () => {
  test("a member lists only their own tokens; the owner and admins list everyone's", async () => {
    const mine = await tokenOf(users.member);
    const theirs = await tokenOf(users.other);
    const admin = await tokenOf(users.admin, { access: 'full' });
    const listed = await listIds(mine.token);
    expect(listed).toContain(mine.id);
    expect(listed).not.toContain(theirs.id);
    expect(listed).not.toContain(owner.id);
    for (const viewer of [owner.token, admin.token])
      expect(await listIds(viewer)).toEqual(expect.arrayContaining([mine.id, theirs.id, owner.id, admin.id]));
  });

  test("a token restricted to chosen chatbots lists only its own user's tokens, even the owner's", async () => {
    const ownerUser = (await t.app.services.store.users.owner((await t.app.services.accounts.resolve()).id))!;
    const restricted = await tokenOf(ownerUser, { access: 'full', chatbotIds: [chatbotId] });
    const member = await tokenOf(users.member);
    const listed = await listIds(restricted.token);
    expect(listed).toContain(owner.id);
    expect(listed).not.toContain(member.id);
  });
});

describe('revoking', () => {
  test("a member cannot revoke another user's token (404, still working) but revokes their own", async () => {
    const mine = await tokenOf(users.member);
    const theirs = await tokenOf(users.other);
    const res = await t.call('DELETE', `/api/v2/tokens/${theirs.id}`, mine.token);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await t.call('GET', '/api/v2/me', theirs.token)).status).toBe(200);
    expect((await t.call('DELETE', `/api/v2/tokens/${owner.id}`, mine.token)).status).toBe(404);
    expect((await t.call('GET', '/api/v2/me', owner.token)).status).toBe(200);
    const own = await tokenOf(users.member);
    expect((await t.call('DELETE', `/api/v2/tokens/${own.id}`, mine.token)).status).toBe(200);
    expect((await t.call('GET', '/api/v2/me', own.token)).status).toBe(401);
  });

  test("an admin cannot revoke the owner's token (403) but revokes a member's; the owner revokes an admin's", async () => {
    const admin = await tokenOf(users.admin, { access: 'full' });
    const ownerSpare = await t.token();
    const refused = await t.call('DELETE', `/api/v2/tokens/${ownerSpare.id}`, admin.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('TOKEN_SCOPE_NOT_ALLOWED');
    expect((await t.call('GET', '/api/v2/me', ownerSpare.token)).status).toBe(200);
    const member = await tokenOf(users.member);
    expect((await t.call('DELETE', `/api/v2/tokens/${member.id}`, admin.token)).status).toBe(200);
    expect((await t.call('GET', '/api/v2/me', member.token)).status).toBe(401);
    const admin2 = await tokenOf(users.admin, { access: 'full' });
    expect((await t.call('DELETE', `/api/v2/tokens/${admin2.id}`, owner.token)).status).toBe(200);
    expect((await t.call('GET', '/api/v2/me', admin2.token)).status).toBe(401);
  });

  test("a chatbot-restricted token of the owner cannot revoke an admin's token", async () => {
    const ownerUser = (await t.app.services.store.users.owner((await t.app.services.accounts.resolve()).id))!;
    const restricted = await tokenOf(ownerUser, { access: 'full', chatbotIds: [chatbotId] });
    const admin = await tokenOf(users.admin, { access: 'full' });
    expect((await t.call('DELETE', `/api/v2/tokens/${admin.id}`, restricted.token)).status).toBe(404);
    expect((await t.call('GET', '/api/v2/me', admin.token)).status).toBe(200);
  });
});
