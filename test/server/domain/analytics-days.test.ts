/**
 * How analytics count questions and lay out days: the wording variants an owner would call the
 * same question meet, and calendar days of a time zone hold what happened in them, DST included.
 */
import { describe, expect, test } from 'vitest';
import { canonicalTimeZone, foldDays, topQuestions, wholeHours } from '../../../server/domain/analytics-days.js';
import { normaliseQuestion } from '../../../shared/questions.js';

describe('normaliseQuestion', () => {
  test('case, punctuation, apostrophes, spacing and full-width forms do not make another question', () => {
    const same = ["Where's my order?", 'wheres my ORDER', '  Where’s   my order!! ', 'Ｗｈｅｒｅ’ｓ my order？'];
    expect(new Set(same.map(normaliseQuestion))).toEqual(new Set(['wheres my order']));
    expect(normaliseQuestion('Wo ist meine Bestellung?')).toBe('wo ist meine bestellung');
    expect(normaliseQuestion('🙂 ?!')).toBe('');
  });

  test('topQuestions counts, keeps the newest wording and skips messages with no words', () => {
    const asked = [
      { text: 'Where is my ORDER', answer: 'refused' as const },
      { text: '👍', answer: null },
      { text: 'where is my order?', answer: 'answered' as const },
      { text: 'Do you ship to Iceland?', answer: 'notSure' as const },
    ];
    expect(topQuestions(asked, 10)).toEqual([
      { question: 'Where is my ORDER', count: 2, answered: 1 },
      { question: 'Do you ship to Iceland?', count: 1, answered: 1 },
    ]);
    expect(topQuestions(asked, 1)).toHaveLength(1);
  });
});

describe('foldDays', () => {
  const bucket = (key: string, conversations: number) => ({
    key,
    conversations,
    messages: { total: 0, visitor: 0, ai: 0, agent: 0 },
    answers: { answered: 0, notSure: 0, refused: 0 },
    escalations: 0,
    leads: 0,
  });

  test('a day that springs forward is still one day, and each quarter hour lands on its local day', () => {
    // New York moved its clocks from 02:00 to 03:00 on 8 March 2026 (07:00 UTC).
    const days = foldDays(
      [
        bucket('2026-03-08T04:45', 1),
        bucket('2026-03-08T05:00', 2),
        bucket('2026-03-09T03:45', 4),
        bucket('2026-03-09T04:00', 8),
      ],
      new Date('2026-03-07T05:00:00Z'),
      new Date('2026-03-10T04:00:00Z'),
      'America/New_York',
    );
    expect(days.map((d) => [d.date, d.conversations])).toEqual([
      ['2026-03-07', 1],
      ['2026-03-08', 6],
      ['2026-03-09', 8],
    ]);
  });

  test('hourly groups are used only where every offset of the range is whole hours', () => {
    const year = [new Date('2026-01-01T00:00:00Z'), new Date('2027-01-01T00:00:00Z')] as const;
    expect(wholeHours('America/New_York', ...year)).toBe(true);
    expect(wholeHours('Europe/London', ...year)).toBe(true);
    expect(wholeHours('Asia/Kolkata', ...year)).toBe(false);
    expect(wholeHours('Asia/Kathmandu', ...year)).toBe(false);
    // Lord Howe Island moves by half an hour: +10:30 in its winter, +11 in its summer.
    expect(wholeHours('Australia/Lord_Howe', new Date('2026-12-01T00:00:00Z'), new Date('2026-12-31T00:00:00Z'))).toBe(
      true,
    );
    expect(wholeHours('Australia/Lord_Howe', ...year)).toBe(false);
  });

  test('time zone names are checked and spelled as ICU spells them', () => {
    expect(canonicalTimeZone('europe/paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(canonicalTimeZone('Mars/Olympus_Mons')).toBeNull();
  });
});
