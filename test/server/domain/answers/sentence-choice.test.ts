/**
 * The built-in answerer's choice of sentences around the best one when it is not the first of its
 * block: the sentence before joins only when the best one refers back to it ("This…", "It…");
 * otherwise the best sentence stands alone.
 */
import { describe, expect, it } from 'vitest';
import { extractAnswer } from '../../../../server/domain/answers/extractive.js';
import { hit } from './fixtures.js';

const passage = (text: string, title = 'Returns') => [{ ...hit({ title, headingPath: [title], text }), n: 1 }];

describe('the sentence before the best one', () => {
  it('joins when the best sentence, third in its block, refers back to it', () => {
    const passages = passage(
      'Orders ship from our warehouse in Lyon. Returned parcels need their original packaging. This applies to every parcel sent back within 30 days.',
    );
    const answer = extractAnswer('Does the packaging rule apply to every parcel sent back?', passages)!;
    expect(answer.text).toBe(
      'Returned parcels need their original packaging. This applies to every parcel sent back within 30 days.',
    );
  });

  it('stays out when the best sentence, second in its block, stands on its own', () => {
    const passages = passage(
      'Orders ship from our warehouse in Lyon. Parcels sent back within 30 days are refunded in full.',
    );
    const answer = extractAnswer('Are parcels sent back within 30 days refunded?', passages)!;
    expect(answer.text).toBe('Parcels sent back within 30 days are refunded in full.');
  });
});

describe('a sentence joins for what it says, not for where it stands', () => {
  const headlamp = [
    {
      ...hit({
        title: 'Beam headlamp',
        headingPath: ['Beam headlamp'],
        text: 'The Beam headlamp gives up to 400 lumens and has a red light mode. It charges by USB-C in two hours and lasts 40 hours on the lowest setting. Price: 45 euros.',
      }),
      n: 1,
    },
  ];

  it('a duration question quotes the sentence with the duration; the one before, about the page only, stays out and the heading says what "It" is', () => {
    const answer = extractAnswer('How long does the headlamp battery last?', headlamp)!;
    expect(answer.text).toBe(
      '**Beam headlamp** — It charges by USB-C in two hours and lasts 40 hours on the lowest setting.',
    );
  });

  it('a price of another thing on the same page does not join the price asked for', () => {
    const prices = passage(
      'Ein Stadtrad kostet 12 Euro pro Tag und 60 Euro pro Woche. Ein E-Bike kostet 25 Euro pro Tag und 120 Euro pro Woche. Kinderräder und Kindersitze kosten 5 Euro pro Tag.',
      'Preise',
    );
    expect(extractAnswer('Was kostet ein E-Bike pro Tag?', prices)!.text).toBe(
      'Ein E-Bike kostet 25 Euro pro Tag und 120 Euro pro Woche.',
    );
  });

  it('an FAQ question in the text is not quoted: the sentence answering it is', () => {
    const faq = passage(
      'Can I take a bike on the train? In Berlin you need a bicycle ticket for the S-Bahn. Can I return the bike in the other city? Yes, one-way rentals between Berlin and Madrid cost 40 euros extra.',
      'Questions',
    );
    const answer = extractAnswer('Can I return the bike in the other city?', faq)!;
    expect(answer.text).toBe('Yes, one-way rentals between Berlin and Madrid cost 40 euros extra.');
  });
});
