/**
 * Questions the knowledge does not cover, through the real app and its HTTP routes: the language
 * model is told the gate's verdict and answers with the chatbot locale's no-information reply
 * (the stand-in model follows the prompt, as a real one is asked to), no sources are cited, and
 * the question is recorded as a knowledge gap exactly once, also when the send is retried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_MESSAGES } from '../../../../server/domain/answers/messages.js';
import { NOT_COVERED_NOTE } from '../../../../server/domain/answers/prompt.js';
import { startChatStandin, type ChatStandin } from '../../../helpers/chat-standin.js';
import { textBot, type TextBot } from './text-bot.js';

const KNOWLEDGE: [string, string][] = [
  [
    'Pause your subscription',
    'You can pause your bread subscription for up to 8 weeks, for example while you are on holiday. Go to My subscription, choose Pause, and pick the date deliveries should resume.',
  ],
  [
    'Cancel your subscription',
    'You can cancel your bread subscription at any time under My subscription. There is no minimum term and no cancellation fee.',
  ],
  [
    'Delivery days',
    'Bread is delivered on Tuesdays, Thursdays and Saturdays between 5 am and 8 am. The driver leaves the bag at your door.',
  ],
  [
    'Opening hours',
    'Our bakery shop on Mill Street is open Monday to Friday from 7 am to 6 pm. On Good Friday the shop opens from 8 am to 12 noon.',
  ],
];
const UNCOVERED = 'Do you sell coffee subscriptions?';
const COVERED = 'How do I pause my bread subscription?';

const bakery = (env: Record<string, string> = {}) =>
  textBot(KNOWLEDGE, { title: 'Bakery', settings: { localization: { localization: { locale: 'de' } } }, env });
const ask = (bot: TextBot, message: string, idempotencyKey?: string) => bot.ask(message, idempotencyKey);

async function gaps(bot: TextBot): Promise<string[]> {
  const res = await bot.t.call('GET', `${bot.base}/knowledge-gaps`, bot.token);
  expect(res.status).toBe(200);
  return (res.body.data.knowledgeGaps as { question: string }[]).map((g) => g.question);
}

describe('a question the knowledge does not cover, with a language model', () => {
  let standin: ChatStandin;
  let bot: TextBot;
  beforeAll(async () => {
    standin = await startChatStandin();
    bot = await bakery({ OPENAI_BASE_URL: standin.baseUrl });
  });
  afterAll(async () => {
    await bot?.t.close();
    await standin?.close();
  });

  it("gets the locale's no-information reply and no sources; the model was told the passages do not cover it", async () => {
    const answer = await ask(bot, UNCOVERED);
    expect(answer.text).toBe(ANSWER_MESSAGES.de.noInformation);
    expect(answer.sources).toEqual([]);
    expect(answer.unanswered).toBe(true);
    const request = standin.requests.at(-1)!.body;
    expect(request.messages[0].content).toContain(`exactly: "${ANSWER_MESSAGES.de.noInformation}"`);
    expect(request.messages[1].content).toContain(NOT_COVERED_NOTE);
  });

  it('a covered question is answered with its source, and the model is not told otherwise', async () => {
    const answer = await ask(bot, COVERED);
    expect(answer.unanswered).toBe(false);
    expect(answer.text).toContain('pause your bread subscription');
    expect(answer.sources).toHaveLength(1);
    expect(standin.requests.at(-1)!.body.messages[1].content).not.toContain(NOT_COVERED_NOTE);
  });

  it('records the uncovered question as a knowledge gap exactly once, retries included', async () => {
    const before = (await gaps(bot)).filter((q) => q === UNCOVERED).length;
    await ask(bot, UNCOVERED, 'retry-me-1');
    await ask(bot, UNCOVERED, 'retry-me-1');
    await ask(bot, COVERED);
    expect((await gaps(bot)).filter((q) => q === UNCOVERED).length).toBe(before + 1);
    expect(await gaps(bot)).not.toContain(COVERED);
  });
});

describe('a question the knowledge does not cover, with the built-in answerer', () => {
  let bot: TextBot;
  beforeAll(async () => {
    bot = await bakery();
  });
  afterAll(async () => {
    await bot?.t.close();
  });

  it('is refused honestly and recorded as one knowledge gap; a covered one is answered and recorded as none', async () => {
    const refused = await ask(bot, UNCOVERED, 'once');
    expect(refused).toMatchObject({ text: ANSWER_MESSAGES.de.noInformation, sources: [], unanswered: true });
    await ask(bot, UNCOVERED, 'once');
    const answered = await ask(bot, COVERED);
    expect(answered.unanswered).toBe(false);
    expect(answered.sources.length).toBeGreaterThan(0);
    expect(await gaps(bot)).toEqual([UNCOVERED]);
  });
});
