/**
 * Questions mapped onto the base's own words (expansion.ts) with the real WordNet database, the
 * base's word statistics (knowledge-profile.ts) and the gate weighted by them (relevance.ts).
 */
import { describe, expect, it } from 'vitest';
import { createWordNet } from '../../../../server/adapters/wordnet.js';
import {
  correction,
  editDistance,
  expandedQuery,
  questionConcepts,
} from '../../../../server/domain/answers/expansion.js';
import { buildProfile, idf, profileCache } from '../../../../server/domain/answers/knowledge-profile.js';
import { CALIBRATED_THRESHOLD, conceptRelevance } from '../../../../server/domain/answers/relevance.js';
import { calibratedThreshold, CALIBRATION_FLOOR } from '../../../../server/domain/answers/calibration.js';
import { asks } from '../../../../server/domain/answers/question-words.js';
import { sameWord, translations } from '../../../../server/domain/answers/translations.js';
import { stem } from '../../../../server/domain/answers/text.js';

const wordnet = createWordNet();
const PAGES = [
  { title: 'Refunds', heading: '', text: 'A refund returns money to the buyer within 5 to 10 business days.' },
  {
    title: 'Rate limits',
    heading: '',
    text: 'The API allows 100 requests per second. Above the limit you receive status 429.',
  },
  { title: 'Subscriptions', heading: '', text: 'You can pause or cancel your bread subscription at any time.' },
  { title: 'Allergens', heading: '', text: 'Every loaf lists its ingredients and allergens.' },
];
const profile = buildProfile(PAGES);
const hit = (p: (typeof PAGES)[number], i: number) => ({
  chunkId: i,
  documentId: `d${i}`,
  title: p.title,
  headingPath: [],
  text: p.text,
});
const hits = PAGES.map(hit);

describe('WordNet', () => {
  it('finds synonyms, derived and broader words, and the part of speech', () => {
    expect(wordnet.related('purchaser').map((r) => r.word)).toContain('buyer');
    expect(wordnet.related('purchaser').find((r) => r.word === 'buyer')?.close).toBe(true);
    expect(wordnet.related('throttled').map((r) => r.word)).toContain('limit');
    expect(wordnet.related('loaves').map((r) => r.word)).toContain('bread');
    expect(wordnet.partOfSpeech?.('coffee')).toBe('noun');
    expect(wordnet.partOfSpeech?.('see')).toBe('verb');
    expect(wordnet.partOfSpeech?.('subscripton')).toBeNull();
    expect(wordnet.related('qwxzv')).toEqual([]);
  });
});

describe('question concepts', () => {
  it('adds only words the base uses: "purchaser" becomes "buyer" here, and "coffee" brings nothing', () => {
    const concepts = questionConcepts('How soon will the purchaser get a reimbursement?', profile, wordnet);
    const purchaser = concepts.find((c) => c.word === 'purchaser')!;
    expect(purchaser.searchWords).toEqual(['buyer']);
    expect(expandedQuery('purchaser', concepts)).toContain('buyer');
    const coffee = questionConcepts('coffee subscriptions', profile, wordnet).find((c) => c.word === 'coffee')!;
    expect(coffee.searchWords).toEqual([]);
    expect(coffee.salience).toBeGreaterThan(1); // a noun names what is asked about
  });

  it('corrects a misspelling to the base’s word, not a real word to a look-alike', () => {
    expect(editDistance('cancle', 'cancel', 2)).toBe(1); // a swap of neighbours is one edit
    expect(correction('refnd', profile)).toBe('refund');
    const [concept] = questionConcepts('subscripton', profile, wordnet);
    // The base's word, in one of its forms (the title says "Subscriptions"): the same term to the search and the gate.
    expect(concept.searchWords.some((w) => /^subscriptions?$/.test(w))).toBe(true);
    expect(questionConcepts('bead', profile, wordnet)[0].searchWords).not.toContain('bread'); // a real word is no typo
  });

  it('reads multiword expressions WordNet lists: "for good" is permanently, "give back" is refund, "laid off" is not "got laid"', () => {
    const base = buildProfile([
      {
        title: 'Deleting your account',
        heading: '',
        text: 'A deleted account is removed permanently after 30 days; until then it can be reopened.',
      },
      { title: 'Refunds', heading: '', text: 'We refund the price of a returned item within 14 days.' },
      {
        title: 'When paying is hard',
        heading: '',
        text: 'If your employer had to discontinue your job, talk to us about a payment plan.',
      },
    ]);
    const good = questionConcepts('If I close my login for good, is there a way back?', base, wordnet).find(
      (c) => c.word === 'good',
    )!;
    expect(good.searchWords).toContain('permanently');
    const back = questionConcepts('Will you give my money back?', base, wordnet);
    expect(back.flatMap((c) => c.searchWords)).toContain('refund');
    expect(questionConcepts('I got laid off last month', base, wordnet).flatMap((c) => c.searchWords)).toContain(
      'discontinue',
    );
  });

  it('without statistics, every concept is just its word', () => {
    expect(
      questionConcepts('purchaser refnd', null, wordnet).every(
        (c) => c.alternatives.size === 1 && !c.searchWords.length,
      ),
    ).toBe(true);
  });
});

describe('question words', () => {
  it('reads what a question asks for in the shipped languages and searches the words the base answers it with', () => {
    expect(asks('refund time?')).toEqual(['duration']);
    expect(asks('How long until I get my money?')).toEqual(['duration']);
    expect(asks('¿Cuánto tiempo tengo para responder?')).toEqual(['duration']);
    expect(asks('Was kostet ein Helm?')).toEqual(['price']);
    expect(asks('Wann öffnet der Laden?')).toEqual(['time']);
    expect(asks('Can I pause my subscription?')).toEqual([]);
    const duration = questionConcepts('How long until the buyer sees the money?', profile, wordnet).find(
      (c) => c.word === 'duration',
    )!;
    // Only what this base says: "days" and "business" are on the refunds page, "hours" nowhere.
    expect(duration.searchWords).toEqual(['days', 'within', 'business']);
    expect(expandedQuery('How long until the buyer sees the money?', [duration])).toContain('days');
  });
});

describe('words of another language', () => {
  it('inflections meet by their shared beginning; short or merely similar words do not', () => {
    expect(sameWord('lösche', 'löschen')).toBe(true);
    expect(sameWord('cancelar', 'cancelacion')).toBe(true);
    expect(sameWord('restablezco', 'restablecer')).toBe(true);
    expect(sameWord('conta', 'contact')).toBe(false); // Portuguese "account" is not "contact"
    expect(sameWord('pagar', 'pagina')).toBe(false);
    expect(translations('Rückerstattung')).toContain('refund');
    expect(translations('cancelar')).toEqual(expect.arrayContaining(['cancelacion', 'stornieren', 'annuler']));
    expect(translations('cancelar')).not.toContain('delete');
    expect(translations('croissant')).toEqual([]);
    // Every shipped language that spaces its words: Danish, Swedish, Polish too.
    for (const word of ['adgangskode', 'lösenord', 'hasło']) expect(translations(word)).toContain('password');
    // A word that is also common English of another meaning is not listed: "what kind of bread" is not about children.
    expect(translations('kind')).toEqual([]);
    expect(translations('tag')).toEqual([]);
  });

  it("a German or Spanish question word stands for the base's English word, at full weight, and is no longer an unknown word", () => {
    const [refund] = questionConcepts('Rückerstattung', profile, wordnet);
    expect(refund.alternatives.get(stem('refund'))).toBe(1);
    expect(refund.unknown).toBeFalsy();
    const cancel = questionConcepts('¿Puedo cancelar la suscripción?', profile, wordnet);
    expect(cancel.find((c) => c.word === 'cancelar')!.searchWords).toContain('cancel');
    expect(cancel.find((c) => c.word === 'suscripción')!.alternatives.get(stem('subscription'))).toBe(1);
    // A word of no listed meaning brings nothing.
    expect(questionConcepts('Kaffeebohnen', profile, wordnet)[0].searchWords).toEqual([]);
  });
});

describe('the calibrated gate', () => {
  it('asks more of a base where unrelated questions find words to cover than of one where they find none', () => {
    expect(calibratedThreshold([0, 0, 0])).toBe(CALIBRATION_FLOOR);
    expect(calibratedThreshold([0.3, 0.3, 0.3])).toBeGreaterThan(calibratedThreshold([0.1, 0.1, 0.1]));
  });

  it('weighs words by how telling they are in this base', () => {
    expect(idf(profile, 'coffe')).toBeGreaterThan(idf(profile, 'subscript'));
  });

  it('passes a reworded question its stand-ins cover and stops a near-topic one whose telling word no page has', () => {
    const ask = (q: string) => {
      const concepts = questionConcepts(q, profile, wordnet);
      return conceptRelevance(concepts, hits, profile, CALIBRATED_THRESHOLD);
    };
    expect(ask('How do I pause my bread subscription?').relevant).toBe(true);
    expect(ask('Does the purchaser get a repayment?').relevant).toBe(true);
    expect(ask('Do you sell coffee subscriptions?').relevant).toBe(false);
    expect(ask('Which rope should I buy for climbing?').relevant).toBe(false);
  });
});

describe('the profile cache', () => {
  it('rebuilds when the chunks change, and only then', async () => {
    let version = 'v1';
    const texts = [{ id: 1, title: 'A', heading: '', text: 'alpha words' }];
    let reads = 0;
    const cache = profileCache({
      knowledgeVersion: async () => version,
      knowledgeTexts: async (_c, after) => {
        reads++;
        return texts.filter((t) => t.id > after);
      },
    });
    expect((await cache.get('bot'))!.df.has('alpha')).toBe(true);
    const readsAfterFirst = reads;
    await cache.get('bot');
    expect(reads).toBe(readsAfterFirst);
    version = 'v2';
    texts.push({ id: 2, title: 'B', heading: '', text: 'bravo words' });
    // The version is checked again once the last check is older than the cache's interval.
    const fresh = profileCache({
      knowledgeVersion: async () => version,
      knowledgeTexts: async (_c, after) => texts.filter((t) => t.id > after),
    });
    expect((await fresh.get('bot'))!.df.has('bravo')).toBe(true);
    expect(await profileCache({ customResponses: async () => [] } as never).get('bot')).toBeNull();
  });
});
