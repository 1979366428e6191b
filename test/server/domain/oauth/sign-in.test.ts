/** The verification page's sign-in: scrypt hashes, sessions that expire, one e-mail per account. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AccountsService } from '../../../../server/domain/accounts.service.js';
import { AppError } from '../../../../server/domain/errors.js';
import { hashPassword, verifyPassword } from '../../../../server/domain/oauth/passwords.js';
import { SignInService } from '../../../../server/domain/oauth/sign-in.service.js';
import type { UserRecord } from '../../../../server/domain/ports.js';
import { openTestDatabase, type TestDatabase } from '../../../helpers/database.js';

let db: TestDatabase;
let owner: UserRecord;
const clock = { t: Date.UTC(2030, 0, 1) };
let service: SignInService;

beforeAll(async () => {
  db = await openTestDatabase('sqlite');
  service = new SignInService(db.store, { now: () => clock.t });
  ({ owner } = await new AccountsService(db.store).create('Owner@Example.com'));
  await service.setPassword(owner, 'the right password');
});
afterAll(() => db?.close());

test('scrypt with a salt of its own per hash; only the right password verifies', async () => {
  const a = await hashPassword('same password');
  const b = await hashPassword('same password');
  expect(a).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
  expect(a).not.toBe(b);
  expect(await verifyPassword('same password', a)).toBe(true);
  expect(await verifyPassword('same passwore', a)).toBe(false);
  expect(await verifyPassword('same password', 'md5$abc')).toBe(false);
  const stored = await db.database.db.selectFrom('user_passwords').selectAll().execute();
  expect(JSON.stringify(stored)).not.toContain('the right password');
});

test('the e-mail is matched without regard to case; the session is stored hashed and ends 12 hours after sign-in, however busy', async () => {
  const result = await service.signIn('owner@EXAMPLE.com ', 'the right password');
  expect(result.ok).toBe(true);
  const session = (result as { session: string }).session;
  expect(JSON.stringify(await db.database.db.selectFrom('owner_sessions').selectAll().execute())).not.toContain(
    session,
  );
  expect((await service.user(session))?.id).toBe(owner.id);
  // Used every hour: never idle, still over at 12 hours.
  for (let hour = 1; hour < 12; hour++) {
    clock.t += 3600_000;
    expect((await service.user(session))?.id).toBe(owner.id);
  }
  clock.t += 3600_000 - 1000;
  expect((await service.user(session))?.id).toBe(owner.id);
  clock.t += 1000;
  expect(await service.user(session)).toBeNull();
});

test('a session unused for 2 hours ends; each use starts the 2 hours again', async () => {
  const session = ((await service.signIn('owner@example.com', 'the right password')) as { session: string }).session;
  clock.t += 2 * 3600_000 - 1000;
  expect((await service.user(session))?.id).toBe(owner.id);
  clock.t += 2 * 3600_000 - 1000;
  const auth = await service.authenticate(session);
  expect(auth?.user.id).toBe(owner.id);
  expect(auth?.session).toBeTruthy();
  clock.t += 2 * 3600_000;
  expect(await service.user(session)).toBeNull();
  expect(await service.authenticate(session)).toBeNull();
});

test('sign out everywhere ends every session of the user', async () => {
  const a = ((await service.signIn('owner@example.com', 'the right password')) as { session: string }).session;
  const b = ((await service.signIn('owner@example.com', 'the right password')) as { session: string }).session;
  await service.signOutEverywhere(owner);
  expect(await service.user(a)).toBeNull();
  expect(await service.user(b)).toBeNull();
});

test('signing out and a new password both end a session', async () => {
  const first = (await service.signIn('owner@example.com', 'the right password')) as { session: string };
  await service.signOut(first.session);
  expect(await service.user(first.session)).toBeNull();
  const second = (await service.signIn('owner@example.com', 'the right password')) as { session: string };
  await service.setPassword(owner, 'another right password');
  expect(await service.user(second.session)).toBeNull();
  expect((await service.signIn('owner@example.com', 'the right password')).ok).toBe(false);
  await service.setPassword(owner, 'the right password');
});

test('five wrong passwords lock the e-mail for the rest of the 15-minute window', async () => {
  for (let i = 0; i < 5; i++)
    expect(await service.signIn('owner@example.com', `wrong ${i}`)).toEqual({ ok: false, problem: 'invalid' });
  const locked = await service.signIn('owner@example.com', 'the right password');
  expect(locked).toMatchObject({ ok: false, problem: 'throttled' });
  clock.t += 15 * 60_000;
  expect((await service.signIn('owner@example.com', 'the right password')).ok).toBe(true);
});

test('failure windows of e-mails nobody uses are forgotten after a day', async () => {
  for (let i = 0; i < 20; i++) await service.signIn(`sprayed-${i}@example.com`, 'guess');
  const count = async () => (await db.database.db.selectFrom('auth_throttle').select('key').execute()).length;
  expect(await count()).toBeGreaterThanOrEqual(20);
  clock.t += 24 * 3600_000 + 1000;
  await service.signIn('someone-new@example.com', 'guess');
  expect(await count()).toBe(1);
});

test('short passwords are refused; an e-mail signs in to one account only', async () => {
  await expect(service.setPassword(owner, 'short')).rejects.toThrow(/at least 10/);
  const { owner: twin } = await new AccountsService(db.store).create('owner@example.com');
  const refused = await service.setPassword(twin, 'a password for the twin').catch((e) => e);
  expect(refused).toBeInstanceOf(AppError);
  expect(refused.message).toMatch(/already signs in to another account/);
});

describe.each(['sqlite', 'postgres'] as const)('concurrent wrong passwords for one e-mail (%s)', (dialect) => {
  test('24 at once: five are checked, the others throttled before any hash is computed; the right one afterwards too', async () => {
    const store = await openTestDatabase(dialect);
    try {
      const now = { t: Date.UTC(2031, 0, 1) };
      const signIn = new SignInService(store.store, { now: () => now.t });
      const { owner: user } = await new AccountsService(store.store).create('burst@example.com');
      await signIn.setPassword(user, 'the right password');
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) => signIn.signIn('burst@example.com', `wrong guess ${i}`)),
      );
      expect(results.filter((r) => !r.ok && r.problem === 'invalid')).toHaveLength(5);
      expect(results.filter((r) => !r.ok && r.problem === 'throttled')).toHaveLength(19);
      expect(await signIn.signIn('BURST@example.com', 'the right password')).toMatchObject({
        ok: false,
        problem: 'throttled',
        retryAfterSeconds: 15 * 60,
      });
      now.t += 15 * 60_000;
      expect((await signIn.signIn('burst@example.com', 'the right password')).ok).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe('the first-run set-up link', () => {
  const secretKey = Buffer.alloc(32, 7);

  test('works once, within 24 hours, only while nobody has a password', async () => {
    const fresh = await openTestDatabase('sqlite');
    try {
      const setup = new SignInService(fresh.store, { now: () => clock.t, secretKey });
      const { owner: first } = await new AccountsService(fresh.store).create('first@example.com');
      expect(await setup.firstRun()).toBe(true);
      const token = (await setup.setupToken(first))!;
      expect(token).toMatch(/^[\w-]+\.[\w-]+$/);

      // Signed with this server's secret: another key's token, or a changed one, is refused.
      const other = new SignInService(fresh.store, { now: () => clock.t, secretKey: Buffer.alloc(32, 8) });
      await expect(other.completeSetup(token, 'a good first password')).rejects.toMatchObject({
        code: 'SETUP_LINK_NOT_VALID',
      });
      await expect(setup.completeSetup(`${token}x`, 'a good first password')).rejects.toMatchObject({
        code: 'SETUP_LINK_NOT_VALID',
      });
      // A too short password changes nothing and leaves the link usable.
      await expect(setup.completeSetup(token, 'short')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });

      const done = await setup.completeSetup(token, 'a good first password');
      expect(done.user.id).toBe(first.id);
      expect((await setup.user(done.session))?.id).toBe(first.id);
      expect((await setup.signIn('first@example.com', 'a good first password')).ok).toBe(true);
      expect(await setup.firstRun()).toBe(false);
      // Used: refused, and no new link is made now that a password exists.
      await expect(setup.completeSetup(token, 'another password here')).rejects.toMatchObject({
        code: 'SETUP_LINK_NOT_VALID',
      });
      expect(await setup.setupToken(first)).toBeNull();
    } finally {
      await fresh.close();
    }
  });

  test('expires after 24 hours', async () => {
    const fresh = await openTestDatabase('sqlite');
    try {
      const setup = new SignInService(fresh.store, { now: () => clock.t, secretKey });
      const { owner: first } = await new AccountsService(fresh.store).create('late@example.com');
      const token = (await setup.setupToken(first))!;
      clock.t += 24 * 3600_000;
      await expect(setup.completeSetup(token, 'a good first password')).rejects.toMatchObject({
        code: 'SETUP_LINK_NOT_VALID',
      });
      expect(await setup.firstRun()).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  test('two uses at once: exactly one sets the password', async () => {
    const fresh = await openTestDatabase('sqlite');
    try {
      const setup = new SignInService(fresh.store, { now: () => clock.t, secretKey });
      const { owner: first } = await new AccountsService(fresh.store).create('race@example.com');
      const token = (await setup.setupToken(first))!;
      const results = await Promise.allSettled([
        setup.completeSetup(token, 'the first tab password'),
        setup.completeSetup(token, 'the second tab password'),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });
});
