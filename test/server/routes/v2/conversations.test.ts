/**
 * Conversations over HTTP on the real app: every route, the error codes they produce, the
 * state machine applied with compare-and-set (racing requests), events with growing sequence
 * numbers in the same transaction, tags, feedback, bulk actions and analytics; on SQLite and on
 * PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';

describeOnDialects('conversations over HTTP on %s', (dialect) => {
  let t: TestApp;
  let token: string;
  let chatbotId: string;
  const base = () => `/api/v2/chatbots/${chatbotId}`;

  beforeAll(async () => {
    t = await buildTestApp({ dialect, env: { QUEUE_POLL_MS: '20' } });
    token = (await t.token()).token;
    chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id;
    await t.call('POST', `${base()}/knowledge/text`, token, {
      title: 'Returns',
      text: '# Returns\n\nYou can return any item within 30 days of delivery. Refunds are paid to the original card within 5 business days.\n\n# Shipping\n\nStandard shipping takes 2 to 4 days and is free above 50 euros.',
    });
    await t.app.services.queue.drain(30_000);
  });
  afterAll(() => t.close());

  const start = async (message = 'How long do refunds take?') => {
    const res = await t.call('POST', `${base()}/messages`, token, { message });
    expect(res.status).toBe(201);
    return res.body.data as {
      conversation: { threadId: string; seq: number };
      message: { id: string };
      answer: { id: string; text: string; sources: unknown[] } | null;
    };
  };
  const events = (threadId: string) => t.app.services.conversations.reads.events(threadId, 0);

  describe('starting and messaging', () => {
    test('POST /messages starts a conversation, stores the visitor message and the AI answer citing the knowledge', async () => {
      const d = await start();
      expect(d.answer).not.toBeNull();
      expect(d.answer!.text).toMatch(/5 business days/);
      expect(d.answer).toMatchObject({ name: 'Shop' }); // the bot's name: the chatbot title unless localised
      expect(d.answer!.sources).toEqual(expect.arrayContaining([expect.objectContaining({ title: 'Returns' })]));
      const list = (await t.call('GET', `${base()}/conversations/${d.conversation.threadId}/messages`, token)).body
        .data;
      expect(list.messages.map((m: { author: string }) => m.author)).toEqual(['visitor', 'ai']);
      expect(list.pagination).toEqual({ limit: 100, hasNextPage: false, nextCursor: null });
      const ev = await events(d.conversation.threadId);
      expect(ev.map((e) => e.type)).toEqual(['conversation.started', 'message.added', 'message.added']);
      expect(ev.map((e) => e.seq)).toEqual([1, 2, 3]);
    });

    test("the list shows each conversation's latest message, cut for a list, so an agent can tell them apart", async () => {
      const answered = await start();
      const held = await start();
      expect(
        (await t.call('POST', `${base()}/conversations/${held.conversation.threadId}/take-over`, token)).status,
      ).toBe(200);
      const long = `Héllo 👋 ${'my parcel never arrived and '.repeat(10)}`;
      expect(
        (
          await t.call('POST', `${base()}/conversations/${held.conversation.threadId}/messages`, token, {
            message: long,
          })
        ).status,
      ).toBe(201);
      const empty = (await t.call('POST', `${base()}/conversations`, token, {})).body.data.conversation
        .threadId as string;
      const list = (await t.call('GET', `${base()}/conversations?limit=100`, token)).body.data.conversations as Array<{
        threadId: string;
        lastMessage: { author: string; text: string; createdAt: string } | null;
      }>;
      const of = (id: string) => list.find((c) => c.threadId === id)!;
      expect(of(answered.conversation.threadId).lastMessage).toMatchObject({ id: answered.answer!.id, author: 'ai' });
      const cut = of(held.conversation.threadId).lastMessage!;
      expect(cut.author).toBe('visitor');
      expect([...cut.text]).toHaveLength(160);
      expect(cut.text).toMatch(/^Héllo 👋 my parcel never arrived.*…$/);
      expect(of(empty).lastMessage).toBeNull();
      const one = (await t.call('GET', `${base()}/conversations/${held.conversation.threadId}`, token)).body.data
        .conversation;
      expect(one.lastMessage).toEqual(cut);
    });

    test('a visitor message on an existing conversation returns data.message with id and ISO createdAt', async () => {
      const d = await start();
      const res = await t.call('POST', `${base()}/conversations/${d.conversation.threadId}/messages`, token, {
        message: 'Is shipping free?',
      });
      expect(res.status).toBe(201);
      expect(res.body.data.message).toMatchObject({
        id: expect.any(String),
        author: 'visitor',
        text: 'Is shipping free?',
      });
      expect(new Date(res.body.data.message.createdAt).toISOString()).toBe(res.body.data.message.createdAt);
    });

    test("a visitor's message carries the name they gave; details with an e-mail capture a lead", async () => {
      const res = await t.call('POST', `${base()}/messages`, token, {
        message: 'Hi there',
        visitor: { name: 'Ada', email: 'ADA@example.com' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.message).toMatchObject({ author: 'visitor', name: 'Ada' });
      expect(res.body.data.conversation.chatUser).toMatchObject({
        name: 'Ada',
        email: 'ada@example.com',
        verified: false,
      });
      const leads = (await t.call('GET', `${base()}/leads`, token)).body.data.leads;
      expect(leads).toEqual(
        expect.arrayContaining([expect.objectContaining({ email: 'ada@example.com', name: 'Ada' })]),
      );
      const ev = await events(res.body.data.conversation.threadId);
      expect(ev.map((e) => e.type)).toContain('lead.captured');
    });

    test('POST /conversations creates an empty conversation; an unknown thread is 404', async () => {
      const res = await t.call('POST', `${base()}/conversations`, token, {});
      expect(res.status).toBe(201);
      expect(res.body.data.conversation).toMatchObject({
        mode: 'AI',
        status: 'OPEN',
        escalated: false,
        messageCount: 0,
      });
      expect((await t.call('GET', `${base()}/conversations/nope`, token)).status).toBe(404);
    });
  });

  describe('follow-up questions', () => {
    test("a short follow-up is answered in the topic of the visitor's previous question", async () => {
      const bot = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Plans' })).body.data.chatbot.id;
      const b = `/api/v2/chatbots/${bot}`;
      await t.call('POST', `${b}/knowledge/text`, token, {
        title: 'Premium plan',
        text: '# Premium plan\n\nThe premium plan includes priority support and unlimited chatbots. The premium plan costs 49 euros per month.',
      });
      await t.call('POST', `${b}/knowledge/text`, token, {
        title: 'Basic plan',
        text: '# Basic plan\n\nThe basic plan costs 9 euros per month; its cost is the lowest cost of all our plans, at a low cost.',
      });
      await t.app.services.queue.drain(30_000);
      // Alone, "What is the cost?" is about the basic plan (the page that says "cost" most).
      const alone = await t.call('POST', `${b}/messages`, token, { message: 'What is the cost?' });
      expect(alone.body.data.answer.text).toMatch(/9 euros/);
      const first = await t.call('POST', `${b}/messages`, token, { message: 'What does the premium plan include?' });
      const id = first.body.data.conversation.threadId;
      const followUp = await t.call('POST', `${b}/conversations/${id}/messages`, token, {
        message: 'What is the cost?',
      });
      expect(followUp.body.data.answer.text).toMatch(/49 euros/);
      expect(followUp.body.data.answer.sources[0].title).toBe('Premium plan');
    });
  });

  describe('the handoff state machine over HTTP', () => {
    test('taken over: the visitor message is saved and the AI stays silent; after switch-to-ai it answers again', async () => {
      const { conversation } = await start();
      const id = conversation.threadId;
      expect((await t.call('POST', `${base()}/conversations/${id}/take-over`, token)).body.data.conversation.mode).toBe(
        'AGENT',
      );
      const silent = await t.call('POST', `${base()}/conversations/${id}/messages`, token, { message: 'Hello?' });
      expect(silent.body.data.answer).toBeNull();
      const esc = await t.call('POST', `${base()}/conversations/${id}/escalate`, token);
      expect(esc.status).toBe(403);
      expect(esc.body.error.code).toBe('HUMAN_TAKEOVER');
      expect(
        (await t.call('POST', `${base()}/conversations/${id}/switch-to-ai`, token)).body.data.conversation.mode,
      ).toBe('AI');
      const answered = await t.call('POST', `${base()}/conversations/${id}/messages`, token, {
        message: 'How long do refunds take?',
      });
      expect(answered.body.data.answer).not.toBeNull();
    });

    test('escalated in AI mode: the AI stays silent; switch-to-ai releases the escalation (announced) and the AI answers again', async () => {
      const { conversation } = await start();
      const id = conversation.threadId;
      expect(
        (await t.call('POST', `${base()}/conversations/${id}/escalate`, token)).body.data.conversation,
      ).toMatchObject({ mode: 'AI', escalated: true });
      const silent = await t.call('POST', `${base()}/conversations/${id}/messages`, token, {
        message: 'Is anyone there?',
      });
      expect(silent.body.data.answer).toBeNull();
      const released = await t.call('POST', `${base()}/conversations/${id}/switch-to-ai`, token);
      expect(released.status).toBe(200);
      expect(released.body.data.conversation).toMatchObject({ mode: 'AI', escalated: false });
      expect((await events(id)).map((e) => e.type).slice(-1)).toEqual(['conversation.released']);
      const answered = await t.call('POST', `${base()}/conversations/${id}/messages`, token, {
        message: 'How long do refunds take?',
      });
      expect(answered.body.data.answer?.text).toMatch(/5 business days/);
    });

    test('escalate while taken over and already escalated is a success', async () => {
      const { conversation } = await start();
      const id = conversation.threadId;
      await t.call('POST', `${base()}/conversations/${id}/escalate`, token);
      await t.call('POST', `${base()}/conversations/${id}/take-over`, token);
      const again = await t.call('POST', `${base()}/conversations/${id}/escalate`, token);
      expect(again.status).toBe(200);
      expect(again.body.data.conversation).toMatchObject({ mode: 'AGENT', escalated: true });
    });

    test('resolved: message, escalate, switch-to-ai, take-over and replies answer 409 CONVERSATION_CLOSED; reopen works', async () => {
      const { conversation } = await start();
      const id = conversation.threadId;
      const resolved = await t.call('PATCH', `${base()}/conversations/${id}`, token, { status: 'RESOLVED' });
      expect(resolved.body.data.conversation).toMatchObject({ status: 'RESOLVED', endedAt: expect.any(String) });
      const before = (await events(id)).length;
      for (const [method, path, body] of [
        ['POST', 'messages', { message: 'hi' }],
        ['POST', 'escalate', undefined],
        ['POST', 'switch-to-ai', undefined],
        ['POST', 'take-over', undefined],
        ['POST', 'replies', { message: 'hi' }],
      ] as const) {
        const res = await t.call(method, `${base()}/conversations/${id}/${path}`, token, body);
        expect(res.status, path).toBe(409);
        expect(res.body.error.code).toBe('CONVERSATION_CLOSED');
      }
      expect((await events(id)).length).toBe(before);
      const reopened = await t.call('PATCH', `${base()}/conversations/${id}`, token, { status: 'OPEN' });
      expect(reopened.body.data.conversation).toMatchObject({
        status: 'OPEN',
        mode: 'AI',
        escalated: false,
        endedAt: null,
      });
    });

    test('a team reply takes the conversation over and names the agent', async () => {
      const { conversation } = await start();
      const res = await t.call('POST', `${base()}/conversations/${conversation.threadId}/replies`, token, {
        message: 'Hi, Sam here.',
      });
      expect(res.status).toBe(201);
      expect(res.body.data.message).toMatchObject({
        author: 'agent',
        name: 'owner@parley.local',
        agent: { id: expect.any(String), name: 'owner@parley.local' },
      });
      expect(res.body.data.conversation.mode).toBe('AGENT');
    });

    test('racing take-overs and escalations: every change lands once, sequence numbers never repeat', async () => {
      const { conversation } = await start();
      const id = conversation.threadId;
      const calls = await Promise.all([
        t.call('POST', `${base()}/conversations/${id}/escalate`, token),
        t.call('POST', `${base()}/conversations/${id}/take-over`, token),
        t.call('POST', `${base()}/conversations/${id}/messages`, token, { message: 'anyone?' }),
        t.call('PATCH', `${base()}/conversations/${id}`, token, { status: 'RESOLVED' }),
      ]);
      for (const c of calls) expect([200, 201, 403, 409]).toContain(c.status);
      const ev = await events(id);
      const seqs = ev.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
      const final = (await t.call('GET', `${base()}/conversations/${id}`, token)).body.data.conversation;
      expect(final.seq).toBe(seqs.at(-1));
      expect(final.status).toBe('RESOLVED');
    });
  });

  describe('feedback, tags, bulk, lists', () => {
    test('feedback and correction of an answer; feedback on a visitor message is refused', async () => {
      const d = await start();
      const id = d.conversation.threadId;
      const rated = await t.call('PATCH', `${base()}/conversations/${id}/messages/${d.answer!.id}`, token, {
        feedback: 'up',
        text: 'Refunds take 5 business days.',
      });
      expect(rated.body.data.message).toMatchObject({
        feedback: 'up',
        text: 'Refunds take 5 business days.',
        originalText: d.answer!.text,
      });
      const bad = await t.call('PATCH', `${base()}/conversations/${id}/messages/${d.message.id}`, token, {
        feedback: 'down',
      });
      expect(bad.status).toBe(400);
    });

    test('the read count takes what a conversation can hold and refuses a number beyond it, changing nothing', async () => {
      const id = (await start()).conversation.threadId;
      const url = `${base()}/conversations/${id}`;
      expect(
        (await t.call('PATCH', url, token, { totalMessagesRead: 2 })).body.data.conversation.totalMessagesRead,
      ).toBe(2);
      for (const n of [2 ** 31, 3e9, 1e20]) {
        const res = await t.call('PATCH', url, token, { totalMessagesRead: n });
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
      }
      expect((await t.call('GET', url, token)).body.data.conversation.totalMessagesRead).toBe(2);
    });

    test('bulk delete needs confirm:true and deletes nothing without it', async () => {
      const a = (await start()).conversation.threadId;
      const refused = await t.call('POST', `${base()}/conversations/bulk`, token, { action: 'delete', threadIds: [a] });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('CONFIRMATION_REQUIRED');
      expect((await t.call('GET', `${base()}/conversations/${a}`, token)).status).toBe(200);
      const done = await t.call('POST', `${base()}/conversations/bulk`, token, {
        action: 'delete',
        threadIds: [a, 'missing'],
        confirm: true,
      });
      expect(done.body.data.results).toEqual([
        { threadId: a, ok: true },
        { threadId: 'missing', ok: false, error: expect.objectContaining({ code: 'NOT_FOUND' }) },
      ]);
      expect((await t.call('GET', `${base()}/conversations/${a}`, token)).status).toBe(404);
    });

    test('bulk resolve and the status filter of the list', async () => {
      const ids = [(await start()).conversation.threadId, (await start()).conversation.threadId];
      await t.call('POST', `${base()}/conversations/bulk`, token, { action: 'resolve', threadIds: ids });
      const resolved = (
        await t.call('GET', `${base()}/conversations?status=RESOLVED&limit=100`, token)
      ).body.data.conversations.map((c: { threadId: string }) => c.threadId);
      expect(resolved).toEqual(expect.arrayContaining(ids));
      expect((await t.call('GET', `${base()}/conversations?limit=101`, token)).status).toBe(400);
    });

    test('thread-level webhooks need the webhook add-on and HTTPS', async () => {
      const { conversation } = await start();
      const url = `${base()}/conversations/${conversation.threadId}`;
      expect((await t.call('PATCH', url, token, { webhookUrl: 'http://insecure.example/hook' })).status).toBe(400);
      const account = await t.app.services.accounts.resolve();
      await t.app.services.accounts.setPlan(account.id, { webhooks: false });
      try {
        const res = await t.call('PATCH', url, (await t.token()).token, { webhookUrl: 'https://hooks.example/x' });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('WEBHOOKS_NOT_AVAILABLE');
      } finally {
        await t.app.services.accounts.setPlan(account.id, { webhooks: true });
      }
    });
  });

  describe('analytics', () => {
    test('real figures over the range', async () => {
      const res = await t.call('GET', `${base()}/analytics`, token);
      expect(res.status).toBe(200);
      const a = res.body.data.analytics;
      expect(a.conversations).toBeGreaterThan(5);
      expect(a.messages.ai).toBeGreaterThan(3);
      expect(a.takeOvers).toBeGreaterThanOrEqual(2);
      expect(a.escalations).toBeGreaterThanOrEqual(1);
      expect(a.feedback.up).toBeGreaterThanOrEqual(1);
      expect(a.topSources[0]).toMatchObject({ title: 'Returns' });
    });
  });
});
