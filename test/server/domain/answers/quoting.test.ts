/**
 * The built-in answer quotes the sentences that answer, not their neighbours: the README's
 * quick-start site and the demo's knowledge, crawled as text through the real app and asked
 * through POST /chatbots/{id}/messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from '../../../../demo/sample.js';
import { textBot, type TextBot } from './text-bot.js';

const QUICK_START: [string, string][] = [
  ['Acme help centre', 'Answers about orders, delivery and returns.'],
  [
    'Delivery',
    'Standard delivery takes three to five working days and costs 4.90 EUR. Orders above 50 EUR are delivered free of charge.',
  ],
  ['Returns', 'You can return any item within 30 days of delivery for a full refund.'],
];

const RETURNS_RULE = 'You can return any item within 30 days of delivery for a full refund.';
const DELIVERY_TIME = 'Standard delivery takes three to five working days and costs 4.90 EUR.';

describe('answers quote only what answers', () => {
  let site: TextBot;
  let demo: TextBot;
  beforeAll(async () => {
    site = await textBot(QUICK_START, { title: 'Acme help' });
    demo = await textBot([['Help centre', SAMPLE]], { title: 'Garden Supply Co.' });
  });
  afterAll(async () => {
    await site?.t.close();
    await demo?.t.close();
  });

  it('the quick-start questions: the delivery time without the returns sentence, the return rule without the index page, the price', async () => {
    const delivery = await site.ask('How long does delivery take?');
    expect(delivery.text).toBe(DELIVERY_TIME);
    expect(delivery.sources.map((s) => s.title)).toEqual(['Delivery']);

    const returns = await site.ask('Can I return an item?');
    expect(returns.text).toBe(RETURNS_RULE);
    expect(returns.sources.map((s) => s.title)).toEqual(['Returns']);

    const shipping = await site.ask('How much is shipping?');
    expect(shipping.text).toContain('costs 4.90 EUR');
    expect(shipping.text).not.toContain('return');
    expect(shipping.text).not.toContain('Answers about');
  });

  it('the demo\'s starter "How do returns work?" gets the 30-day rule, and no delivery or damaged-plants sentence', async () => {
    const answer = await demo.ask('How do returns work?');
    expect(answer.unanswered).toBe(false);
    expect(answer.text).toContain('Items can be returned within 30 days.');
    expect(answer.text).not.toMatch(/deliver|ship|damaged/i);
  });
});
