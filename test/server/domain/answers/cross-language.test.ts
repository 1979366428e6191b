/**
 * Visitors ask in their language, not the site's: a small help centre in English with one German
 * page, built through the real app (POST /knowledge/text, the queue drained) and asked through
 * POST /chatbots/{id}/messages with the built-in answerer, on SQLite and on PostgreSQL. A German or Spanish question reaches
 * the English article (translations.ts), an English question the German one, and the answer
 * cites the article it quotes first; a question the site does not answer stays refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_MESSAGES } from '../../../../server/domain/answers/messages.js';
import { textBot, type TextBot } from './text-bot.js';

const KNOWLEDGE: [string, string][] = [
  [
    'Delete your account',
    'To delete your account, open Settings and choose Delete account. Your data is removed after 14 days, and until then you can still restore it.',
  ],
  [
    'Reset your password',
    'Use the Forgot password link on the sign-in page. We email you a link that is valid for one hour.',
  ],
  [
    'Delivery days',
    'Bread is delivered on Tuesdays, Thursdays and Saturdays between 5 am and 8 am. The driver leaves the bag at your door.',
  ],
  ['Payment methods', 'We accept Visa, Mastercard and PayPal. Invoices are sent by email at the start of each month.'],
  [
    'Abo kündigen',
    'Sie können Ihr Brot-Abo jederzeit unter Mein Abo kündigen. Es gibt keine Mindestlaufzeit und keine Kündigungsgebühr.',
  ],
];

// Both stores: SQLite's FTS5 and PostgreSQL's full-text search tokenise the other languages' words differently.
describe.each(['sqlite', 'postgres'] as const)('on %s', (dialect) => {
  let bot: TextBot;
  beforeAll(async () => {
    bot = await textBot(KNOWLEDGE, { title: 'Bakery', dialect });
  });
  afterAll(async () => {
    await bot?.t.close();
  });
  const ask = (message: string) => bot.ask(message);

  describe('a question in another language than the page that answers it', () => {
    it('a German question is answered from the English article, which is cited first', async () => {
      const answer = await ask('Wie lösche ich mein Konto?');
      expect(answer.unanswered).toBe(false);
      expect(answer.text).toContain('To delete your account');
      expect(answer.sources[0].title).toBe('Delete your account');
    });

    it('a Spanish question, with its own inflection of the verb, finds the English article', async () => {
      const answer = await ask('¿Cómo restablezco mi contraseña?');
      expect(answer.unanswered).toBe(false);
      expect(answer.sources[0].title).toBe('Reset your password');
    });

    it('an English question is answered from the German page', async () => {
      const answer = await ask('How do I cancel my subscription?');
      expect(answer.unanswered).toBe(false);
      expect(answer.text).toContain('jederzeit');
      expect(answer.sources[0].title).toBe('Abo kündigen');
    });

    it('a question the site does not answer, in German, is still refused', async () => {
      const answer = await ask('Verkauft ihr auch Kaffeebohnen?');
      expect(answer).toMatchObject({ text: ANSWER_MESSAGES.en.noInformation, sources: [], unanswered: true });
    });
  });
});
