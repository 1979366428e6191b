/**
 * Widget leads (stored as v2 leads, the owner mailed unless disableLeadNotifications) and the
 * knowledge-gap loop (the team's answer posted once into the conversation, and mailed once to a
 * verified visitor who is away, in the chatbot's locale), with a real SMTP server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { recordGap } from '../../../../server/domain/resources/knowledge-gaps.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';
import { freshAccount } from '../../../helpers/resources.js';
import { startSmtpInbox, type SmtpInbox } from '../../../helpers/smtp.js';

describeOnDialects('on %s', (dialect) => {
  let t: TestApp;
  let inbox: SmtpInbox;
  beforeAll(async () => {
    inbox = await startSmtpInbox();
    t = await buildTestApp({ dialect, env: { SMTP_URL: inbox.url } });
  });
  afterAll(async () => {
    await t?.close();
    await inbox?.close();
  });

  const visitors = () => t.app.services.visitors;
  const settle = () => t.app.services.queue.drain();

  async function ownerEmail(accountId: string) {
    return (await t.app.services.store.users.owner(accountId))!.email;
  }

  async function conversation(chatbotId: string, token: string, visitor: Record<string, unknown> = { name: 'Anon' }) {
    const res = await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations`, token, { visitor });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return {
      chatUserId: res.body.data.conversation.chatUserId as string,
      conversationId: res.body.data.conversation.threadId as string,
    };
  }

  describe('widget leads', () => {
    test('before the chat: a v2 lead with source widget, the visitor updated, the owner mailed', async () => {
      const { accountId, token, chatbotId } = await freshAccount(t, 'Shop');
      const settings = await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/user-data`, token, {
        collectUserDetails: 'BEFORE_CONVERSATION',
        leadFields: [{ key: 'company', label: 'Company', type: 'text', required: true }],
      });
      expect(settings.status, JSON.stringify(settings.body)).toBe(200);
      const { chatUserId } = await conversation(chatbotId, token);

      const bad = await visitors()
        .leads.submit({ chatbotId, chatUserId, email: 'not-an-address' })
        .catch((e) => e);
      expect(bad.code).toBe('VALIDATION_FAILED');
      expect(bad.extra.details.map((d: { path: string[] }) => d.path.join('.')).sort()).toEqual([
        'customFields.company',
        'email',
      ]);
      expect((await t.call('GET', `/api/v2/chatbots/${chatbotId}/leads`, token)).body.data.leads).toEqual([]);

      const saved = await visitors().leads.submit({
        chatbotId,
        chatUserId,
        email: 'Lin@Example.com',
        name: 'Lin',
        customFields: { company: 'Acme' },
      });
      expect(saved.visitor).toMatchObject({ id: chatUserId, email: 'lin@example.com', name: 'Lin', verified: false });
      const leads = (await t.call('GET', `/api/v2/chatbots/${chatbotId}/leads`, token)).body.data.leads;
      expect(leads).toHaveLength(1);
      expect(leads[0]).toMatchObject({
        id: saved.leadId,
        chatUserId,
        threadId: null,
        email: 'lin@example.com',
        name: 'Lin',
        customFields: { company: 'Acme' },
        source: 'widget',
      });

      const mail = await inbox.next(await ownerEmail(accountId));
      expect(mail.subject).toBe('New lead from Shop');
      expect(mail.text).toContain('lin@example.com');
      expect(mail.text).toContain('company: Acme');
    });

    test("in a conversation: a lead.captured event with its seq, one notice; another visitor's conversation is not found", async () => {
      const { accountId, token, chatbotId } = await freshAccount(t, 'Shop 2');
      const mine = await conversation(chatbotId, token);
      const theirs = await conversation(chatbotId, token);
      const before = (await t.app.services.store.conversations.get(mine.conversationId))!.seq;
      const saved = await visitors().leads.submit({
        chatbotId,
        chatUserId: mine.chatUserId,
        conversationId: mine.conversationId,
        phone: '+1 555 0100',
      });
      const events = await t.app.services.conversations.reads.events(mine.conversationId, before);
      expect(events.map((e) => [e.type, e.seq, e.payload.leadId])).toEqual([
        ['lead.captured', before + 1, saved.leadId],
      ]);
      await expect(
        visitors().leads.submit({
          chatbotId,
          chatUserId: mine.chatUserId,
          conversationId: theirs.conversationId,
          phone: '+1 555 0100',
        }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await settle();
      const notices = inbox.to(await ownerEmail(accountId));
      expect(notices).toHaveLength(1);
      expect(notices[0].text).toContain('+1 555 0100');
    });

    test('a name alone, left in a conversation, is a lead: stored, announced, and not announced with disableLeadNotifications', async () => {
      const { accountId, token, chatbotId } = await freshAccount(t, 'Names');
      await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/user-data`, token, {
        collectUserData: { name: true, phone: false },
      });
      const first = await conversation(chatbotId, token);
      const before = (await t.app.services.store.conversations.get(first.conversationId))!.seq;
      const saved = await visitors().leads.submit({
        chatbotId,
        chatUserId: first.chatUserId,
        conversationId: first.conversationId,
        name: 'Nora',
      });
      expect(saved.leadId).toBeTruthy();
      expect(saved.visitor.name).toBe('Nora');
      const events = await t.app.services.conversations.reads.events(first.conversationId, before);
      expect(events.map((e) => [e.type, e.payload.leadId])).toEqual([['lead.captured', saved.leadId]]);
      const leads = (await t.call('GET', `/api/v2/chatbots/${chatbotId}/leads`, token)).body.data.leads;
      expect(leads).toEqual([
        expect.objectContaining({
          id: saved.leadId,
          name: 'Nora',
          email: null,
          phone: null,
          threadId: first.conversationId,
          source: 'widget',
        }),
      ]);
      const mail = await inbox.next(await ownerEmail(accountId));
      expect(mail.text).toContain('Nora');

      await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/user-data`, token, {
        disableLeadNotifications: true,
      });
      const second = await conversation(chatbotId, token);
      const quiet = await visitors().leads.submit({
        chatbotId,
        chatUserId: second.chatUserId,
        conversationId: second.conversationId,
        name: 'Olaf',
      });
      expect(quiet.leadId).toBeTruthy();
      await settle();
      expect(inbox.to(await ownerEmail(accountId))).toHaveLength(1);
    });

    test('a lead captured through the v2 API is announced to the owner too', async () => {
      const { accountId, token, chatbotId } = await freshAccount(t, 'Api');
      await conversation(chatbotId, token, { email: 'api-lead@example.com' });
      const mail = await inbox.next(await ownerEmail(accountId));
      expect(mail.subject).toBe('New lead from Api');
      expect(mail.text).toContain('api-lead@example.com');
    });

    test('a verified visitor keeps the address they proved; the lead records what was typed', async () => {
      const { token, chatbotId } = await freshAccount(t, 'Shop 3');
      const c = await conversation(chatbotId, token);
      await visitors().accounts.bindVerified(chatbotId, 'proved@example.com', {}, c.chatUserId);
      const saved = await visitors().leads.submit({
        chatbotId,
        chatUserId: c.chatUserId,
        conversationId: c.conversationId,
        email: 'typed@example.com',
      });
      expect(saved.visitor.email).toBe('proved@example.com');
      const lead = (await t.call('GET', `/api/v2/chatbots/${chatbotId}/leads/${saved.leadId}`, token)).body.data.lead;
      expect(lead.email).toBe('typed@example.com');
    });

    test('disableLeadNotifications: the lead is stored and no mail goes out', async () => {
      const { accountId, token, chatbotId } = await freshAccount(t, 'Quiet');
      await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/user-data`, token, {
        disableLeadNotifications: true,
      });
      const { chatUserId } = await conversation(chatbotId, token);
      const saved = await visitors().leads.submit({ chatbotId, chatUserId, email: 'q@example.com' });
      expect(saved.leadId).toBeTruthy();
      await settle();
      expect(inbox.to(await ownerEmail(accountId))).toEqual([]);
    });
  });

  describe('knowledge-gap answers reach the visitor', () => {
    async function gapIn(chatbotId: string, conversationId: string, question = 'Do you ship to Norway?') {
      return recordGap(t.app.services.store, { chatbotId, conversationId, messageId: null, question });
    }
    const answer = (chatbotId: string, gapId: string, token: string, text: string) =>
      t.call('POST', `/api/v2/chatbots/${chatbotId}/knowledge-gaps/${gapId}/answer`, token, { answer: text });

    test("posted once into the conversation, mailed once in the chatbot's locale to a verified visitor who is away", async () => {
      const { token, chatbotId } = await freshAccount(t, 'Laden');
      await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/localization`, token, {
        localization: { locale: 'de' },
      });
      const c = await conversation(chatbotId, token);
      await visitors().accounts.bindVerified(chatbotId, 'kunde@example.com', {}, c.chatUserId);
      // The conversation was resolved meanwhile: the answer still arrives, and the condition stays.
      expect(
        (
          await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/conversations/${c.conversationId}`, token, {
            status: 'RESOLVED',
          })
        ).status,
      ).toBe(200);
      const gap = await gapIn(chatbotId, c.conversationId);
      const seqBefore = (await t.app.services.store.conversations.get(c.conversationId))!.seq;

      expect((await answer(chatbotId, gap.id, token, 'Ja, in 3 Tagen.')).status).toBe(200);
      const messages = (
        await t.call('GET', `/api/v2/chatbots/${chatbotId}/conversations/${c.conversationId}/messages`, token)
      ).body.data.messages;
      const posted = messages.filter((m: { text: string }) => m.text === 'Ja, in 3 Tagen.');
      expect(posted).toHaveLength(1);
      expect(posted[0]).toMatchObject({ author: 'agent', seq: seqBefore + 1 });
      const events = await t.app.services.conversations.reads.events(c.conversationId, seqBefore);
      expect(events.map((e) => [e.type, e.seq])).toEqual([['message.added', seqBefore + 1]]);
      expect((await t.app.services.store.conversations.get(c.conversationId))!.status).toBe('RESOLVED');

      const mail = await inbox.next('kunde@example.com');
      expect(mail.subject).toBe('Laden hat eine Antwort auf Ihre Frage');
      expect(mail.text).toContain('Do you ship to Norway?');
      expect(mail.text).toContain('Ja, in 3 Tagen.');

      // Answering again updates the custom response only.
      expect((await answer(chatbotId, gap.id, token, 'Ja, in 2 Tagen.')).status).toBe(200);
      await settle();
      const again = (
        await t.call('GET', `/api/v2/chatbots/${chatbotId}/conversations/${c.conversationId}/messages`, token)
      ).body.data.messages;
      expect(again.filter((m: { author: string }) => m.author === 'agent')).toHaveLength(1);
      expect(inbox.to('kunde@example.com')).toHaveLength(1);
    });

    test('two answers at once post one message', async () => {
      const { token, chatbotId } = await freshAccount(t, 'Race');
      const c = await conversation(chatbotId, token);
      const gap = await gapIn(chatbotId, c.conversationId);
      const results = await Promise.all([answer(chatbotId, gap.id, token, 'A'), answer(chatbotId, gap.id, token, 'B')]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      const messages = (
        await t.call('GET', `/api/v2/chatbots/${chatbotId}/conversations/${c.conversationId}/messages`, token)
      ).body.data.messages;
      expect(messages.filter((m: { author: string }) => m.author === 'agent')).toHaveLength(1);
    });

    test('a connected visitor gets it live only; an unverified one is never mailed', async () => {
      const { token, chatbotId } = await freshAccount(t, 'Live');
      const here = await conversation(chatbotId, token);
      await visitors().accounts.bindVerified(chatbotId, 'here@example.com', {}, here.chatUserId);
      const seen: string[] = [];
      visitors().setPresence(({ conversationId }) => {
        seen.push(conversationId);
        return conversationId === here.conversationId;
      });
      try {
        await answer(chatbotId, (await gapIn(chatbotId, here.conversationId)).id, token, 'Live answer');
        const anon = await conversation(chatbotId, token, { name: 'Nobody', email: 'typed@example.com' });
        await answer(chatbotId, (await gapIn(chatbotId, anon.conversationId)).id, token, 'For the anonymous');
        await settle();
        expect(seen).toEqual([here.conversationId]);
        expect(inbox.to('here@example.com')).toEqual([]);
        expect(inbox.to('typed@example.com')).toEqual([]);
        const anonMessages = (
          await t.call('GET', `/api/v2/chatbots/${chatbotId}/conversations/${anon.conversationId}/messages`, token)
        ).body.data.messages;
        expect(anonMessages.map((m: { text: string }) => m.text)).toContain('For the anonymous');
      } finally {
        visitors().setPresence(() => false);
      }
    });
  });
});
