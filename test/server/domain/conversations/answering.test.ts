/**
 * The owed-answer pipeline (domain/conversations/answering.ts) in the real app, SQLite and
 * PostgreSQL: an answer whose writer died is written once however many sweeps claim it at once,
 * a claim past the attempt limit stores the locale's unavailable reply, and at the chatbot's cap
 * of concurrent answers the visitor gets the busy text. The process crash itself is covered in
 * routes/v2/conversations-crash.test.ts.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { messagesFor } from '../../../../server/domain/answers/messages.js';
import type { MessageRecord } from '../../../../server/domain/conversations/ports.js';
import { newId } from '../../../../server/domain/ids.js';
import type { ChatbotRecord } from '../../../../server/domain/ports.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';

describeOnDialects('answering on %s', (dialect) => {
  let t: TestApp;
  let chatbot: ChatbotRecord;
  let token: string;

  beforeAll(async () => {
    t = await buildTestApp({ dialect });
    token = (await t.token()).token;
    const id = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id;
    await t.call('POST', `/api/v2/chatbots/${id}/knowledge/text`, token, {
      title: 'Returns',
      text: '# Returns\n\nRefunds are paid within 5 business days.',
    });
    await t.app.services.queue.drain(30_000);
    chatbot = (await t.app.services.store.chatbots.get(id))!;
  });
  afterAll(() => t?.close());

  /** A visitor question stored with its answer owed under a lease that already ran out (its writer died). */
  async function orphan(attempts: number): Promise<MessageRecord> {
    const { changes } = t.app.services.conversations;
    const c = await changes.start(chatbot, {});
    const { result } = await changes.change(c, { type: 'visitor_message' }, async (ctx) => {
      const m = await changes.addMessage(ctx, chatbot, { author: 'visitor', text: 'How long do refunds take?' });
      await ctx.s.conversations.owed.insert({
        messageId: m.id,
        conversationId: c.id,
        chatbotId: chatbot.id,
        leaseUntil: new Date(Date.now() - 60_000).toISOString(),
        attempts,
        createdAt: ctx.at,
      });
      return m;
    });
    return result;
  }

  const answersTo = async (q: MessageRecord) =>
    (await t.app.services.store.conversations.messages.page(q.conversationId, 10, null)).items.filter(
      (m) => m.author === 'ai' && m.meta.questionId === q.id,
    );

  test('sweeps racing for an answer whose writer died write it once, and nothing stays owed', async () => {
    const q = await orphan(0);
    const { answering } = t.app.services.conversations;
    await Promise.all([answering.answerOwed(), answering.answerOwed(), answering.answerOwed()]);
    await expect.poll(async () => (await answersTo(q)).length, { timeout: 10_000 }).toBe(1);
    expect((await answersTo(q))[0].text).toMatch(/5 business days/);
    expect(
      (await t.app.services.store.conversations.owed.expired(new Date(Date.now() + 3_600_000).toISOString(), 100)).map(
        (o) => o.messageId,
      ),
    ).not.toContain(q.id);
  });

  test('a claim past the attempt limit stores the unavailable reply instead of asking again', async () => {
    const q = await orphan(3);
    await t.app.services.conversations.answering.answerOwed();
    await expect
      .poll(async () => (await answersTo(q)).map((m) => [m.text, m.meta.provider]), { timeout: 10_000 })
      .toEqual([[messagesFor(null).unavailable, 'unavailable']]);
  });

  test("at the chatbot's cap of concurrent answers the visitor is told so, and the slot is not taken", async () => {
    let released = 0;
    const visitor = newId();
    const at = new Date().toISOString();
    await t.app.services.store.conversations.chatUsers.insert({
      id: visitor,
      chatbotId: chatbot.id,
      email: null,
      name: null,
      phone: null,
      verified: false,
      metadata: {},
      createdAt: at,
      updatedAt: at,
    });
    const sent = await t.app.services.conversations.visitors.sendAsVisitor(
      chatbot,
      visitor,
      null,
      'How long do refunds take?',
      {
        clientId: 'c1',
        reserve: () => null,
        busy: 'Many visitors right now; try again shortly.',
      },
    );
    expect(sent.answer).toMatchObject({ author: 'ai', text: 'Many visitors right now; try again shortly.' });
    const free = await t.app.services.conversations.visitors.sendAsVisitor(chatbot, visitor, null, 'And exchanges?', {
      clientId: 'c2',
      reserve: () => () => void released++,
    });
    expect(free.answer?.text).not.toBe('Many visitors right now; try again shortly.');
    expect(released).toBe(1);
  });
});
