/**
 * A short follow-up that depends on what was asked before ("What about that?") is searched with
 * the visitor's latest question, not an earlier one: asked after "shipping?" then "gift
 * wrapping?", it is answered from the gift-wrapping page. Through the real app, in one conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textBot, type Answer, type TextBot } from './text-bot.js';

let bot: TextBot;

beforeAll(async () => {
  bot = await textBot(
    [
      [
        'Shipping',
        '# Shipping\n\nWe offer shipping to every country in the EU. Shipping costs 5 euros per order and takes 2 to 4 days.',
      ],
      [
        'Gift wrapping',
        '# Gift wrapping\n\nWe offer gift wrapping for every item. Gift wrapping costs 3 euros and uses recycled paper.',
      ],
    ],
    { title: 'Shop' },
  );
});
afterAll(async () => {
  await bot?.t.close();
});

async function conversation(...messages: string[]): Promise<Answer[]> {
  const first = await bot.t.call('POST', `${bot.base}/messages`, bot.token, { message: messages[0] });
  expect(first.status).toBe(201);
  const answers: Answer[] = [first.body.data.answer];
  const { threadId } = first.body.data.conversation;
  for (const message of messages.slice(1)) {
    const res = await bot.t.call('POST', `${bot.base}/conversations/${threadId}/messages`, bot.token, { message });
    expect(res.status).toBe(201);
    answers.push(res.body.data.answer);
  }
  return answers;
}

describe('a follow-up is joined with the latest question', () => {
  it('after shipping then gift wrapping, "What about that?" is answered from the gift-wrapping page', async () => {
    const [shipping, wrapping, followUp] = await conversation(
      'Do you offer shipping?',
      'Do you offer gift wrapping?',
      'What about that?',
    );
    expect(shipping.sources.map((s) => s.title)).toEqual(['Shipping']);
    expect(wrapping.sources.map((s) => s.title)).toEqual(['Gift wrapping']);
    expect(followUp.unanswered).toBe(false);
    expect(followUp.sources.map((s) => s.title)).toEqual(['Gift wrapping']);
    expect(followUp.text).toMatch(/gift wrapping/i);
  });

  it('in the other order, the same follow-up is answered from the shipping page', async () => {
    const [, , followUp] = await conversation(
      'Do you offer gift wrapping?',
      'Do you offer shipping?',
      'What about that?',
    );
    expect(followUp.sources.map((s) => s.title)).toEqual(['Shipping']);
  });
});
