/**
 * A storage failure while the answer is prepared (here: a table the answer engine reads is gone)
 * is logged with the conversation and answered with the locale's "assistant unavailable" reply,
 * stored like any answer; never a silent 201 with `answer: null`. Once storage is back, answers
 * come from the knowledge again. On SQLite and on PostgreSQL.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { messagesFor } from '../../../../server/domain/answers/messages.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';

describeOnDialects('a storage failure while answering on %s', (dialect) => {
  let t: TestApp;
  let token: string;
  let base: string;
  const logs: {
    level: number;
    msg: string;
    err?: { message?: string };
    conversationId?: string;
    messageId?: string;
  }[] = [];

  beforeAll(async () => {
    t = await buildTestApp({
      dialect,
      env: { QUEUE_POLL_MS: '20', LOG_LEVEL: 'error' },
      logStream: { write: (line) => void logs.push(JSON.parse(line)) },
    });
    token = (await t.token()).token;
    base = `/api/v2/chatbots/${(await t.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id}`;
    await t.call('POST', `${base}/knowledge/text`, token, {
      title: 'Returns',
      text: '# Returns\n\nRefunds are paid to the original card within 5 business days.',
    });
    await t.app.services.queue.drain(30_000);
    expect(
      (await t.call('PATCH', `${base}/settings/localization`, token, { localization: { locale: 'de' } })).status,
    ).toBe(200);
  });
  afterAll(() => t?.close());

  const rename = (from: string, to: string) =>
    sql`alter table ${sql.table(from)} rename to ${sql.table(to)}`.execute(t.database.db);

  test('is logged and answered with the locale’s unavailable reply; answers return with storage', async () => {
    const unavailable = messagesFor('de').unavailable;
    await rename('custom_responses', 'custom_responses_away');
    let failed;
    try {
      failed = await t.call('POST', `${base}/messages`, token, { message: 'How long do refunds take?' });
    } finally {
      await rename('custom_responses_away', 'custom_responses');
    }
    expect(failed.status).toBe(201);
    const threadId = failed.body.data.conversation.threadId;
    expect(failed.body.data.answer).toMatchObject({ author: 'ai', text: unavailable, sources: [] });

    const logged = logs.filter((l) => l.msg === 'answering a visitor message failed');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 50, conversationId: threadId, messageId: failed.body.data.message.id });
    expect(logged[0].err?.message).toMatch(/custom_responses/);

    // The reply is stored in the conversation like any answer, after the question.
    const messages = (await t.call('GET', `${base}/conversations/${threadId}/messages`, token)).body.data.messages;
    expect(messages.map((m: { author: string; text: string }) => [m.author, m.text])).toEqual([
      ['visitor', 'How long do refunds take?'],
      ['ai', unavailable],
    ]);

    const again = await t.call('POST', `${base}/conversations/${threadId}/messages`, token, {
      message: 'How long do refunds take?',
    });
    expect(again.status).toBe(201);
    expect(again.body.data.answer.text).not.toBe(unavailable);
    expect(again.body.data.answer.sources).not.toEqual([]);
    expect(logs.filter((l) => l.msg === 'answering a visitor message failed')).toHaveLength(1);
  });
});
