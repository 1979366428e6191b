/**
 * E-mail codes over a real SMTP server, on SQLite and PostgreSQL: the code reaches the mailbox and
 * never a response, is used once (two concurrent verifications: exactly one succeeds), dies after
 * 5 wrong tries, 10 minutes or a newer code, sends are throttled per address, IP and chatbot, and
 * a verified address is one visitor whose history every device that proves it sees.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { VisitorAccounts } from '../../../../server/domain/visitors/accounts.js';
import { createMailer } from '../../../../server/adapters/mail.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';
import { freshAccount } from '../../../helpers/resources.js';
import { codeOf, startSmtpInbox, type SmtpInbox } from '../../../helpers/smtp.js';

let n = 0;
const address = () => `visitor${++n}-${Date.now().toString(36)}@example.com`;

describeOnDialects('visitor e-mail codes on %s', (dialect) => {
  let t: TestApp;
  let inbox: SmtpInbox;
  let chatbotId: string;
  let token: string;
  const accounts = () => t.app.services.visitors.accounts;

  beforeAll(async () => {
    inbox = await startSmtpInbox();
    t = await buildTestApp({ dialect, env: { SMTP_URL: inbox.url } });
    ({ chatbotId, token } = await freshAccount(t, 'Helpdesk'));
  });
  afterAll(async () => {
    await t?.close();
    await inbox?.close();
  });

  /** An anonymous visitor with one conversation (what a widget session starts with). */
  async function anonymousVisitor(name = 'Anon') {
    const res = await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations`, token, { visitor: { name } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return {
      chatUserId: res.body.data.conversation.chatUserId as string,
      conversationId: res.body.data.conversation.threadId as string,
    };
  }

  test('the code arrives by mail, never in the answer, and works once', async () => {
    const email = address();
    const sent = await accounts().requestCode({ chatbotId, email: email.toUpperCase(), ip: '198.51.100.1' });
    expect(sent).toEqual({ email, resendAfter: 60 });
    const mail = await inbox.next(email);
    const code = codeOf(mail);
    expect(mail.subject).toBe('Your Helpdesk code');
    expect(JSON.stringify(sent)).not.toContain(code);
    // Stored only as an HMAC.
    const rows = await t.database.db.selectFrom('visitor_codes').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(code);

    const { visitor } = await accounts().verifyCode({ chatbotId, email, code });
    expect(visitor).toMatchObject({ email, verified: true });
    await expect(accounts().verifyCode({ chatbotId, email, code })).rejects.toMatchObject({ code: 'CODE_NOT_VALID' });
  });

  test('two concurrent verifications of one code: exactly one succeeds', async () => {
    for (let round = 0; round < 3; round++) {
      const email = address();
      await accounts().requestCode({ chatbotId, email, ip: `198.51.100.${10 + round}` });
      const code = codeOf(await inbox.next(email));
      const results = await Promise.allSettled([
        accounts().verifyCode({ chatbotId, email, code }),
        accounts().verifyCode({ chatbotId, email, code }),
        accounts().verifyCode({ chatbotId, email, code }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results.filter((r) => r.status === 'rejected'))
        expect((r as PromiseRejectedResult).reason.code).toBe('CODE_NOT_VALID');
    }
  });

  test('five wrong tries void the code, even for the right code afterwards', async () => {
    const email = address();
    await accounts().requestCode({ chatbotId, email, ip: '198.51.100.20' });
    const code = codeOf(await inbox.next(email));
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++)
      await expect(accounts().verifyCode({ chatbotId, email, code: wrong })).rejects.toMatchObject({
        code: 'CODE_NOT_VALID',
      });
    await expect(accounts().verifyCode({ chatbotId, email, code })).rejects.toMatchObject({ code: 'CODE_NOT_VALID' });
  });

  test('a burst of concurrent guesses gets no more than five compared', async () => {
    const email = address();
    await accounts().requestCode({ chatbotId, email, ip: '198.51.100.21' });
    const code = codeOf(await inbox.next(email));
    const wrong = (i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');
    const burst = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => accounts().verifyCode({ chatbotId, email, code: wrong(i) })),
    );
    expect(burst.every((r) => r.status === 'rejected' && r.reason.code === 'CODE_NOT_VALID')).toBe(true);
    const row = await t.database.db
      .selectFrom('visitor_codes')
      .select('attempts')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(Number(row.attempts)).toBe(5);
    await expect(accounts().verifyCode({ chatbotId, email, code })).rejects.toMatchObject({ code: 'CODE_NOT_VALID' });

    // Four wrong guesses and the right one at once: five tries, the right one among them succeeds.
    const other = address();
    await accounts().requestCode({ chatbotId, email: other, ip: '198.51.100.22' });
    const good = codeOf(await inbox.next(other));
    const miss = (i: number) => String((Number(good) + 1 + i) % 1_000_000).padStart(6, '0');
    const mixed = await Promise.allSettled(
      [0, 1, 2, 3]
        .map((i) => accounts().verifyCode({ chatbotId, email: other, code: miss(i) }))
        .concat(accounts().verifyCode({ chatbotId, email: other, code: good })),
    );
    expect(mixed.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'fulfilled']);
  });

  test('an expired code and a replaced code do not work; the newest does', async () => {
    const email = address();
    // resendAfter 0 so the second code can follow at once; the same store and mail server.
    const direct = new VisitorAccounts(
      t.app.services.store,
      createMailer({ smtpUrl: inbox.url, folder: '', from: 'test@parley.test' }),
      t.config.secretKey,
      { resendAfterMs: 0 },
    );
    await direct.requestCode({ chatbotId, email, ip: '198.51.100.30' });
    const first = codeOf(await inbox.next(email));
    await direct.requestCode({ chatbotId, email, ip: '198.51.100.30' });
    const second = codeOf(await inbox.next(email, 1));
    if (first !== second)
      await expect(direct.verifyCode({ chatbotId, email, code: first })).rejects.toMatchObject({
        code: 'CODE_NOT_VALID',
      });

    await t.database.db
      .updateTable('visitor_codes')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('email', '=', email)
      .execute();
    await expect(direct.verifyCode({ chatbotId, email, code: second })).rejects.toMatchObject({
      code: 'CODE_NOT_VALID',
    });

    await direct.requestCode({ chatbotId, email, ip: '198.51.100.30' });
    const third = codeOf(await inbox.next(email, 2));
    await expect(direct.verifyCode({ chatbotId, email, code: third })).resolves.toMatchObject({
      visitor: { email, verified: true },
    });
  });

  test('sends are throttled per address, per IP and per chatbot', async () => {
    const email = address();
    await accounts().requestCode({ chatbotId, email, ip: '198.51.100.40' });
    const again = await accounts()
      .requestCode({ chatbotId, email, ip: '198.51.100.41' })
      .catch((e) => e);
    expect(again).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(Number(again.extra.headers['retry-after'])).toBeGreaterThan(0);

    const mailer = createMailer({ smtpUrl: inbox.url, folder: '', from: 'test@parley.test' });
    const perIp = new VisitorAccounts(t.app.services.store, mailer, t.config.secretKey, { resendAfterMs: 0, perIp: 2 });
    await perIp.requestCode({ chatbotId, email: address(), ip: '203.0.113.7' });
    await perIp.requestCode({ chatbotId, email: address(), ip: '203.0.113.7' });
    await expect(perIp.requestCode({ chatbotId, email: address(), ip: '203.0.113.7' })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    await expect(perIp.requestCode({ chatbotId, email: address(), ip: '203.0.113.8' })).resolves.toBeTruthy();

    const other = await freshAccount(t, 'Other');
    const perChatbot = new VisitorAccounts(t.app.services.store, mailer, t.config.secretKey, {
      resendAfterMs: 0,
      perChatbot: 2,
    });
    await perChatbot.requestCode({ chatbotId: other.chatbotId, email: address(), ip: '203.0.113.20' });
    await perChatbot.requestCode({ chatbotId: other.chatbotId, email: address(), ip: '203.0.113.21' });
    await expect(
      perChatbot.requestCode({ chatbotId: other.chatbotId, email: address(), ip: '203.0.113.22' }),
    ).rejects.toMatchObject({ code: 'RATE_LIMITED' });

    const perAddress = new VisitorAccounts(t.app.services.store, mailer, t.config.secretKey, {
      resendAfterMs: 0,
      perAddress: 1,
    });
    const once = address();
    await perAddress.requestCode({ chatbotId: other.chatbotId, email: once, ip: '203.0.113.30' });
    await expect(
      perAddress.requestCode({ chatbotId: other.chatbotId, email: once, ip: '203.0.113.31' }),
    ).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });

  test('known and unknown addresses get the same answer', async () => {
    const known = address();
    await accounts().requestCode({ chatbotId, email: known, ip: '198.51.100.50' });
    await accounts().verifyCode({ chatbotId, email: known, code: codeOf(await inbox.next(known)) });
    await t.database.db
      .updateTable('visitor_codes')
      .set({ created_at: new Date(Date.now() - 120_000).toISOString() })
      .where('email', '=', known)
      .execute();
    const unknown = address();
    const a = await accounts().requestCode({ chatbotId, email: known, ip: '198.51.100.51' });
    const b = await accounts().requestCode({ chatbotId, email: unknown, ip: '198.51.100.52' });
    expect({ ...a, email: 'x' }).toEqual({ ...b, email: 'x' });
    const wrongKnown = await accounts()
      .verifyCode({ chatbotId, email: known, code: '123456' })
      .catch((e) => e);
    const wrongUnknown = await accounts()
      .verifyCode({ chatbotId, email: address(), code: '123456' })
      .catch((e) => e);
    expect([wrongKnown.code, wrongKnown.message]).toEqual([wrongUnknown.code, wrongUnknown.message]);
  });

  test('bad input is refused with the spec envelope codes and changes nothing', async () => {
    await expect(
      accounts().requestCode({ chatbotId, email: 'not-an-address', ip: '198.51.100.60' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(
      accounts().requestCode({ chatbotId: 'nope', email: address(), ip: '198.51.100.60' }),
    ).rejects.toMatchObject({ code: 'CHATBOT_NOT_FOUND' });
    await expect(accounts().verifyCode({ chatbotId, email: address(), code: 'abc' })).rejects.toMatchObject({
      code: 'CODE_NOT_VALID',
    });
  });

  test('a verified address is one visitor: every device that proves it sees the same history', async () => {
    const email = address();
    const phoneA = await anonymousVisitor('On phone');
    await accounts().requestCode({ chatbotId, email, name: 'Ada', ip: '198.51.100.70' });
    const a = await accounts().verifyCode({
      chatbotId,
      email,
      code: codeOf(await inbox.next(email)),
      currentChatUserId: phoneA.chatUserId,
    });
    expect(a.visitor).toMatchObject({ id: phoneA.chatUserId, email, name: 'Ada', verified: true });

    // A second device: its own anonymous conversation joins the verified history.
    const laptop = await anonymousVisitor('On laptop');
    await t.database.db
      .updateTable('visitor_codes')
      .set({ created_at: new Date(Date.now() - 120_000).toISOString() })
      .where('email', '=', email)
      .execute();
    await accounts().requestCode({ chatbotId, email, ip: '198.51.100.71' });
    const b = await accounts().verifyCode({
      chatbotId,
      email,
      code: codeOf(await inbox.next(email, 1)),
      currentChatUserId: laptop.chatUserId,
    });
    expect(b.visitor.id).toBe(a.visitor.id);
    const list = await accounts().conversations({ id: chatbotId, settings: {} }, b.visitor.id);
    expect(list.map((c) => c.id).sort()).toEqual([phoneA.conversationId, laptop.conversationId].sort());
    expect(list[0].state).toMatchObject({ mode: 'AI', status: 'OPEN', escalated: false });

    // Someone who merely typed the address (unverified) is not merged into it.
    const typed = await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations`, token, {
      visitor: { email, name: 'Impostor' },
    });
    expect(typed.status).toBe(201);
    const again = await accounts().conversations({ id: chatbotId, settings: {} }, a.visitor.id);
    expect(again.map((c) => c.id)).not.toContain(typed.body.data.conversation.threadId);
  });

  test('logout ends a session on every instance until it would have expired', async () => {
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    expect(await accounts().isLoggedOut('session-1')).toBe(false);
    await accounts().logout({ id: 'session-1', chatUserId: 'someone', expiresAt });
    await accounts().logout({ id: 'session-1', chatUserId: 'someone', expiresAt });
    expect(await accounts().isLoggedOut('session-1')).toBe(true);
  });
});

describe('without SMTP_URL', () => {
  test('mails are written to $DATA_DIR/mail as .eml files, the log says where and never holds the code', async () => {
    const t = await buildTestApp();
    try {
      const { chatbotId } = await freshAccount(t, 'Files');
      const logged: unknown[] = [];
      const mailer = createMailer({ ...t.config.mail, log: { info: (obj, msg) => logged.push([obj, msg]) } });
      const accounts = new VisitorAccounts(t.app.services.store, mailer, t.config.secretKey);
      await accounts.requestCode({ chatbotId, email: 'files@example.com', ip: '198.51.100.90' });
      const { readdirSync, readFileSync } = await import('node:fs');
      const folder = `${t.dataDir}/mail`;
      const files = readdirSync(folder).filter((f) => f.endsWith('.eml'));
      expect(files).toHaveLength(1);
      const raw = readFileSync(`${folder}/${files[0]}`, 'utf8');
      expect(raw).toMatch(/^To: files@example\.com$/m);
      const code = /\b(\d{6})\b/.exec(
        raw
          .split(/\r?\n\r?\n/)
          .slice(1)
          .join('\n'),
      )![1];
      expect(JSON.stringify(logged)).toContain(folder);
      expect(JSON.stringify(logged)).not.toContain(code);
      await accounts.verifyCode({ chatbotId, email: 'files@example.com', code });
    } finally {
      await t.close();
    }
  });
});
