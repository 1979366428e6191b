/**
 * Small talk with a language model configured, through the real app and the local stand-in that
 * speaks the OpenAI protocol: the same short localised reply as the built-in answerer, without a
 * model call, never a knowledge gap; a greeting the phrases miss is no gap even when the model
 * says "not covered"; and the question after a greeting still reaches the model, the greeting as
 * a turn of the history.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANSWER_MESSAGES } from '../../../../server/domain/answers/messages.js';
import { startChatStandin, type ChatStandin } from '../../../helpers/chat-standin.js';
import { textBot, type TextBot } from './text-bot.js';

const KNOWLEDGE: [string, string][] = [
  [
    'Delivery',
    'Standard delivery takes three to five working days and costs 4.90 EUR. Orders above 50 EUR are delivered free of charge.',
  ],
  ['Returns', 'You can return any item within 30 days of delivery for a full refund.'],
];
const GERMAN = { localization: { localization: { locale: 'de' } } };
const SMALL_TALK = [
  ['hi', 'greeting'],
  ['Hallo!', 'greeting'],
  ['thanks', 'thanks'],
  ['bye', 'goodbye'],
  ['are you a bot?', 'aboutMe'],
] as const;

async function gaps(bot: TextBot): Promise<string[]> {
  const res = await bot.t.call('GET', `${bot.base}/knowledge-gaps`, bot.token);
  expect(res.status).toBe(200);
  return (res.body.data.knowledgeGaps as { question: string }[]).map((g) => g.question);
}

describe('small talk with a language model configured', () => {
  let standin: ChatStandin;
  let model: TextBot;
  let builtIn: TextBot;
  beforeAll(async () => {
    standin = await startChatStandin();
    model = await textBot(KNOWLEDGE, { title: 'Acme', settings: GERMAN, env: { OPENAI_BASE_URL: standin.baseUrl } });
    builtIn = await textBot(KNOWLEDGE, { title: 'Acme offline', settings: GERMAN });
  });
  afterAll(async () => {
    await model?.t.close();
    await builtIn?.t.close();
    await standin?.close();
  });
  beforeEach(() => {
    standin.requests.length = 0;
  });

  it("gets the locale's short reply, the same as without a model, and the model is not asked", async () => {
    for (const [message, kind] of SMALL_TALK) {
      const withModel = await model.ask(message);
      const offline = await builtIn.ask(message);
      expect(withModel, message).toMatchObject({ text: ANSWER_MESSAGES.de[kind], sources: [], unanswered: false });
      expect(withModel.text, message).toBe(offline.text);
    }
    expect(standin.requests).toHaveLength(0);
    expect(await gaps(model)).toEqual([]);
  });

  it('a greeting the phrases miss is no knowledge gap, even when the model says it is not covered', async () => {
    const greeting = 'Hello everyone, nice to meet you!';
    standin.next({
      kind: 'reply',
      text: JSON.stringify({ answered: false, sources: [], answer: 'Hallo! Wie kann ich helfen?', followUps: [] }),
    });
    const answer = await model.ask(greeting);
    expect(standin.requests).toHaveLength(1);
    expect(answer).toMatchObject({ text: 'Hallo! Wie kann ich helfen?', unanswered: false });
    // A real question the model finds not covered is still a gap.
    const uncovered = 'Do you sell garden furniture?';
    standin.next({
      kind: 'reply',
      text: JSON.stringify({ answered: false, sources: [], answer: ANSWER_MESSAGES.de.noInformation, followUps: [] }),
    });
    expect((await model.ask(uncovered)).unanswered).toBe(true);
    expect(await gaps(model)).toEqual([uncovered]);
  });

  it('the question after a greeting reaches the model, searched alone, with the greeting as history turns', async () => {
    const first = (await model.t.call('POST', `${model.base}/messages`, model.token, { message: 'Hi there' })).body
      .data;
    expect(first.answer.text).toBe(ANSWER_MESSAGES.de.greeting);
    expect(standin.requests).toHaveLength(0);
    const question = 'How long does delivery take?';
    const second = await model.t.call(
      'POST',
      `${model.base}/conversations/${first.conversation.threadId as string}/messages`,
      model.token,
      { message: question },
    );
    expect(second.status).toBe(201);
    expect(second.body.data.answer).toMatchObject({ unanswered: false, sources: [{ title: 'Delivery' }] });
    expect(second.body.data.answer.text).toContain('three to five working days');
    expect(standin.requests).toHaveLength(1);
    const { messages } = standin.requests[0].body;
    expect(messages.slice(2).map((m) => [m.role, m.content])).toEqual([
      ['user', 'Hi there'],
      ['assistant', ANSWER_MESSAGES.de.greeting],
      ['user', question],
    ]);
    expect(messages[1].content).not.toContain('Hi there');
  });
});
