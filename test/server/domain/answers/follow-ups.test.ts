/**
 * Suggested follow-ups are questions the knowledge answers: made at ingest from the pages
 * (FAQ questions, rules, definitions, durations and prices), stored with the chunk, checked
 * before they are offered. Through the real app: the README's quick-start site, and a German page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkQuestions } from '../../../../server/domain/knowledge/chunk-questions.js';
import { textBot, type TextBot } from './text-bot.js';

const QUICK_START: [string, string][] = [
  ['Acme help centre', 'Answers about orders, delivery and returns.'],
  [
    'Delivery',
    'Standard delivery takes three to five working days and costs 4.90 EUR. Orders above 50 EUR are delivered free of charge.',
  ],
  ['Returns', 'You can return any item within 30 days of delivery for a full refund.'],
];
const TITLES = QUICK_START.map(([title]) => title.toLowerCase());

describe('follow-ups that are questions', () => {
  let site: TextBot;
  beforeAll(async () => {
    site = await textBot(QUICK_START, { title: 'Acme help' });
  });
  afterAll(async () => {
    await site?.t.close();
  });

  it('are questions the site answers, never a page title nor the question just asked, and each one clicked is answered', async () => {
    const asked = ['How long does delivery take?', 'Can I return an item?', 'How much is shipping?'];
    const offered = new Set<string>();
    for (const question of asked) {
      const answer = (await site.t.call('POST', `${site.base}/messages`, site.token, { message: question })).body.data
        .answer;
      expect(answer.unanswered, question).toBe(false);
      for (const f of answer.followUps as { title: string; description: string }[]) {
        expect(f.title, question).toMatch(/\?$/);
        expect(f.description).toBe(f.title);
        expect(TITLES).not.toContain(f.title.toLowerCase());
        expect(f.title.toLowerCase()).not.toBe(question.toLowerCase());
        offered.add(f.description);
      }
    }
    // The delivery answer suggests the returns rule, the returns answer the delivery time or price.
    expect([...offered]).toContain('Can I return any item?');
    expect([...offered].some((q) => /^How (long|much) does delivery/.test(q))).toBe(true);
    for (const q of offered) {
      const clicked = await site.ask(q);
      expect(clicked.unanswered, q).toBe(false);
      expect(clicked.sources.length, q).toBeGreaterThan(0);
    }
  });

  it("are written in the page's language", () => {
    expect(
      chunkQuestions({
        title: 'Versand',
        headingPath: [],
        text: 'Der Versand dauert zwei Werktage und kostet 4,90 Euro.',
      }),
    ).toEqual(['Wie lange dauert Versand?', 'Was kostet Versand?']);
    expect(
      chunkQuestions({ title: 'Envíos', headingPath: [], text: 'El envío tarda dos días y cuesta 5 euros.' }),
    ).toEqual(['¿Cuánto tarda envíos?', '¿Cuánto cuesta envíos?']);
    expect(
      chunkQuestions({
        title: 'FAQ',
        headingPath: [],
        text: '## Kann ich das Brot einfrieren?\nJa, in Scheiben geschnitten.',
      }),
    ).toEqual(['Kann ich das Brot einfrieren?']);
    expect(
      chunkQuestions({
        title: 'Spedizione',
        headingPath: [],
        text: 'La spedizione del pacco è gratuita per gli ordini sopra i 50 euro, altrimenti costa 4,90 euro. Il corriere non consegna di domenica.',
      }),
    ).toEqual(['Quanto costa spedizione?']);
    // A language without templates (or too little text to tell) gets its FAQ questions only, never another language's.
    expect(
      chunkQuestions({
        title: 'Leverans',
        headingPath: [],
        text: '## Kan jag returnera varan?\nLeveransen tar tre dagar och kostar 49 kronor.',
      }),
    ).toEqual(['Kan jag returnera varan?']);
    expect(
      chunkQuestions({
        title: 'Levering',
        headingPath: [],
        text: 'De levering duurt drie werkdagen en kost 4,90 euro.',
      }),
    ).not.toEqual(expect.arrayContaining([expect.stringMatching(/¿|Cuánto|Combien|How /)]));
    // A page title alone makes no question.
    expect(
      chunkQuestions({
        title: 'Acme help centre',
        headingPath: [],
        text: 'Answers about orders, delivery and returns.',
      }),
    ).toEqual([]);
  });
});
