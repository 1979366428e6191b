/**
 * The conversation store (domain/conversations/ports.ts) run unchanged on SQLite and PostgreSQL:
 * the compare-and-set every change of condition goes through (one winner among concurrent
 * writers, a stale sequence changes nothing), events numbered once per conversation and read
 * back in order, chat users (one query for a page of them), tags (replace, per-chatbot check,
 * filter), the message client-id guard, and the owed-answer lease that lets one caller answer.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type {
  ChatUserRecord,
  ConversationEventRecord,
  ConversationRecord,
  MessageRecord,
} from '../../../server/domain/conversations/ports.js';
import { newId } from '../../../server/domain/ids.js';
import type { ChatbotRecord, Store } from '../../../server/domain/ports.js';
import { describeOnDialects } from '../../helpers/dialects.js';
import { openTestDatabase } from '../../helpers/database.js';

const at = (n: number) => new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString();

describeOnDialects('conversation store on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const opened = await openTestDatabase(dialect);
    store = opened.store;
    cleanup = () => opened.close();
  });
  afterAll(() => cleanup?.());

  async function chatbot(): Promise<ChatbotRecord> {
    const accountId = newId();
    await store.accounts.insert({
      id: accountId,
      name: 'a',
      plan: {
        name: 't',
        maxChatbots: 9,
        maxPages: 9,
        webhooks: true,
        analytics: true,
        brandingRemoval: true,
        active: true,
      },
      createdAt: at(0),
      updatedAt: at(0),
    });
    const ownerId = newId();
    await store.users.insert({
      id: ownerId,
      accountId,
      email: `${ownerId.toLowerCase()}@x.test`,
      name: null,
      role: 'owner',
      createdAt: at(0),
    });
    const bot: ChatbotRecord = {
      id: newId(),
      accountId,
      createdById: ownerId,
      title: 'b',
      description: '',
      settings: {},
      createdAt: at(0),
      updatedAt: at(0),
    };
    await store.chatbots.insert(bot);
    return bot;
  }

  function conversation(bot: ChatbotRecord, over: Partial<ConversationRecord> = {}): ConversationRecord {
    return {
      id: newId(),
      chatbotId: bot.id,
      chatUserId: null,
      status: 'OPEN',
      mode: 'AI',
      escalated: false,
      agentId: null,
      seq: 1,
      webhookUrl: null,
      webhookToken: null,
      totalMessagesRead: 0,
      messageCount: 0,
      lastMessageAt: null,
      createdAt: at(1),
      updatedAt: at(1),
      endedAt: null,
      ...over,
    };
  }

  function message(c: ConversationRecord, seq: number, over: Partial<MessageRecord> = {}): MessageRecord {
    return {
      id: newId(),
      conversationId: c.id,
      chatbotId: c.chatbotId,
      seq,
      author: 'visitor',
      text: `m${seq}`,
      sources: [],
      agentId: null,
      agentName: null,
      feedback: null,
      feedbackComment: null,
      originalText: null,
      meta: {},
      clientMessageId: null,
      createdAt: at(seq),
      updatedAt: at(seq),
      ...over,
    };
  }

  const event = (
    c: ConversationRecord,
    seq: number,
    type: ConversationEventRecord['type'] = 'message.added',
  ): ConversationEventRecord => ({
    id: newId(),
    conversationId: c.id,
    chatbotId: c.chatbotId,
    seq,
    type,
    payload: { n: seq },
    createdAt: at(seq),
  });

  describe('compare-and-set', () => {
    test('applies the patch and moves the sequence only from the expected one', async () => {
      const c = conversation(await chatbot());
      await store.conversations.insert(c);
      expect(await store.conversations.cas(c.id, 1, 2, { mode: 'AGENT', agentId: 'agent-1', updatedAt: at(5) })).toBe(
        true,
      );
      expect(await store.conversations.get(c.id)).toEqual({
        ...c,
        seq: 2,
        mode: 'AGENT',
        agentId: 'agent-1',
        updatedAt: at(5),
      });

      // A writer that read seq 1 is too late: nothing of its patch is written.
      expect(await store.conversations.cas(c.id, 1, 2, { status: 'RESOLVED', endedAt: at(6) })).toBe(false);
      expect(await store.conversations.get(c.id)).toMatchObject({
        seq: 2,
        status: 'OPEN',
        endedAt: null,
        mode: 'AGENT',
      });
    });

    test('of writers racing from the same sequence exactly one wins, and its patch is the one stored', async () => {
      const c = conversation(await chatbot());
      await store.conversations.insert(c);
      const agents = ['a', 'b', 'c', 'd', 'e', 'f'];
      const results = await Promise.all(
        agents.map((agentId) => store.conversations.cas(c.id, 1, 2, { mode: 'AGENT', agentId })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const stored = await store.conversations.get(c.id);
      expect(stored?.seq).toBe(2);
      expect(stored?.agentId).toBe(agents[results.indexOf(true)]);
    });

    test('a change and its events commit together or not at all', async () => {
      const c = conversation(await chatbot());
      await store.conversations.insert(c);
      await expect(
        store.transaction(async (s) => {
          expect(await s.conversations.cas(c.id, 1, 3, { escalated: true })).toBe(true);
          await s.conversations.events.insert([event(c, 2, 'conversation.escalated'), event(c, 3)]);
          throw new Error('the request failed after writing');
        }),
      ).rejects.toThrow('the request failed after writing');
      expect(await store.conversations.get(c.id)).toMatchObject({ seq: 1, escalated: false });
      expect(await store.conversations.events.after(c.id, 0, 10)).toEqual([]);
    });
  });

  describe('events', () => {
    test('read back after a sequence, in order, limited, for that conversation only', async () => {
      const bot = await chatbot();
      const c = conversation(bot);
      const other = conversation(bot);
      await store.conversations.insert(c);
      await store.conversations.insert(other);
      const events = [2, 3, 4, 5].map((seq) => event(c, seq));
      await store.conversations.events.insert([events[2], events[0], events[3], events[1]]);
      await store.conversations.events.insert([event(other, 2)]);

      expect(await store.conversations.events.after(c.id, 0, 10)).toEqual(events);
      expect(await store.conversations.events.after(c.id, 3, 10)).toEqual(events.slice(2));
      expect(await store.conversations.events.after(c.id, 2, 2)).toEqual(events.slice(1, 3));
      expect(await store.conversations.events.after(c.id, 5, 10)).toEqual([]);
    });

    test('a sequence number is used once per conversation', async () => {
      const bot = await chatbot();
      const c = conversation(bot);
      const other = conversation(bot);
      await store.conversations.insert(c);
      await store.conversations.insert(other);
      await store.conversations.events.insert([event(c, 2)]);
      await expect(store.conversations.events.insert([event(c, 2, 'conversation.updated')])).rejects.toThrow();
      await store.conversations.events.insert([event(other, 2)]);
      expect((await store.conversations.events.after(c.id, 0, 10)).map((e) => e.type)).toEqual(['message.added']);
    });
  });

  describe('chat users', () => {
    const user = (bot: ChatbotRecord, over: Partial<ChatUserRecord> = {}): ChatUserRecord => ({
      id: newId(),
      chatbotId: bot.id,
      email: null,
      name: null,
      phone: null,
      verified: false,
      metadata: {},
      createdAt: at(1),
      updatedAt: at(1),
      ...over,
    });

    test('stored and read back whole, updated field by field', async () => {
      const bot = await chatbot();
      const u = user(bot, { email: 'v@x.test', name: 'Vi', metadata: { plan: 'pro', seats: 3, tags: ['a'] } });
      await store.conversations.chatUsers.insert(u);
      expect(await store.conversations.chatUsers.get(u.id)).toEqual(u);

      await store.conversations.chatUsers.update(u.id, { verified: true, phone: '+1 555', updatedAt: at(9) });
      expect(await store.conversations.chatUsers.get(u.id)).toEqual({
        ...u,
        verified: true,
        phone: '+1 555',
        updatedAt: at(9),
      });
      await store.conversations.chatUsers.update(u.id, { metadata: {} });
      expect((await store.conversations.chatUsers.get(u.id))?.metadata).toEqual({});
      expect(await store.conversations.chatUsers.get(newId())).toBeNull();
    });

    test('many: the existing ones of the ids asked, each once', async () => {
      const bot = await chatbot();
      const [a, b, c] = [user(bot, { name: 'a' }), user(bot, { name: 'b' }), user(bot, { name: 'c' })];
      for (const u of [a, b, c]) await store.conversations.chatUsers.insert(u);
      const found = await store.conversations.chatUsers.many([a.id, c.id, a.id, newId()]);
      expect(found.map((u) => u.name).sort()).toEqual(['a', 'c']);
      expect(await store.conversations.chatUsers.many([])).toEqual([]);
    });
  });

  describe('tags', () => {
    async function tag(bot: ChatbotRecord, name: string) {
      const t = { id: newId(), chatbotId: bot.id, name, color: null, createdAt: at(1), updatedAt: at(1) };
      expect(await store.resources.tags.insert(t)).toBe(true);
      return t;
    }

    test('setTags replaces the set; tags() answers every conversation asked, by name', async () => {
      const bot = await chatbot();
      const [urgent, billing, later] = [await tag(bot, 'urgent'), await tag(bot, 'billing'), await tag(bot, 'later')];
      const c = conversation(bot);
      const bare = conversation(bot);
      await store.conversations.insert(c);
      await store.conversations.insert(bare);

      await store.conversations.setTags(c.id, [urgent.id, billing.id]);
      let tags = await store.conversations.tags([c.id, bare.id]);
      expect(tags.get(c.id)?.map((t) => t.name)).toEqual(['billing', 'urgent']);
      expect(tags.get(bare.id)).toEqual([]);

      await store.conversations.setTags(c.id, [later.id]);
      tags = await store.conversations.tags([c.id]);
      expect(tags.get(c.id)).toEqual([{ id: later.id, name: 'later', color: null }]);
      await store.conversations.setTags(c.id, []);
      expect((await store.conversations.tags([c.id])).get(c.id)).toEqual([]);
    });

    test('knownTags keeps only the chatbot’s own tags; the tag filter lists the tagged conversations', async () => {
      const bot = await chatbot();
      const stranger = await chatbot();
      const mine = await tag(bot, 'vip');
      const theirs = await tag(stranger, 'vip');
      expect(await store.conversations.knownTags(bot.id, [mine.id, theirs.id, newId()])).toEqual([mine.id]);
      expect(await store.conversations.knownTags(bot.id, [])).toEqual([]);

      const tagged = conversation(bot, { createdAt: at(2) });
      const untagged = conversation(bot, { createdAt: at(3) });
      await store.conversations.insert(tagged);
      await store.conversations.insert(untagged);
      await store.conversations.setTags(tagged.id, [mine.id]);
      const page = await store.conversations.page(bot.id, { limit: 10, after: null }, { tagId: mine.id });
      expect(page.items.map((c) => c.id)).toEqual([tagged.id]);
      expect((await store.conversations.page(bot.id, { limit: 10, after: null }, {})).items.map((c) => c.id)).toEqual([
        untagged.id,
        tagged.id,
      ]);
    });
  });

  describe('messages and owed answers', () => {
    test('a client id is stored once per chatbot; another chatbot may use it', async () => {
      const bot = await chatbot();
      const c = conversation(bot);
      await store.conversations.insert(c);
      const first = message(c, 2, { clientMessageId: 'client-1' });
      await store.conversations.messages.insert(first);
      await expect(
        store.conversations.messages.insert(message(c, 3, { clientMessageId: 'client-1' })),
      ).rejects.toThrow();
      expect(await store.conversations.messages.byClientId(bot.id, 'client-1')).toEqual(first);

      const other = conversation(await chatbot());
      await store.conversations.insert(other);
      await store.conversations.messages.insert(message(other, 2, { clientMessageId: 'client-1' }));
      // Messages without a client id never collide.
      await store.conversations.messages.insert(message(c, 4));
      await store.conversations.messages.insert(message(c, 5));
      expect((await store.conversations.messages.page(c.id, 10, null)).items.map((m) => m.seq)).toEqual([2, 4, 5]);
    });

    test('an owed answer is settled by one caller, and an expired lease taken over by one', async () => {
      const c = conversation(await chatbot());
      await store.conversations.insert(c);
      const m = message(c, 2);
      await store.conversations.messages.insert(m);
      await store.conversations.owed.insert({
        messageId: m.id,
        conversationId: c.id,
        chatbotId: c.chatbotId,
        leaseUntil: at(10),
        attempts: 0,
        createdAt: at(2),
      });

      expect((await store.conversations.owed.expired(at(9), 10)).map((o) => o.messageId)).not.toContain(m.id);
      expect((await store.conversations.owed.expired(at(11), 10)).map((o) => o.messageId)).toContain(m.id);
      const claims = await Promise.all([1, 2, 3].map(() => store.conversations.owed.claim(m.id, at(10), at(20))));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store.conversations.owed.claim(m.id, at(10), at(30))).toBe(false);

      const settles = await Promise.all([1, 2, 3].map(() => store.conversations.owed.settle(m.id)));
      expect(settles.filter(Boolean)).toHaveLength(1);
      expect((await store.conversations.owed.expired(at(99), 10)).map((o) => o.messageId)).not.toContain(m.id);
    });
  });
});
