/**
 * The README's quick-start site (three pages of a small shop's help centre), crawled as text
 * through the real app and asked the questions a visitor asks first, with the built-in answerer:
 * what a new owner sees before anything else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textBot, type TextBot } from './text-bot.js';

const KNOWLEDGE: [string, string][] = [
  ['Acme help centre', 'Answers about orders, delivery and returns.'],
  ['Delivery', 'Standard delivery takes three to five working days and costs 4.90 EUR. Orders above 50 EUR are delivered free of charge.'],
  ['Returns', 'You can return any item within 30 days of delivery for a full refund.'],
];

describe('the quick-start site', () => {
  let bot: TextBot;
  beforeAll(async () => {
    bot = await textBot(KNOWLEDGE, { title: 'Acme help' });
  });
  afterAll(async () => {
    await bot?.t.close();
  });
  const ask = (message: string) => bot.ask(message);

  it('"shipping" is what many shoppers call delivery: its price is answered from the Delivery page', async () => {
    for (const q of ['How much is shipping?', 'shipping cost?', 'When will my order be shipped?']) {
      const answer = await ask(q);
      expect(answer.unanswered, q).toBe(false);
      expect(answer.sources[0]?.title, q).toBe('Delivery');
    }
  });

  it('the plain questions are answered from their page, and one the site does not answer is refused', async () => {
    expect((await ask('How long does delivery take?')).sources[0].title).toBe('Delivery');
    expect((await ask('refund time?')).sources[0].title).toBe('Returns');
    const giftCards = await ask('Do you sell gift cards?');
    expect(giftCards.unanswered).toBe(true);
    expect(giftCards.sources).toEqual([]);
  });
});
