/**
 * The newer condition wins: a take-over that lands while the AI's answer is still being
 * generated (a slow OpenAI-compatible stand-in) silences the AI; the late answer is dropped,
 * not appended over the team. On SQLite and on PostgreSQL.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';
import { startChatStandin, type ChatStandin } from '../../../helpers/chat-standin.js';

describeOnDialects('the newer condition wins on %s', (dialect) => {
  let t: TestApp;
  let model: ChatStandin;
  let token: string;
  let base: string;

  beforeAll(async () => {
    model = await startChatStandin();
    // No ALLOW_PRIVATE_FETCH: the operator's own model endpoint is reachable on a private address.
    t = await buildTestApp({
      dialect,
      env: { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'test-key', QUEUE_POLL_MS: '20' },
    });
    token = (await t.token()).token;
    base = `/api/v2/chatbots/${(await t.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id}`;
    await t.call('POST', `${base}/knowledge/text`, token, {
      title: 'Returns',
      text: '# Returns\n\nRefunds are paid within 5 business days.',
    });
    await t.app.services.queue.drain(30_000);
  });
  afterAll(async () => {
    await t.close();
    await model.close();
  });

  test('a take-over while the answer is generated wins: the late answer is dropped', async () => {
    const created = await t.call('POST', `${base}/conversations`, token, {});
    const id = created.body.data.conversation.threadId;
    model.next({
      kind: 'reply',
      text: 'Refunds are paid within five business days, as the policy says.',
      pieceDelayMs: 120,
    });
    const asked = t.call('POST', `${base}/conversations/${id}/messages`, token, {
      message: 'How long do refunds take?',
    });
    await expect.poll(() => model.requests.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const takeOver = await t.call('POST', `${base}/conversations/${id}/take-over`, token);
    expect(takeOver.body.data.conversation.mode).toBe('AGENT');
    const res = await asked;
    expect(res.status).toBe(201);
    expect(res.body.data.answer).toBeNull();
    const messages = (await t.call('GET', `${base}/conversations/${id}/messages`, token)).body.data.messages;
    expect(messages.map((m: { author: string }) => m.author)).toEqual(['visitor']);
    const events = await t.app.services.conversations.reads.events(id, 0);
    expect(events.map((e) => e.type)).toEqual(['conversation.started', 'message.added', 'conversation.taken_over']);
  });

  test('without a take-over the same slow answer is appended after the question', async () => {
    const id = (await t.call('POST', `${base}/conversations`, token, {})).body.data.conversation.threadId;
    model.next({ kind: 'reply', text: 'Refunds are paid within five business days.', pieceDelayMs: 20 });
    const res = await t.call('POST', `${base}/conversations/${id}/messages`, token, {
      message: 'How long do refunds take?',
    });
    expect(res.body.data.answer).toMatchObject({ author: 'ai', text: expect.stringContaining('five business days') });
    expect(res.body.data.answer.seq).toBe(res.body.data.message.seq + 1);
  });
});
