/**
 * The device flow's rules on both databases, with a clock the test moves (no sleeps): pending,
 * slow_down, expiry, denial, approval, the token it yields, and concurrent polls that must
 * yield exactly one token.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { AccountsService } from '../../../../server/domain/accounts.service.js';
import { hashSecret } from '../../../../server/domain/auth.js';
import { CursorCodec } from '../../../../server/domain/cursor.js';
import { DeviceFlowService, type DeviceAuthorization } from '../../../../server/domain/oauth/device-flow.service.js';
import { OAuthError } from '../../../../server/domain/oauth/grants.js';
import type { Store, UserRecord } from '../../../../server/domain/ports.js';
import { TokensService } from '../../../../server/domain/tokens.service.js';
import { STANDARD_SCOPES } from '../../../../shared/scopes.js';
import { openTestDatabase, type TestDatabase } from '../../../helpers/database.js';
import { describeOnDialects } from '../../../helpers/dialects.js';
import { randomBytes } from 'node:crypto';

const START = Date.UTC(2030, 0, 1);

/** The OAuth error code a promise rejects with. */
async function oauthError(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OAuthError) return err.error;
    throw err;
  }
  throw new Error('expected an OAuth error, got success');
}

/** A slow_down's new interval (from its description) and its Retry-After. */
async function slowDown(p: Promise<unknown>): Promise<{ interval: number; retryAfter?: number }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OAuthError && err.error === 'slow_down')
      return {
        interval: Number(/interval is now (\d+) seconds/.exec(err.description)?.[1]),
        retryAfter: err.retryAfter,
      };
    throw err;
  }
  throw new Error('expected slow_down, got success');
}

describeOnDialects('device flow on %s', (dialect) => {
  let db: TestDatabase;
  let store: Store;
  let tokens: TokensService;
  let flow: DeviceFlowService;
  let owner: UserRecord;
  let stranger: UserRecord;
  let chatbotId: string;
  let foreignChatbotId: string;
  const clock = { t: START, now: () => clock.t };

  beforeAll(async () => {
    db = await openTestDatabase(dialect);
    store = db.store;
    tokens = new TokensService(store, new CursorCodec(randomBytes(32)));
    flow = new DeviceFlowService(store, tokens, { intervalSeconds: 5, ttlSeconds: 600, now: clock.now });
    const accounts = new AccountsService(store);
    ({ owner } = await accounts.create('owner@example.com'));
    ({ owner: stranger } = await accounts.create('stranger@example.com'));
    chatbotId = 'bot-of-owner';
    foreignChatbotId = 'bot-of-stranger';
    const at = new Date(START).toISOString();
    await store.chatbots.insert({
      id: chatbotId,
      accountId: owner.accountId,
      createdById: owner.id,
      title: 'Support',
      description: '',
      settings: {},
      createdAt: at,
      updatedAt: at,
    });
    await store.chatbots.insert({
      id: foreignChatbotId,
      accountId: stranger.accountId,
      createdById: stranger.id,
      title: 'Theirs',
      description: '',
      settings: {},
      createdAt: at,
      updatedAt: at,
    });
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(() => {
    clock.t += 3600_000;
  });

  const start = (input: { scope?: string; chatbots?: string } = {}) =>
    flow.authorize({ clientId: 'parley-cli', ...input });
  const poll = (a: DeviceAuthorization) => flow.poll({ clientId: 'parley-cli', deviceCode: a.deviceCode });
  const wait = (seconds: number) => (clock.t += seconds * 1000);

  test('unknown clients and scopes are refused before any code is made', async () => {
    expect(await oauthError(flow.authorize({ clientId: 'someone-else' }))).toBe('invalid_client');
    expect(await oauthError(flow.authorize({}))).toBe('invalid_client');
    expect(await oauthError(start({ scope: 'chatbots:read chatbots:fly' }))).toBe('invalid_scope');
    expect(await oauthError(start({ chatbots: 'a b <script>' }))).toBe('invalid_request');
  });

  test('a code and its user code: hashed in storage, formatted for people', async () => {
    const a = await start({ scope: 'chatbots:read' });
    expect(a.userCode).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(a).toMatchObject({ interval: 5, expiresIn: 600 });
    const rows = await db.database.db.selectFrom('oauth_device_codes').selectAll().execute();
    const text = JSON.stringify(rows);
    expect(text).not.toContain(a.deviceCode);
    expect(text).not.toContain(a.userCode.replace('-', ''));
    expect(rows.some((r) => r.device_code_hash === hashSecret(a.deviceCode))).toBe(true);
  });

  test('pending until answered; a poll sooner than the interval slows down by 5 s each time, counted from the last accepted poll', async () => {
    const a = await start();
    expect(await oauthError(poll(a))).toBe('authorization_pending');
    wait(4);
    expect(await slowDown(poll(a))).toEqual({ interval: 10, retryAfter: 6 });
    // A rejected poll does not restart the clock: 7 s after the accepted one, 15 s are now due.
    wait(3);
    expect(await slowDown(poll(a))).toEqual({ interval: 15, retryAfter: 8 });
    wait(8);
    expect(await oauthError(poll(a))).toBe('authorization_pending');
    wait(14);
    expect(await slowDown(poll(a))).toEqual({ interval: 20, retryAfter: 6 });
    const row = await store.oauth.deviceCodes.byDeviceCode(hashSecret(a.deviceCode));
    expect(row?.intervalSeconds).toBe(20);
  });

  test('after two early polls, a client that adds 5 s per slow_down (RFC 8628 3.5) gets its token', async () => {
    const a = await start();
    expect(await oauthError(poll(a))).toBe('authorization_pending');
    expect(await oauthError(poll(a))).toBe('slow_down');
    await flow.decide(owner, a.userCode, true);
    // The client knows only the interval it was given and the slow_downs it hears itself.
    let interval = a.interval;
    const heard: string[] = [];
    for (let i = 0; i < 10; i++) {
      wait(interval);
      const error = await oauthError(poll(a)).catch(() => 'token');
      heard.push(error);
      if (error === 'token') break;
      expect(error).toBe('slow_down');
      interval += 5;
    }
    expect(heard).toEqual(['slow_down', 'token']);
  });

  test('an unanswered code expires; an unknown one is invalid_grant', async () => {
    const a = await start();
    wait(600);
    expect(await oauthError(poll(a))).toBe('expired_token');
    expect((await flow.lookup(owner, a.userCode)).ok).toBe(false);
    expect(await oauthError(flow.poll({ clientId: 'parley-cli', deviceCode: 'not-a-code' }))).toBe('invalid_grant');
    expect(await oauthError(flow.poll({ clientId: 'other', deviceCode: a.deviceCode }))).toBe('invalid_client');
  });

  test('denied: the client hears access_denied and the code cannot be approved after', async () => {
    const a = await start();
    const denied = await flow.decide(owner, a.userCode, false);
    expect(denied).toMatchObject({ ok: true, decided: true });
    wait(5);
    expect(await oauthError(poll(a))).toBe('access_denied');
    expect((await flow.decide(owner, a.userCode, true)).ok).toBe(false);
  });

  test('approved: one scoped API token of the approving user, listed and revocable, and the code is spent', async () => {
    const a = await start({ scope: 'chatbots:read conversations:read', chatbots: chatbotId });
    const lookup = await flow.lookup(owner, a.userCode.toLowerCase().replace('-', ' '));
    expect(lookup.ok && lookup.request).toMatchObject({
      clientName: 'Parley CLI',
      scopes: ['chatbots:read', 'conversations:read'],
      chatbots: [{ id: chatbotId, title: 'Support' }],
    });
    expect(await flow.decide(owner, a.userCode, true)).toMatchObject({ decided: true });
    wait(5);
    const issued = await poll(a);
    expect(issued.scopes).toEqual(['chatbots:read', 'conversations:read']);
    const auth = await tokens.authenticate(issued.accessToken);
    expect(auth?.user.id).toBe(owner.id);
    expect(auth?.token).toMatchObject({
      kind: 'api',
      access: 'custom',
      chatbotIds: [chatbotId],
      name: 'Parley CLI (device sign-in)',
    });
    expect((await tokens.listAll(owner.accountId)).map((t) => t.id)).toContain(issued.tokenId);

    wait(5);
    expect(await oauthError(poll(a))).toBe('invalid_grant');
    await flow.revoke({ clientId: 'parley-cli', token: issued.accessToken });
    expect(await tokens.authenticate(issued.accessToken)).toBeNull();
  });

  test('no scope asked for gives a Standard token', async () => {
    const a = await start();
    await flow.decide(owner, a.userCode, true);
    wait(5);
    const issued = await poll(a);
    expect([...issued.scopes].sort()).toEqual([...STANDARD_SCOPES].sort());
  });

  test("a chatbot outside the approver's account cannot be approved", async () => {
    const a = await start({ chatbots: `${chatbotId},${foreignChatbotId}` });
    const lookup = await flow.lookup(owner, a.userCode);
    expect(lookup.ok && lookup.request.chatbots).toEqual([
      { id: chatbotId, title: 'Support' },
      { id: foreignChatbotId, title: null },
    ]);
    expect(await flow.decide(owner, a.userCode, true)).toMatchObject({ decided: false });
    wait(5);
    expect(await oauthError(poll(a))).toBe('authorization_pending');
  });

  test('a member cannot see or approve a chatbot of the account they are not a member of', async () => {
    const at = new Date(clock.t).toISOString();
    const member: UserRecord = {
      id: `member-${clock.t}`,
      accountId: owner.accountId,
      email: `member-${clock.t}@example.com`,
      name: null,
      role: 'member',
      createdAt: at,
    };
    await store.users.insert(member);
    const a = await start({ chatbots: chatbotId });
    const lookup = await flow.lookup(member, a.userCode);
    expect(lookup.ok && lookup.request.chatbots).toEqual([{ id: chatbotId, title: null }]);
    expect(await flow.decide(member, a.userCode, true)).toMatchObject({ decided: false });
    // Once a member of it, they can.
    await store.resources.members.insert({
      id: `m-${member.id}`,
      chatbotId,
      userId: member.id,
      role: 'member',
      invitedById: null,
      createdAt: at,
    });
    const b = await start({ chatbots: chatbotId });
    const seen = await flow.lookup(member, b.userCode);
    expect(seen.ok && seen.request.chatbots).toEqual([{ id: chatbotId, title: 'Support' }]);
    expect(await flow.decide(member, b.userCode, true)).toMatchObject({ decided: true });
  });

  test('wrong user codes are limited per user: 10 in 15 minutes, then even a right one waits', async () => {
    const a = await start();
    for (let i = 0; i < 10; i++)
      expect(await flow.lookup(stranger, 'BBBB-BBBB')).toEqual({ ok: false, problem: 'unknown' });
    const blocked = await flow.lookup(stranger, a.userCode);
    expect(blocked).toMatchObject({ ok: false, problem: 'throttled' });
    expect((blocked as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
    // Other users are not affected, and the window ends.
    expect((await flow.lookup(owner, a.userCode)).ok).toBe(true);
    wait(15 * 60);
    const b = await start();
    expect((await flow.lookup(stranger, b.userCode)).ok).toBe(true);
  });

  test('concurrent polls of an approved code: exactly one token', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await start({ scope: 'chatbots:read' });
      await flow.decide(owner, a.userCode, true);
      wait(5);
      const before = (await tokens.listAll(owner.accountId)).length;
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => poll(a)));
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const r of results)
        if (r.status === 'rejected') expect(['slow_down', 'invalid_grant']).toContain((r.reason as OAuthError).error);
      expect((await tokens.listAll(owner.accountId)).length).toBe(before + 1);
    }
  });

  test('concurrent claims of one approved row (the issuing step itself): exactly one token', async () => {
    const a = await start({ scope: 'chatbots:read' });
    await flow.decide(owner, a.userCode, true);
    const row = (await store.oauth.deviceCodes.byDeviceCode(hashSecret(a.deviceCode)))!;
    const before = (await tokens.listAll(owner.accountId)).length;
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => flow.issue(row)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((await tokens.listAll(owner.accountId)).length).toBe(before + 1);
  });
});
