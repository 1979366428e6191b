/**
 * The change engine (domain/conversations/changes.ts) on a real store, SQLite and PostgreSQL:
 * concurrent changes of one conversation all land, each evaluated on the condition the one
 * before left, with sequence numbers used once; a refused or discarded change stores nothing; a
 * commit listener's failure never fails the committed change; a take-over removes the answers
 * still owed in its own transaction.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ChangeEngine, Discard } from '../../../../server/domain/conversations/changes.js';
import type { ConversationRecord } from '../../../../server/domain/conversations/ports.js';
import { nowIso } from '../../../../server/domain/ids.js';
import type { ChatbotRecord, Store } from '../../../../server/domain/ports.js';
import { openTestDatabase } from '../../../helpers/database.js';
import { seedChatbot } from './seed.js';
import { describeOnDialects } from '../../../helpers/dialects.js';

describeOnDialects('the change engine on %s', (dialect) => {
  let store: Store;
  let close: () => Promise<void>;
  const errors: unknown[] = [];
  let engine: ChangeEngine;

  beforeAll(async () => {
    const opened = await openTestDatabase(dialect);
    store = opened.store;
    close = () => opened.close();
    engine = new ChangeEngine(store, {}, (err) => errors.push(err));
  });
  afterAll(() => close?.());

  const chatbot = () => seedChatbot(store);

  const visitorMessage = (bot: ChatbotRecord, c: ConversationRecord, text: string) =>
    engine.change(c, { type: 'visitor_message' }, (ctx) => engine.addMessage(ctx, bot, { author: 'visitor', text }));

  test('changes racing from the same condition all land, each numbered once, counted on the conversation', async () => {
    const bot = await chatbot();
    const c = await engine.start(bot, {});
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((text) => visitorMessage(bot, c, text)));
    const events = await store.conversations.events.after(c.id, 0, 100);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events.slice(1).every((e) => e.type === 'message.added')).toBe(true);
    expect(await store.conversations.get(c.id)).toMatchObject({ seq: 6, messageCount: 5 });
  });

  test('a change is evaluated on the newer condition: a message after a concurrent resolve is refused and stores nothing', async () => {
    const bot = await chatbot();
    const stale = await engine.start(bot, {});
    await engine.change(stale, { type: 'resolve' }, async () => undefined);
    await expect(visitorMessage(bot, stale, 'too late')).rejects.toMatchObject({ code: 'CONVERSATION_CLOSED' });
    expect((await store.conversations.events.after(stale.id, 0, 100)).map((e) => e.type)).toEqual([
      'conversation.started',
      'conversation.resolved',
    ]);
    expect((await store.conversations.messages.page(stale.id, 10, null)).items).toEqual([]);
  });

  test('a write that gives up (Discard) commits nothing', async () => {
    const bot = await chatbot();
    const c = await engine.start(bot, {});
    await expect(
      engine.change(c, { type: 'take_over', agentId: 'u1' }, async (ctx) => {
        await engine.addMessage(ctx, bot, { author: 'agent', text: 'hello', agentId: 'u1', agentName: 'Ana' });
        throw new Discard();
      }),
    ).rejects.toBeInstanceOf(Discard);
    expect(await store.conversations.get(c.id)).toMatchObject({ seq: 1, mode: 'AI', messageCount: 0 });
  });

  test("a listener's failure is reported and the change stays committed; the others still hear it", async () => {
    const bot = await chatbot();
    const heard: string[] = [];
    const offBroken = engine.onCommit(() => {
      throw new Error('listener broke');
    });
    const off = engine.onCommit((conversation, events, added) =>
      heard.push(`${conversation.seq}:${events.map((e) => e.type).join(',')}:${added.map((m) => m.text).join(',')}`),
    );
    try {
      const c = await engine.start(bot, {});
      await visitorMessage(bot, c, 'hi');
      expect(heard).toEqual(['1:conversation.started:', '2:message.added:hi']);
      expect(errors.map((e) => (e as Error).message)).toContain('listener broke');
      expect((await store.conversations.get(c.id))?.seq).toBe(2);
    } finally {
      off();
      offBroken();
    }
  });

  test('a take-over removes the answers still owed in the conversation, in its own change', async () => {
    const bot = await chatbot();
    const c = await engine.start(bot, {});
    const { result: m } = await engine.change(c, { type: 'visitor_message' }, async (ctx) => {
      const message = await engine.addMessage(ctx, bot, { author: 'visitor', text: 'refunds?' });
      await ctx.s.conversations.owed.insert({
        messageId: message.id,
        conversationId: c.id,
        chatbotId: bot.id,
        leaseUntil: new Date(Date.now() - 1000).toISOString(),
        attempts: 0,
        createdAt: ctx.at,
      });
      return message;
    });
    expect((await store.conversations.owed.expired(nowIso(), 100)).map((o) => o.messageId)).toContain(m.id);
    await engine.change(
      (await store.conversations.get(c.id))!,
      { type: 'take_over', agentId: 'u1' },
      async () => undefined,
    );
    expect((await store.conversations.owed.expired(nowIso(), 100)).map((o) => o.messageId)).not.toContain(m.id);
  });
});
