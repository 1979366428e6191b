/**
 * The README's quick-start site (three pages of a small shop's help centre), crawled as text
 * through the real app and asked the questions a visitor asks first, with the built-in answerer:
 * what a new owner sees before anything else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { textBot, type Answer, type TextBot } from './text-bot.js';

const KNOWLEDGE: [string, string][] = [
  ['Acme help centre', 'Answers about orders, delivery and returns.'],
  [
    'Delivery',
    'Standard delivery takes three to five working days and costs 4.90 EUR. Orders above 50 EUR are delivered free of charge.',
  ],
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

/** The README's step 2, byte for byte: three HTML pages the chatbot learns by crawling them. */
const README_SITE: Record<string, string> = {
  '/': `<!doctype html><title>Acme help centre</title>
<h1>Acme help centre</h1><p>Answers about orders, delivery and returns.</p>
<a href="delivery.html">Delivery</a> <a href="returns.html">Returns</a>
`,
  '/delivery.html': `<!doctype html><title>Delivery</title>
<h1>Delivery</h1><p>Standard delivery takes three to five working days and costs 4.90 EUR.
Orders above 50 EUR are delivered free of charge.</p>
`,
  '/returns.html': `<!doctype html><title>Returns</title>
<h1>Returns</h1><p>You can return any item within 30 days of delivery for a full refund.</p>
`,
};

describe('the quick-start site in a conversation (crawled as the README does)', () => {
  let bot: { t: TestApp; token: string; base: string };
  let site: Server;
  beforeAll(async () => {
    site = createServer((req, res) => {
      const page = README_SITE[(req.url ?? '/').split('?')[0]];
      if (page === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const t = await buildTestApp({ env: { ALLOW_PRIVATE_FETCH: '1', QUEUE_POLL_MS: '20' } });
    const { token } = await t.token();
    const created = await t.call('POST', '/api/v2/chatbots', token, { title: 'Acme help' });
    const base = `/api/v2/chatbots/${created.body.data.chatbot.id}`;
    const job = await t.call('POST', `${base}/knowledge/website`, token, {
      url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/`,
    });
    expect(job.status).toBe(202);
    await t.app.services.queue.drain(30_000);
    bot = { t, token, base };
  });
  afterAll(async () => {
    await bot?.t.close();
    site?.closeAllConnections();
    await new Promise((r) => site?.close(r));
  });

  /** Sends the messages in one conversation, as the widget does; the answers in order. */
  async function conversation(...messages: string[]) {
    const answers: (Answer & { followUps: unknown[] })[] = [];
    let id: string | null = null;
    for (const message of messages) {
      const res = await bot.t.call(
        'POST',
        id ? `${bot.base}/conversations/${id}/messages` : `${bot.base}/messages`,
        bot.token,
        { message },
      );
      expect(res.status).toBe(201);
      id ??= res.body.data.conversation.threadId as string;
      expect(id).toBeTruthy();
      answers.push(res.body.data.answer);
    }
    return answers;
  }

  it('a greeting first does not change the answer: "How long does delivery take?" is answered from the Delivery page', async () => {
    const [hello, delivery] = await conversation('Hi there', 'How long does delivery take?');
    expect(hello.unanswered).toBe(false);
    expect(hello.sources).toEqual([]);
    expect(delivery.unanswered).toBe(false);
    expect(delivery.sources[0]?.title).toBe('Delivery');
    expect(delivery.text).toMatch(/three to five working days/);
  });

  it('neither does an off-topic question the site refused, nor thanks', async () => {
    const [weather, delivery, thanks, returns] = await conversation(
      "What's the weather going to be like tomorrow?",
      'How long does delivery take?',
      'thanks!',
      'Can I return an item?',
    );
    expect(weather.unanswered).toBe(true);
    expect(delivery.sources[0]?.title).toBe('Delivery');
    expect(thanks.unanswered).toBe(false);
    expect(returns.sources[0]?.title).toBe('Returns');
  });

  it('another question before it changes nothing either: each is answered from its own page', async () => {
    for (const [first, second, page] of [
      ['Can I return an item?', 'How long does delivery take?', 'Delivery'],
      ['How long does delivery take?', 'refund time?', 'Returns'],
      ['Do you sell gift cards?', 'refund time?', 'Returns'],
      ['Do you sell gift cards?', 'delivery cost?', 'Delivery'],
      ['Who won the football world cup in 1998?', 'refund time?', 'Returns'],
      ['Which planet has the most moons in the solar system?', 'How long does delivery take?', 'Delivery'],
      ['My grandmother knits scarves and sweaters, do you stock wool?', 'refund time?', 'Returns'],
      ['Do you accept Bitcoin or Klarna?', 'refund time?', 'Returns'],
      ['Can I pay with Bitcoin?', 'delivery cost?', 'Delivery'],
      ['Can I return an item for a full refund?', 'delivery cost?', 'Delivery'],
      ['Can I return an item within 30 days?', 'how long does delivery take?', 'Delivery'],
      ['What does standard delivery cost?', 'can I return an item?', 'Returns'],
    ]) {
      const [, answer] = await conversation(first, second);
      expect(answer.unanswered, `${first} / ${second}`).toBe(false);
      expect(answer.sources[0]?.title, `${first} / ${second}`).toBe(page);
    }
  });

  it('a follow-up that depends on the previous question is searched with it: "how much is it?" after delivery', async () => {
    const [alone] = await conversation('how much is it?');
    expect(alone.unanswered).toBe(true);
    const [, it] = await conversation('How long does delivery take?', 'how much is it?');
    expect(it.unanswered).toBe(false);
    expect(it.sources[0]?.title).toBe('Delivery');
    const [, price] = await conversation('How long does delivery take?', 'and how much does it cost?');
    expect(price.unanswered).toBe(false);
    expect(price.sources[0]?.title).toBe('Delivery');
    expect(price.text).toMatch(/4\.90 EUR/);
  });

  it('small talk gets a short reply and no knowledge gap', async () => {
    const replies = await conversation('hello', 'are you a bot?', 'how are you?', 'bye');
    for (const r of replies) {
      expect(r.unanswered).toBe(false);
      expect(r.sources).toEqual([]);
    }
    expect(replies[1].text).toMatch(/automated assistant/);
    expect(replies[3].text).toMatch(/Goodbye/);
    const gaps = await bot.t.call('GET', `${bot.base}/knowledge-gaps`, bot.token);
    expect(gaps.status).toBe(200);
    const questions = gaps.body.data.knowledgeGaps.map((g: { question: string }) => g.question);
    expect(questions.filter((q: string) => ['hello', 'are you a bot?', 'how are you?', 'bye'].includes(q))).toEqual([]);
  });
});
