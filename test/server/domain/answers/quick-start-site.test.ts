/**
 * The README's quick-start site (three pages of a small shop's help centre), crawled as text
 * through the real app and asked the questions a visitor asks first, with the built-in answerer:
 * what a new owner sees before anything else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';

const KNOWLEDGE = [
  ['Acme help centre', 'Answers about orders, delivery and returns.'],
  ['Delivery', 'Standard delivery takes three to five working days and costs 4.90 EUR. Orders above 50 EUR are delivered free of charge.'],
  ['Returns', 'You can return any item within 30 days of delivery for a full refund.'],
];

describe('the quick-start site', () => {
  let t: TestApp;
  let token: string;
  let base: string;

  beforeAll(async () => {
    t = await buildTestApp({ env: { QUEUE_POLL_MS: '20' } });
    ({ token } = await t.token());
    const created = await t.call('POST', '/api/v2/chatbots', token, { title: 'Acme help' });
    base = `/api/v2/chatbots/${created.body.data.chatbot.id}`;
    for (const [title, text] of KNOWLEDGE) expect((await t.call('POST', `${base}/knowledge/text`, token, { title, text })).status).toBe(202);
    await t.app.services.queue.drain(30_000);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function ask(message: string) {
    const res = await t.call('POST', `${base}/messages`, token, { message });
    expect(res.status).toBe(201);
    return res.body.data.answer as { text: string; sources: { title: string }[]; unanswered: boolean };
  }

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
