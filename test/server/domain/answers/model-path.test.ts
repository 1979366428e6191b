/**
 * The language-model path through the real app (POST /chatbots/{id}/messages and the
 * conversation's follow-up messages), with the local stand-in that speaks the OpenAI protocol:
 * structured output (covered or not, the passages used, the answer, follow-ups), the fallback to
 * the marker form for a server without it, and the conversation's history sent as turns.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { META_MARKER } from '../../../../server/domain/answers/prompt.js';
import { startChatStandin, type ChatStandin } from '../../../helpers/chat-standin.js';
import { textBot, type TextBot } from './text-bot.js';

const KNOWLEDGE: [string, string][] = [
  [
    'Delivery',
    'Standard delivery takes three to five working days and costs 4.90 EUR. Orders above 50 EUR are delivered free of charge.',
  ],
  ['Returns', 'You can return any item within 30 days of delivery for a full refund.'],
];

describe('the language-model path', () => {
  let standin: ChatStandin;
  let bot: TextBot;
  beforeAll(async () => {
    standin = await startChatStandin();
    bot = await textBot(KNOWLEDGE, { title: 'Acme', env: { OPENAI_BASE_URL: standin.baseUrl } });
  });
  afterAll(async () => {
    await bot?.t.close();
    await standin?.close();
  });
  beforeEach(() => {
    standin.requests.length = 0;
  });

  it('asks for structured output and reads the answer, the passages used and the follow-ups from it', async () => {
    const answer = (await bot.t.call('POST', `${bot.base}/messages`, bot.token, { message: 'Can I return an item?' }))
      .body.data.answer;
    const request = standin.requests.at(-1)!.body;
    expect(request.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'parley_answer', strict: true },
    });
    expect(
      (request.response_format as { json_schema: { schema: { required: string[] } } }).json_schema.schema.required,
    ).toEqual(['answered', 'sources', 'answer', 'followUps']);
    expect(request.messages[0].content).toContain('reply with exactly one JSON object');
    expect(request.messages[0].content).not.toContain(META_MARKER);
    // The stand-in answers from passage [1] as {"answered": true, "sources": [1], "answer": "From the documentation: …", "followUps": [...]}.
    expect(answer.text).toMatch(/^From the documentation: You can return any item within 30 days/);
    expect(answer.text).not.toContain('{');
    expect(answer.unanswered).toBe(false);
    expect(answer.sources.map((s: { title: string }) => s.title)).toEqual(['Returns']);
    expect(answer.followUps.length).toBeGreaterThan(0);
  });

  it("sends the conversation's history as turns: the visitor's as user, the answers as assistant", async () => {
    const first = (
      await bot.t.call('POST', `${bot.base}/messages`, bot.token, { message: 'How long does delivery take?' })
    ).body.data;
    const conversationId = first.conversation.threadId as string;
    const second = await bot.t.call('POST', `${bot.base}/conversations/${conversationId}/messages`, bot.token, {
      message: 'And can I return an item?',
    });
    expect(second.status).toBe(201);
    const { messages } = standin.requests.at(-1)!.body;
    expect(messages.slice(2).map((m) => [m.role, m.content])).toEqual([
      ['user', 'How long does delivery take?'],
      ['assistant', first.answer.text],
      ['user', 'And can I return an item?'],
    ]);
    // The passages are searched for the question: the system messages hold no visitor turn.
    expect(messages[1].content).not.toContain('How long does delivery take?');
  });

  it('a server refusing structured output is asked again in the marker form, now and for later questions', async () => {
    const refusing = await textBot(KNOWLEDGE, { title: 'Acme 2', env: { OPENAI_BASE_URL: standin.baseUrl } });
    try {
      standin.next({
        kind: 'status',
        status: 400,
        body: {
          error: {
            message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
            type: 'invalid_request_error',
          },
        },
      });
      const answer = await refusing.ask('Can I return an item?');
      expect(answer.text).toMatch(/^From the documentation: You can return any item/);
      expect(answer.sources.map((s) => s.title)).toEqual(['Returns']);
      expect(standin.requests).toHaveLength(2);
      const retried = standin.requests[1].body;
      expect(retried.response_format).toBeUndefined();
      expect(retried.messages[0].content).toContain(META_MARKER);
      expect(retried.messages[0].content).not.toContain('reply with exactly one JSON object');
      await refusing.ask('How long does delivery take?');
      expect(standin.requests).toHaveLength(3);
      expect(standin.requests[2].body.response_format).toBeUndefined();
    } finally {
      await refusing.t.close();
    }
  });
});
