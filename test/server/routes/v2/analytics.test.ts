/**
 * GET /chatbots/{id}/analytics per day and its top questions, on SQLite and PostgreSQL: real
 * conversations written at chosen instants (the clock is set; the server, its database and its
 * answer engine are the real ones) across a UTC midnight and an Indian midnight (+05:30, which
 * an hourly grouping would split wrongly), so every figure per day is exact.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { newId } from '../../../../server/domain/ids.js';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';

describeOnDialects('analytics per day on %s', (dialect) => {
  let t: TestApp;
  let token: string;
  let chatbotId: string;
  const url = (query: string) => `/api/v2/chatbots/${chatbotId}/analytics?${query}`;
  const TWO_DAYS = 'from=2026-03-09T00:00:00Z&to=2026-03-11T00:00:00Z';

  /** A visitor's first message at `at` (UTC), answered by the AI before the clock moves on. */
  const ask = async (at: string, message: string, visitor?: { email: string }) => {
    vi.setSystemTime(new Date(at));
    const res = await t.call('POST', `/api/v2/chatbots/${chatbotId}/messages`, token, { message, visitor });
    expect(res.status).toBe(201);
    return res.body.data as { conversation: { threadId: string }; answer: { unanswered: boolean } | null };
  };

  beforeAll(async () => {
    t = await buildTestApp({ dialect, env: { QUEUE_POLL_MS: '20' } });
    token = (await t.token()).token;
    chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot.id;
    await t.call('POST', `/api/v2/chatbots/${chatbotId}/knowledge/text`, token, {
      title: 'Returns',
      text: '# Returns\n\nYou can return any item within 30 days of delivery. Refunds are paid to the original card within 5 business days.',
    });
    await t.app.services.queue.drain(30_000);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      // 23:50 in Kolkata on the 9th, 18:20 UTC.
      expect((await ask('2026-03-09T18:20:00Z', 'How long do refunds take?')).answer?.unanswered).toBe(false);
      // 00:10 in Kolkata on the 10th, still the 9th in UTC.
      expect((await ask('2026-03-09T18:40:00Z', 'What is the capital of Peru?')).answer?.unanswered).toBe(true);
      const escalated = await ask('2026-03-09T23:50:00Z', '  how long do REFUNDS   take ');
      expect(escalated.answer?.unanswered).toBe(false);
      const thread = `/api/v2/chatbots/${chatbotId}/conversations/${escalated.conversation.threadId}`;
      vi.setSystemTime(new Date('2026-03-09T23:52:00Z'));
      expect((await t.call('POST', `${thread}/escalate`, token)).status).toBe(200);
      vi.setSystemTime(new Date('2026-03-09T23:55:00Z'));
      expect((await t.call('POST', `${thread}/replies`, token, { message: 'Let me check for you.' })).status).toBe(201);
      // The 10th in UTC.
      await ask('2026-03-10T00:10:00Z', 'How long do refunds take?!', { email: 'ana@example.com' });
      await ask('2026-03-10T00:20:00Z', 'what IS the capital of peru', undefined);
    } finally {
      vi.useRealTimers();
    }
  });
  afterAll(() => t.close());

  test('figures per UTC day are exact across midnight and add up to the totals', async () => {
    const res = await t.call('GET', url(TWO_DAYS), token);
    expect(res.status).toBe(200);
    const a = res.body.data.analytics;
    expect(a.timezone).toBe('UTC');
    expect(a.days).toEqual([
      {
        date: '2026-03-09',
        conversations: 3,
        messages: { total: a.days[0].messages.total, visitor: 3, ai: 3, agent: 1 },
        answers: { answered: 2, notSure: 0, refused: 1 },
        escalations: 1,
        leads: 0,
      },
      {
        date: '2026-03-10',
        conversations: 2,
        messages: { total: 4, visitor: 2, ai: 2, agent: 0 },
        answers: { answered: 1, notSure: 0, refused: 1 },
        escalations: 0,
        leads: 1,
      },
    ]);
    // The 9th also holds the notices of the escalation and take-over, whatever their number.
    expect(a.days[0].messages.total).toBeGreaterThanOrEqual(7);
    expect(a.days[0].messages.total + a.days[1].messages.total).toBe(a.messages.total);
    expect(a.conversations).toBe(5);
    expect(a.escalations).toBe(1);
    expect(a.leads).toBe(1);
    expect(a.answers).toEqual({ answered: 3, notSure: 0, refused: 2 });
  });

  test("days follow the asked time zone's midnights, half-hour offsets included", async () => {
    const kolkata = (await t.call('GET', url(`${TWO_DAYS}&timezone=Asia/Kolkata`), token)).body.data.analytics;
    expect(kolkata.timezone).toBe('Asia/Kolkata');
    // The range starts 05:30 on the 9th and ends 05:30 on the 11th there.
    expect(kolkata.days.map((d: { date: string }) => d.date)).toEqual(['2026-03-09', '2026-03-10', '2026-03-11']);
    expect(kolkata.days.map((d: { conversations: number }) => d.conversations)).toEqual([1, 4, 0]);
    expect(kolkata.days.map((d: { answers: { refused: number } }) => d.answers.refused)).toEqual([0, 2, 0]);
    const newYork = (await t.call('GET', url(`${TWO_DAYS}&timezone=america/new_york`), token)).body.data.analytics;
    expect(newYork.timezone).toBe('America/New_York');
    expect(newYork.days.map((d: { date: string; conversations: number }) => [d.date, d.conversations])).toEqual([
      ['2026-03-08', 0],
      ['2026-03-09', 5],
      ['2026-03-10', 0],
    ]);
  });

  test('top questions are counted without regard to case, punctuation and spacing, with how many were answered', async () => {
    const a = (await t.call('GET', url(TWO_DAYS), token)).body.data.analytics;
    expect(a.topQuestions).toEqual([
      { question: 'How long do refunds take?!', count: 3, answered: 3 },
      { question: 'what IS the capital of peru', count: 2, answered: 0 },
    ]);
    // Only the range counts: the 10th alone.
    const tenth = (await t.call('GET', url('from=2026-03-10T00:00:00Z&to=2026-03-11T00:00:00Z'), token)).body.data
      .analytics;
    expect(tenth.topQuestions).toEqual([
      { question: 'what IS the capital of peru', count: 1, answered: 0 },
      { question: 'How long do refunds take?!', count: 1, answered: 1 },
    ]);
  });

  test('bad input is 400 VALIDATION_FAILED naming the field', async () => {
    for (const [query, field] of [
      ['from=2026-03-11T00:00:00Z&to=2026-03-09T00:00:00Z', 'from'],
      ['from=2025-01-01T00:00:00Z&to=2026-03-09T00:00:00Z', 'from'],
      [`${TWO_DAYS}&timezone=Mars/Olympus_Mons`, 'timezone'],
      [`${TWO_DAYS}&timezone=`, 'timezone'],
    ]) {
      const res = await t.call('GET', url(query), token);
      expect(res.status, query).toBe(400);
      expect(res.body.ok).toBe(false);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body.error.details)).toContain(field);
    }
  });

  test("another account's chatbot, or one the token is not given, is 404; a token without chatbots:read is 403", async () => {
    const other = await t.app.services.accounts.create(`${newId()}@x.test`);
    const otherToken = (await t.token({ access: 'full' }, other.account.id)).token;
    const foreign = await t.call('GET', url(TWO_DAYS), otherToken);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('CHATBOT_NOT_FOUND');
    // A token kept to another chatbot of the same account does not reach this one.
    const second = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Outlet' })).body.data.chatbot.id;
    const elsewhere = (await t.token({ access: 'custom', scopes: ['chatbots:read'], chatbotIds: [second] })).token;
    expect((await t.call('GET', url(TWO_DAYS), elsewhere)).status).toBe(404);
    expect((await t.call('GET', `/api/v2/chatbots/${second}/analytics?${TWO_DAYS}`, elsewhere)).status).toBe(200);
    const narrow = (await t.token({ access: 'custom', scopes: ['conversations:read'] })).token;
    const refused = await t.call('GET', url(TWO_DAYS), narrow);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.requiredScopes).toEqual(['chatbots:read']);
  });
});
