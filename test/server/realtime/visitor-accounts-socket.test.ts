/**
 * Visitor accounts over real sockets, with a real SMTP server: the e-mail code flow (the code only
 * in the mailbox, one success for two concurrent verifications, history on a second device),
 * leads from the widget, host-page identity at session start, a knowledge-gap answer arriving
 * live, and logout.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type {
  ConversationsFrame,
  ErrorFrame,
  MessageCreatedFrame,
  AckFrame,
  VerifiedFrame,
  LeadSavedFrame,
  OtpSentFrame,
} from '../../../shared/protocol.js';
import { CLOSE } from '../../../shared/protocol.js';
import { recordGap } from '../../../server/domain/resources/knowledge-gaps.js';
import { signIdentity } from '../../../server/domain/visitors/identity.js';
import { SessionTokens } from '../../../server/domain/widget/sessions.js';
import { codeOf, startSmtpInbox, type SmtpInbox } from '../../helpers/smtp.js';
import {
  chatbotWithKnowledge,
  connect,
  type LiveApp,
  newSession,
  startLiveApp,
  visitor,
} from '../../helpers/widget.js';

let t: LiveApp;
let inbox: SmtpInbox;
let chatbotId: string;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  t = await startLiveApp({ env: { SMTP_URL: inbox.url } });
  chatbotId = await chatbotWithKnowledge(t);
});
afterAll(async () => {
  await t?.close();
  await inbox?.close();
});

/** A new visitor with one conversation (a message sent and acknowledged). */
async function visitorWithConversation(text = 'When are refunds paid?') {
  const session = await newSession(t, chatbotId);
  const c = await visitor(t.url, session.token);
  c.send({ type: 'message.send', clientId: `m-${Math.random()}`, text });
  const ack = await c.waitFor<AckFrame>((f) => f.type === 'ack');
  await c.waitFor((f) => f.type === 'answer.done');
  return { session, c, conversationId: ack.conversationId };
}

describe('e-mail codes over the socket', () => {
  test('the code reaches only the mailbox; verifying binds the session; a second device sees the history', async () => {
    const email = 'ada@example.com';
    const phone = await visitorWithConversation();
    phone.c.send({ type: 'otp.request', email, name: 'Ada' });
    const sent = await phone.c.waitFor<OtpSentFrame>((f) => f.type === 'otp.sent');
    expect(sent).toEqual({ type: 'otp.sent', email, resendAfter: 60 });
    const code = codeOf(await inbox.next(email));
    expect(JSON.stringify(phone.c.frames)).not.toContain(code);

    phone.c.send({ type: 'otp.verify', email, code });
    const verified = await phone.c.waitFor<VerifiedFrame>((f) => f.type === 'verified');
    expect(verified.visitor).toMatchObject({ id: phone.session.visitor.id, email, name: 'Ada', verified: true });
    expect(verified.token).not.toBe(phone.session.token);

    // Another device: its own question, then the same address verified there.
    const laptop = await visitorWithConversation('Is shipping back free?');
    await t.database.db
      .updateTable('visitor_codes')
      .set({ created_at: new Date(Date.now() - 120_000).toISOString() })
      .where('email', '=', email)
      .execute();
    laptop.c.send({ type: 'otp.request', email });
    await laptop.c.waitFor((f) => f.type === 'otp.sent');
    laptop.c.send({ type: 'otp.verify', email, code: codeOf(await inbox.next(email, 1)) });
    const second = await laptop.c.waitFor<VerifiedFrame>((f) => f.type === 'verified');
    expect(second.visitor.id).toBe(verified.visitor.id);
    laptop.c.send({ type: 'conversations.list' });
    const list = await laptop.c.waitFor<ConversationsFrame>((f) => f.type === 'conversations');
    expect(list.items.map((i) => i.id).sort()).toEqual([phone.conversationId, laptop.conversationId].sort());
    phone.c.close();
    laptop.c.close();
  });

  test('two concurrent verifications of one code on two sockets: exactly one is verified', async () => {
    const email = 'twice@example.com';
    const a = await visitor(t.url, (await newSession(t, chatbotId)).token);
    const b = await visitor(t.url, (await newSession(t, chatbotId)).token);
    a.send({ type: 'otp.request', email });
    await a.waitFor((f) => f.type === 'otp.sent');
    const code = codeOf(await inbox.next(email));
    a.send({ type: 'otp.verify', email, code });
    b.send({ type: 'otp.verify', email, code });
    const outcome = async (c: typeof a) =>
      (await c.waitFor((f) => f.type === 'verified' || (f.type === 'error' && f.ref?.type === 'otp.verify'))).type;
    const results = await Promise.all([outcome(a), outcome(b)]);
    expect(results.sort()).toEqual(['error', 'verified']);
    const error = [...a.frames, ...b.frames].find((f) => f.type === 'error') as ErrorFrame;
    expect(error.code).toBe('CODE_NOT_VALID');
    a.close();
    b.close();
  });
});

describe('leads, identity, gap answers and logout over the socket', () => {
  test('lead.submit stores a v2 lead and answers lead.saved', async () => {
    const { c, conversationId } = await visitorWithConversation();
    c.send({ type: 'lead.submit', conversationId, email: 'lead@example.com', name: 'Lee' });
    const saved = await c.waitFor<LeadSavedFrame>((f) => f.type === 'lead.saved');
    expect(saved.visitor).toMatchObject({ email: 'lead@example.com', name: 'Lee', verified: false });
    const leads = (await t.call('GET', `/api/v2/chatbots/${chatbotId}/leads`, t.ownerToken)).body.data.leads;
    expect(leads.find((l: { email: string }) => l.email === 'lead@example.com')).toMatchObject({
      threadId: conversationId,
      source: 'widget',
    });
    c.send({ type: 'lead.submit', email: 'nope' });
    const bad = await c.waitFor<ErrorFrame>((f) => f.type === 'error' && f.ref?.type === 'lead.submit');
    expect(bad.code).toBe('VALIDATION_FAILED');
    c.close();
  });

  test('lead.submit in a conversation has the rules of a lead: an empty form or a missing required field is refused and changes nothing', async () => {
    const id = await chatbotWithKnowledge(t, {
      'user-data': { leadFields: [{ key: 'company', label: 'Company', type: 'text', required: true }] },
    });
    const session = await newSession(t, id);
    const c = await visitor(t.url, session.token);
    c.send({ type: 'message.send', clientId: 'q', text: 'When are refunds paid?' });
    const { conversationId } = await c.waitFor<AckFrame>((f) => f.type === 'ack');
    await c.waitFor((f) => f.type === 'answer.done');
    const state = async () => [
      (
        await t.database.db
          .selectFrom('conversations')
          .select('seq')
          .where('id', '=', conversationId)
          .executeTakeFirstOrThrow()
      ).seq,
      (await t.database.db.selectFrom('leads').select('id').where('chatbot_id', '=', id).execute()).length,
      await t.database.db
        .selectFrom('chat_users')
        .selectAll()
        .where('id', '=', session.visitor.id)
        .executeTakeFirstOrThrow(),
    ];
    const before = await state();
    for (const bad of [{}, { email: 'lee@example.com' }, { name: 'Lee', customFields: { company: ' ' } }]) {
      const from = c.frames.length;
      c.send({ type: 'lead.submit', conversationId, ...bad });
      const answer = await c.waitFor(
        (f) => f.type === 'lead.saved' || (f.type === 'error' && f.ref?.type === 'lead.submit'),
        10_000,
        from,
      );
      expect(answer, JSON.stringify(bad)).toMatchObject({
        type: 'error',
        code: 'VALIDATION_FAILED',
        details: [{ path: ['customFields', 'company'] }],
      });
    }
    expect(await state()).toEqual(before);
    c.send({ type: 'lead.submit', conversationId, email: 'lee@example.com', customFields: { company: 'Acme' } });
    await c.waitFor<LeadSavedFrame>((f) => f.type === 'lead.saved');
    c.close();
  });

  test('a signed identity opens a verified session; a wrong signature is refused', async () => {
    const secret = (await t.call('POST', `/api/v2/chatbots/${chatbotId}/identity-secret`, t.ownerToken)).body.data
      .identitySecret.secret as string;
    const email = 'signed@example.com';
    const ok = await newSession(t, chatbotId, { identity: { email, signature: signIdentity(secret, email) } });
    expect(ok.visitor).toMatchObject({ email, verified: true });
    const visitors = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('chat_users')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await visitors();
    const refused = await t.call('POST', `/api/widget/${chatbotId}/session`, null, {
      identity: { email, signature: signIdentity('guess', email) },
    });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('IDENTITY_NOT_VALID');
    expect(JSON.stringify(refused.body)).not.toContain(ok.visitor.id);
    // A refused claim makes no visitor, and one renewing a session leaves that visitor as it was.
    const renewed = await t.call('POST', `/api/widget/${chatbotId}/session`, null, {
      renew: ok.token,
      locale: 'de',
      identity: { email, signature: signIdentity('guess', email) },
    });
    expect(renewed.status).toBe(401);
    expect(await visitors()).toBe(before);
    const visitor = await t.database.db
      .selectFrom('chat_users')
      .select('metadata')
      .where('id', '=', ok.visitor.id)
      .executeTakeFirstOrThrow();
    expect(String(visitor.metadata)).not.toContain('"de"');
  });

  test('rotating the identity secret ends the sessions its claims opened: no renewal, no socket, open ones closed; other sessions go on', async () => {
    const id = await chatbotWithKnowledge(t);
    const rotate = async () =>
      (await t.call('POST', `/api/v2/chatbots/${id}/identity-secret`, t.ownerToken)).body.data.identitySecret
        .secret as string;
    const email = 'leaked@example.com';
    const old = await rotate();
    // Made two minutes ago.
    await t.database.db
      .updateTable('identity_secrets')
      .set({ created_at: new Date(Date.now() - 120_000).toISOString() })
      .where('chatbot_id', '=', id)
      .execute();
    const identified = await newSession(t, id, { identity: { email, signature: signIdentity(old, email) } });
    expect(identified.visitor).toMatchObject({ email, verified: true });
    // The same kind of session, opened by a claim a minute before the rotation.
    const aMinuteAgo = new SessionTokens(t.config.secretKey, () => Math.floor(Date.now() / 1000) - 60);
    const earlier = aMinuteAgo.issue(
      id,
      identified.visitor.id,
      undefined,
      t.app.services.widget.tokens.read(identified.token)!.secretId,
    ).token;
    const renewed = await newSession(t, id, { renew: earlier });
    expect(t.app.services.widget.tokens.read(renewed.token)?.via).toBe('identity');
    const anonymous = await newSession(t, id);
    const open = await visitor(t.url, earlier);

    const fresh = await rotate();
    // The socket it opened ends at its next frame.
    open.send({ type: 'conversations.list' });
    expect((await open.waitClosed()).code).toBe(CLOSE.sessionInvalid);
    const refused = await t.call('POST', `/api/widget/${id}/session`, null, { renew: earlier });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('SESSION_NOT_VALID');
    const socket = await connect(t.url, earlier);
    expect((await socket.waitClosed()).code).toBe(CLOSE.sessionInvalid);
    expect((await newSession(t, id, { renew: anonymous.token })).visitor.id).toBe(anonymous.visitor.id);
    // The host page signs with the new secret: the same visitor, history kept, and renewable.
    const again = await newSession(t, id, { identity: { email, signature: signIdentity(fresh, email) } });
    expect(again.visitor.id).toBe(identified.visitor.id);
    expect((await newSession(t, id, { renew: again.token })).visitor.id).toBe(identified.visitor.id);
  });

  test('the answer to a knowledge gap reaches the connected visitor live, and no mail goes out', async () => {
    const email = 'live@example.com';
    const { c, conversationId } = await visitorWithConversation('Do you ship to the moon?');
    c.send({ type: 'otp.request', email });
    await c.waitFor((f) => f.type === 'otp.sent');
    c.send({ type: 'otp.verify', email, code: codeOf(await inbox.next(email)) });
    await c.waitFor((f) => f.type === 'verified');
    const gap = await recordGap(t.app.services.store, {
      chatbotId,
      conversationId,
      messageId: null,
      question: 'Do you ship to the moon?',
    });
    const res = await t.call('POST', `/api/v2/chatbots/${chatbotId}/knowledge-gaps/${gap.id}/answer`, t.ownerToken, {
      answer: 'Not yet, sorry.',
    });
    expect(res.status).toBe(200);
    const live = await c.waitFor<MessageCreatedFrame>(
      (f) => f.type === 'message.created' && f.message.text === 'Not yet, sorry.',
    );
    expect(live.message.author).toBe('agent');
    await t.app.services.queue.drain();
    expect(inbox.to(email)).toHaveLength(1); // the code mail only
    c.close();
  });

  test('logout answers logged_out, closes the socket, and the token no longer opens one', async () => {
    const session = await newSession(t, chatbotId);
    const c = await visitor(t.url, session.token);
    c.send({ type: 'logout' });
    await c.waitFor((f) => f.type === 'logged_out');
    expect((await c.waitClosed()).code).toBe(CLOSE.loggedOut);
    const again = await connect(t.url, session.token);
    again.send({ type: 'hello', v: 1 });
    const closed = await again.waitClosed();
    expect(closed.code).toBe(CLOSE.sessionInvalid);
  });
});
