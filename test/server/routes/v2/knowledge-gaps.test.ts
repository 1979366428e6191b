/**
 * Knowledge gaps: `recordGap` (for the conversation service), GET /knowledge-gaps (50/100,
 * newest first, answered=true|false, cursors bound to the filter), GET one, POST .../answer
 * (saves a custom response with the gap's question and marks the gap answered; again: updates
 * it), DELETE with the confirm rule, 404s, and the errors every route answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../../../server/domain/ids.js';
import { recordGap } from '../../../../server/domain/resources/knowledge-gaps.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { createChatbot, describeRouteErrors, expectError, freshAccount, rowCount } from '../../../helpers/resources.js';

let t: TestApp;
let token: string;
let chatbotId: string;
let gapId: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = (await t.token()).token;
  chatbotId = await createChatbot(t, token, 'gaps');
  gapId = (await record(chatbotId, 'Do you have a Windows version?')).id;
});
afterAll(() => t.close());

const base = (id: string) => `/api/v2/chatbots/${id}/knowledge-gaps`;
const record = (id: string, question: string, conversationId: string | null = null) =>
  recordGap(t.app.services.store, {
    chatbotId: id,
    conversationId,
    messageId: conversationId ? newId() : null,
    question,
  });

describe('recordGap and the list', () => {
  test('a recorded gap is listed, newest first, open (answered false)', async () => {
    const id = await createChatbot(t, token);
    const first = await record(id, '  Is there a student discount?  ');
    await new Promise((r) => setTimeout(r, 3));
    const second = await record(id, 'x'.repeat(2500));
    const res = await t.call('GET', base(id), token);
    expect(res.status).toBe(200);
    expect(res.body.data.pagination).toEqual({ limit: 50, hasNextPage: false, nextCursor: null });
    expect(res.body.data.knowledgeGaps.map((g: { id: string }) => g.id)).toEqual([second.id, first.id]);
    expect(res.body.data.knowledgeGaps[1]).toEqual({
      id: first.id,
      chatbotId: id,
      threadId: null,
      messageId: null,
      question: 'Is there a student discount?',
      answered: false,
      answeredAt: null,
      customResponseId: null,
      createdAt: first.createdAt,
    });
    expect(res.body.data.knowledgeGaps[0].question).toHaveLength(2000);
  });

  test('the conversation and message show as threadId and messageId', async () => {
    const id = await createChatbot(t, token);
    const at = new Date().toISOString();
    const conversationId = newId();
    await t.database.db
      .insertInto('conversations')
      .values({
        id: conversationId,
        chatbot_id: id,
        chat_user_id: null,
        status: 'OPEN',
        mode: 'AI',
        agent_id: null,
        webhook_url: null,
        webhook_token: null,
        last_message_at: null,
        created_at: at,
        updated_at: at,
        ended_at: null,
      })
      .execute();
    const gap = await record(id, 'q', conversationId);
    const got = (await t.call('GET', `${base(id)}/${gap.id}`, token)).body.data.knowledgeGap;
    expect(got).toMatchObject({ threadId: conversationId, messageId: gap.messageId });
  });

  test('answered=true|false filters; a cursor works only with its filter', async () => {
    const id = await createChatbot(t, token);
    const open: string[] = [];
    for (let i = 0; i < 3; i++) open.push((await record(id, `open ${i}`)).id);
    const done = await record(id, 'done');
    await t.call('POST', `${base(id)}/${done.id}/answer`, token, { answer: 'yes' });
    const ids = async (q: string) =>
      (await t.call('GET', `${base(id)}?${q}`, token)).body.data.knowledgeGaps.map((g: { id: string }) => g.id);
    expect((await ids('answered=false')).sort()).toEqual([...open].sort());
    expect(await ids('answered=true')).toEqual([done.id]);
    expect(await ids('')).toHaveLength(4);

    const p1 = await t.call('GET', `${base(id)}?answered=false&limit=2`, token);
    expect(p1.body.data.knowledgeGaps).toHaveLength(2);
    const cursor = encodeURIComponent(p1.body.meta.nextCursor);
    const p2 = await t.call('GET', `${base(id)}?answered=false&limit=2&cursor=${cursor}`, token);
    expect(p2.body.data.knowledgeGaps).toHaveLength(1);
    expect(p2.body.data.pagination.hasNextPage).toBe(false);
    expectError(await t.call('GET', `${base(id)}?limit=2&cursor=${cursor}`, token), 400, 'INVALID_CURSOR');
    expectError(await t.call('GET', `${base(id)}?answered=true&cursor=${cursor}`, token), 400, 'INVALID_CURSOR');
  });

  test.each(['answered=maybe', 'limit=0', 'limit=101', 'question=x'])('%s is 400 VALIDATION_FAILED', async (q) => {
    expectError(await t.call('GET', `${base(chatbotId)}?${q}`, token), 400, 'VALIDATION_FAILED');
  });

  test('a cursor not issued by the API is 400 INVALID_CURSOR', async () => {
    expectError(await t.call('GET', `${base(chatbotId)}?cursor=nope`, token), 400, 'INVALID_CURSOR');
  });
});

describe('answer', () => {
  test("saves the answer as a custom response to the gap's question and marks the gap answered", async () => {
    const id = await createChatbot(t, token);
    const gap = await record(id, 'Can I pay by invoice?');
    const responses = await rowCount(t, 'custom_responses', id);
    const res = await t.call('POST', `${base(id)}/${gap.id}/answer`, token, { answer: '  Yes, for yearly plans.  ' });
    expect(res.status).toBe(200);
    const { knowledgeGap, customResponse } = res.body.data;
    expect(customResponse).toMatchObject({
      chatbotId: id,
      question: 'Can I pay by invoice?',
      answer: 'Yes, for yearly plans.',
    });
    expect(knowledgeGap).toMatchObject({
      id: gap.id,
      answered: true,
      customResponseId: customResponse.id,
      answeredAt: expect.any(String),
    });
    expect(await rowCount(t, 'custom_responses', id)).toBe(responses + 1);
    expect(
      (await t.call('GET', `/api/v2/chatbots/${id}/custom-responses/${customResponse.id}`, token)).body.data
        .customResponse,
    ).toEqual(customResponse);
    expect((await t.call('GET', `${base(id)}/${gap.id}`, token)).body.data.knowledgeGap).toEqual(knowledgeGap);
  });

  test('answering again updates the same custom response; if it was deleted, a new one is made', async () => {
    const id = await createChatbot(t, token);
    const gap = await record(id, 'Opening hours?');
    const first = (await t.call('POST', `${base(id)}/${gap.id}/answer`, token, { answer: '9 to 5' })).body.data
      .customResponse;
    const second = (await t.call('POST', `${base(id)}/${gap.id}/answer`, token, { answer: '8 to 6' })).body.data
      .customResponse;
    expect(second).toMatchObject({ id: first.id, answer: '8 to 6' });
    expect(await rowCount(t, 'custom_responses', id)).toBe(1);
    await t.call('DELETE', `/api/v2/chatbots/${id}/custom-responses/${first.id}?confirm=true`, token);
    const third = await t.call('POST', `${base(id)}/${gap.id}/answer`, token, { answer: '10 to 4' });
    expect(third.body.data.customResponse.id).not.toBe(first.id);
    expect(third.body.data.knowledgeGap.customResponseId).toBe(third.body.data.customResponse.id);
    expect(await rowCount(t, 'custom_responses', id)).toBe(1);
  });

  test.each([
    ['no answer', {}, ['answer']],
    ['a blank answer', { answer: '   ' }, ['answer']],
    ['an answer too long', { answer: 'x'.repeat(8001) }, ['answer']],
    ['an extra field', { answer: 'a', question: 'other question' }, ['question']],
  ])('%s is 400 VALIDATION_FAILED; nothing saved, the gap stays open', async (_l, body, path) => {
    const gap = await record(chatbotId, 'still open');
    const before = await rowCount(t, 'custom_responses');
    const res = await t.call('POST', `${base(chatbotId)}/${gap.id}/answer`, token, body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await rowCount(t, 'custom_responses')).toBe(before);
    expect((await t.call('GET', `${base(chatbotId)}/${gap.id}`, token)).body.data.knowledgeGap.answered).toBe(false);
  });
});

describe('delete and reach', () => {
  test('without ?confirm=true: 400 CONFIRMATION_REQUIRED, nothing deleted', async () => {
    const before = await rowCount(t, 'knowledge_gaps');
    expectError(await t.call('DELETE', `${base(chatbotId)}/${gapId}`, token), 400, 'CONFIRMATION_REQUIRED');
    expect(await rowCount(t, 'knowledge_gaps')).toBe(before);
  });

  test('?confirm=true returns data.deletedKnowledgeGap; a custom response made from it stays', async () => {
    const gap = await record(chatbotId, 'to delete');
    const answered = (await t.call('POST', `${base(chatbotId)}/${gap.id}/answer`, token, { answer: 'a' })).body.data;
    const res = await t.call('DELETE', `${base(chatbotId)}/${gap.id}?confirm=true`, token);
    expect(res.status).toBe(200);
    expect(res.body.data.deletedKnowledgeGap).toEqual(answered.knowledgeGap);
    expectError(await t.call('GET', `${base(chatbotId)}/${gap.id}`, token), 404, 'NOT_FOUND');
    expect(
      (await t.call('GET', `/api/v2/chatbots/${chatbotId}/custom-responses/${answered.customResponse.id}`, token))
        .status,
    ).toBe(200);
  });

  test('a gap of another chatbot, or an unknown id, is 404 NOT_FOUND; nothing changes', async () => {
    const other = await createChatbot(t, token);
    const before = [await rowCount(t, 'knowledge_gaps'), await rowCount(t, 'custom_responses')];
    for (const [bot, id] of [
      [other, gapId],
      [chatbotId, newId()],
    ]) {
      expectError(await t.call('GET', `${base(bot)}/${id}`, token), 404, 'NOT_FOUND');
      expectError(await t.call('POST', `${base(bot)}/${id}/answer`, token, { answer: 'a' }), 404, 'NOT_FOUND');
      expectError(await t.call('DELETE', `${base(bot)}/${id}?confirm=true`, token), 404, 'NOT_FOUND');
    }
    expect([await rowCount(t, 'knowledge_gaps'), await rowCount(t, 'custom_responses')]).toEqual(before);
    expect((await t.call('GET', `${base(chatbotId)}/${gapId}`, token)).body.data.knowledgeGap.answered).toBe(false);
  });

  test("another account's token gets 404 CHATBOT_NOT_FOUND", async () => {
    const other = await freshAccount(t);
    expectError(
      await t.call('POST', `${base(chatbotId)}/${gapId}/answer`, other.token, { answer: 'a' }),
      404,
      'CHATBOT_NOT_FOUND',
    );
    expect((await t.call('GET', `${base(chatbotId)}/${gapId}`, token)).body.data.knowledgeGap.answered).toBe(false);
  });
});

describeRouteErrors('knowledge gaps', () => ({
  t,
  token,
  chatbotId,
  routes: [
    { method: 'GET', path: (id) => `/chatbots/${id}/knowledge-gaps`, scopes: ['conversations:read'] },
    { method: 'GET', path: (id) => `/chatbots/${id}/knowledge-gaps/${gapId}`, scopes: ['conversations:read'] },
    {
      method: 'POST',
      path: (id) => `/chatbots/${id}/knowledge-gaps/${gapId}/answer`,
      scopes: ['instructions:write'],
      body: { answer: 'a' },
    },
    {
      method: 'DELETE',
      path: (id) => `/chatbots/${id}/knowledge-gaps/${gapId}?confirm=true`,
      scopes: ['conversations:delete'],
    },
  ],
}));
