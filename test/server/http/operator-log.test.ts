/**
 * What an operator reads at `info` (issue 22, item 16): one line per request (fastify's own pair of
 * lines is off), and one line for each answer (answerer, sources, refused or not, ms), each
 * escalation, take-over, hand-back and resolution, and each widget session opened.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

type Line = { level: number; msg: string; reqId?: string; [k: string]: unknown };
const lines: Line[] = [];
let t: TestApp;
let token: string;
let base: string;
let chatbotId: string;

beforeAll(async () => {
  t = await buildTestApp({
    env: { LOG_LEVEL: 'info', QUEUE_POLL_MS: '20' },
    logStream: { write: (l) => void lines.push(JSON.parse(l)) },
  });
  ({ token } = await t.token());
  const created = await t.call('POST', '/api/v2/chatbots', token, { title: 'Acme help' });
  chatbotId = created.body.data.chatbot.id;
  base = `/api/v2/chatbots/${chatbotId}`;
  const text =
    'Standard delivery takes three to five working days and costs 4.90 EUR. Orders above 50 EUR are delivered free of charge.';
  expect((await t.call('POST', `${base}/knowledge/text`, token, { title: 'Delivery', text })).status).toBe(202);
  await t.app.services.queue.drain(30_000);
});
afterAll(() => t.close());

const ofRequest = (res: { headers: Record<string, unknown> }) =>
  lines.filter((l) => l.reqId === res.headers['x-request-id']);

describe('the info log', { timeout: 60_000 }, () => {
  test('one line per request: method, URL, status and time; a refusal adds its error code', async () => {
    const ok = await t.call('GET', '/api/v2/health');
    expect(ofRequest(ok)).toEqual([
      expect.objectContaining({
        level: 30,
        method: 'GET',
        url: '/api/v2/health',
        statusCode: 200,
        ms: expect.any(Number),
        msg: expect.stringMatching(/^GET \/api\/v2\/health 200 [\d.]+ ms$/),
      }),
    ]);
    const missing = await t.call('GET', '/api/v2/nowhere');
    expect(ofRequest(missing)).toEqual([
      expect.objectContaining({
        level: 30,
        statusCode: 404,
        code: 'NOT_FOUND',
        msg: expect.stringMatching(/^GET \/api\/v2\/nowhere 404 NOT_FOUND [\d.]+ ms$/),
      }),
    ]);
    const bad = await t.call('POST', '/api/v2/chatbots', token, '{"title":', { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(ofRequest(bad)).toEqual([expect.objectContaining({ level: 30, statusCode: 400, code: 'INVALID_JSON' })]);
  });

  test('each answer: which answerer, how many sources, refused or not, how long', async () => {
    const answered = await t.call('POST', `${base}/messages`, token, { message: 'How long does delivery take?' });
    expect(answered.status).toBe(201);
    const conversationId = answered.body.data.conversation.threadId;
    const line = lines.find((l) => l.msg.startsWith('answered by') && l.messageId === answered.body.data.answer.id);
    expect(line).toMatchObject({
      level: 30,
      chatbotId,
      provider: 'built-in',
      sources: 1,
      refused: false,
      ms: expect.any(Number),
      msg: expect.stringMatching(/^answered by the built-in answerer: 1 source, \d+ ms$/),
    });
    expect(line!.conversationId).toBeTruthy();
    expect(conversationId).toBeTruthy();

    const refused = await t.call('POST', `${base}/messages`, token, {
      message: 'Do you sell garden furniture made of teak?',
    });
    const gap = lines.find((l) => l.messageId === refused.body.data.answer.id);
    expect(gap).toMatchObject({
      level: 30,
      provider: 'built-in',
      sources: 0,
      refused: true,
      msg: expect.stringMatching(
        /^answered by the built-in answerer: no answer in the knowledge \(a knowledge gap\), \d+ ms$/,
      ),
    });
  });

  test('escalation, take-over, hand-back and resolution each log a line', async () => {
    const asked = await t.call('POST', `${base}/messages`, token, { message: 'What does delivery cost?' });
    const thread = `${base}/conversations/${asked.body.data.conversation.threadId}`;
    const before = lines.length;
    for (const action of ['escalate', 'take-over', 'switch-to-ai'])
      expect((await t.call('POST', `${thread}/${action}`, token)).status).toBe(200);
    expect((await t.call('PATCH', thread, token, { status: 'RESOLVED' })).status).toBe(200);
    const events = lines.slice(before).filter((l) => l.event);
    expect(events.map((l) => [l.event, l.msg])).toEqual([
      ['conversation.escalated', 'conversation escalated: the visitor asked for a person'],
      ['conversation.taken_over', expect.stringMatching(/^conversation taken over by team member \S+$/)],
      ['conversation.released', 'conversation handed back to the AI'],
      ['conversation.resolved', 'conversation resolved'],
    ]);
    for (const l of events) expect(l).toMatchObject({ level: 30, chatbotId, conversationId: expect.any(String) });
  });

  test('a widget session opened is a line, besides its request line', async () => {
    const res = await t.call('POST', `/api/widget/${chatbotId}/session`, null, {});
    expect(res.status).toBe(201);
    expect(ofRequest(res).map((l) => l.msg)).toEqual([
      'widget session opened',
      expect.stringMatching(/^POST \/api\/widget\/\S+\/session 201 /),
    ]);
    const renewed = await t.call('POST', `/api/widget/${chatbotId}/session`, null, { renew: res.body.data.token });
    expect(ofRequest(renewed)[0]).toMatchObject({
      level: 30,
      chatbotId,
      renewed: true,
      msg: 'widget session opened (renewed)',
    });
  });
});
