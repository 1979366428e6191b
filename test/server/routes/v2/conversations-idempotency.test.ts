/**
 * A client retry never stores a message twice: `Idempotency-Key` on both message routes (and the
 * service's `clientMessageId`, which the visitor gateway uses for the widget's `clientId`), on
 * SQLite and PostgreSQL, sequential and racing resends.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';

describeOnDialects('Idempotency-Key on %s', (dialect) => {
  let t: TestApp;
  let token: string;
  let chatbotId: string;
  const base = () => `/api/v2/chatbots/${chatbotId}`;
  const key = () => `k-${Math.random().toString(36).slice(2)}`;
  const messages = async (threadId: string) =>
    (await t.call('GET', `${base()}/conversations/${threadId}/messages`, token)).body.data.messages as {
      id: string;
      author: string;
      text: string;
    }[];
  const messagesMeter = async () => (await t.call('GET', '/api/v2/usage', token)).body.data;

  beforeAll(async () => {
    t = await buildTestApp({ dialect });
    token = (await t.token()).token;
    chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  test('a resend on a conversation returns the first message and answer; nothing is stored or answered twice', async () => {
    const threadId = (await t.call('POST', `${base()}/conversations`, token, {})).body.data.conversation.threadId;
    const k = key();
    const first = await t.call(
      'POST',
      `${base()}/conversations/${threadId}/messages`,
      token,
      { message: 'Hello there' },
      { 'idempotency-key': k },
    );
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.body.data.answer).not.toBeNull();
    const usage = await messagesMeter();
    const again = await t.call(
      'POST',
      `${base()}/conversations/${threadId}/messages`,
      token,
      { message: 'Hello there' },
      { 'idempotency-key': k },
    );
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.message).toEqual(first.body.data.message);
    expect(again.body.data.answer).toEqual(first.body.data.answer);
    expect((await messages(threadId)).map((m) => m.author)).toEqual(['visitor', 'ai']);
    expect(await messagesMeter()).toEqual(usage);
    // Another key is another message.
    const other = await t.call(
      'POST',
      `${base()}/conversations/${threadId}/messages`,
      token,
      { message: 'Hello there' },
      { 'idempotency-key': key() },
    );
    expect(other.body.data.message.id).not.toBe(first.body.data.message.id);
    expect((await messages(threadId)).map((m) => m.author)).toEqual(['visitor', 'ai', 'visitor', 'ai']);
  });

  test('a resend of a conversation start returns the same conversation; no second conversation exists', async () => {
    const before = (await t.call('GET', `${base()}/conversations?limit=100`, token)).body.data.conversations.length;
    const k = key();
    const first = await t.call(
      'POST',
      `${base()}/messages`,
      token,
      { message: 'Where is my order?' },
      { 'idempotency-key': k },
    );
    const again = await t.call(
      'POST',
      `${base()}/messages`,
      token,
      { message: 'Where is my order?' },
      { 'idempotency-key': k },
    );
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.conversation.threadId).toBe(first.body.data.conversation.threadId);
    expect(again.body.data.message.id).toBe(first.body.data.message.id);
    expect(again.body.data.answer.id).toBe(first.body.data.answer.id);
    expect((await t.call('GET', `${base()}/conversations?limit=100`, token)).body.data.conversations.length).toBe(
      before + 1,
    );
  });

  test('racing resends store one message, one answer and one conversation', async () => {
    const before = (await t.call('GET', `${base()}/conversations?limit=100`, token)).body.data.conversations.length;
    const k = key();
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        t.call('POST', `${base()}/messages`, token, { message: 'Do you ship abroad?' }, { 'idempotency-key': k }),
      ),
    );
    for (const r of results) expect(r.status).toBe(201);
    const threadIds = new Set(results.map((r) => r.body.data.conversation.threadId));
    const messageIds = new Set(results.map((r) => r.body.data.message.id));
    expect(threadIds.size).toBe(1);
    expect(messageIds.size).toBe(1);
    expect((await messages([...threadIds][0])).map((m) => m.author)).toEqual(['visitor', 'ai']);
    expect((await t.call('GET', `${base()}/conversations?limit=100`, token)).body.data.conversations.length).toBe(
      before + 1,
    );

    const threadId = [...threadIds][0];
    const k2 = key();
    const more = await Promise.all(
      Array.from({ length: 6 }, () =>
        t.call(
          'POST',
          `${base()}/conversations/${threadId}/messages`,
          token,
          { message: 'And to Norway?' },
          { 'idempotency-key': k2 },
        ),
      ),
    );
    expect(new Set(more.map((r) => r.body.data.message.id)).size).toBe(1);
    expect((await messages(threadId)).map((m) => m.author)).toEqual(['visitor', 'ai', 'visitor', 'ai']);
  });

  test('the same key on another conversation is refused, naming it, and stores nothing', async () => {
    const a = (await t.call('POST', `${base()}/conversations`, token, {})).body.data.conversation.threadId;
    const b = (await t.call('POST', `${base()}/conversations`, token, {})).body.data.conversation.threadId;
    const k = key();
    expect(
      (
        await t.call(
          'POST',
          `${base()}/conversations/${a}/messages`,
          token,
          { message: 'One' },
          { 'idempotency-key': k },
        )
      ).status,
    ).toBe(201);
    const res = await t.call(
      'POST',
      `${base()}/conversations/${b}/messages`,
      token,
      { message: 'One' },
      { 'idempotency-key': k },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details[0].path).toEqual(['clientMessageId']);
    expect(await messages(b)).toEqual([]);
  });

  test('keys are per chatbot: the same key on two chatbots stores two messages', async () => {
    const other = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Other' })).body.data.chatbot.id;
    const k = key();
    const one = await t.call('POST', `${base()}/messages`, token, { message: 'Hi' }, { 'idempotency-key': k });
    const two = await t.call(
      'POST',
      `/api/v2/chatbots/${other}/messages`,
      token,
      { message: 'Hi' },
      { 'idempotency-key': k },
    );
    expect(two.headers['idempotent-replayed']).toBeUndefined();
    expect(two.body.data.message.id).not.toBe(one.body.data.message.id);
  });

  test('a malformed key is 400 VALIDATION_FAILED and stores nothing', async () => {
    const threadId = (await t.call('POST', `${base()}/conversations`, token, {})).body.data.conversation.threadId;
    for (const bad of ['has space', 'x'.repeat(256)]) {
      const res = await t.call(
        'POST',
        `${base()}/conversations/${threadId}/messages`,
        token,
        { message: 'Hi' },
        { 'idempotency-key': bad },
      );
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect(await messages(threadId)).toEqual([]);
  });
});
