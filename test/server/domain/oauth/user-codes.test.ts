/** User codes (RFC 8628 6.1): the format people see and the forms they may type it in. */
import { expect, test } from 'vitest';
import {
  formatUserCode,
  generateUserCode,
  normaliseUserCode,
  USER_CODE_ALPHABET,
} from '../../../../server/domain/oauth/user-codes.js';

test('the alphabet: 20 distinct consonants, no vowel, no letter easily read as a digit', () => {
  expect(new Set(USER_CODE_ALPHABET).size).toBe(20);
  expect(USER_CODE_ALPHABET).toMatch(/^[A-Z]+$/);
  expect(USER_CODE_ALPHABET).not.toMatch(/[AEIOUY]/);
});

test('codes are 8 letters of the alphabet and every letter turns up', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const code = generateUserCode();
    expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
    for (const c of code) seen.add(c);
  }
  expect(seen.size).toBe(20);
  expect(formatUserCode('BCDFGHJK')).toBe('BCDF-GHJK');
});

test('typed in any case, with or without the dash or spaces, a code reads the same', () => {
  for (const typed of ['BCDF-GHJK', 'bcdf-ghjk', 'bcdfghjk', 'BcDf GhJk', ' bcdf - ghjk ', 'B-C-D-F-G-H-J-K']) {
    expect(normaliseUserCode(typed), typed).toBe('BCDFGHJK');
  }
});

test('anything else is not a code', () => {
  for (const typed of [
    '',
    'BCDF-GHJ',
    'BCDF-GHJKL',
    'ABCD-EFGH',
    'BCDF-GHJ0',
    'BCDF_GHJK',
    'ＢCDFGHJK',
    'x'.repeat(1000),
  ]) {
    expect(normaliseUserCode(typed), typed).toBeNull();
  }
});
