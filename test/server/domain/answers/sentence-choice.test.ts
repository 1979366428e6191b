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
