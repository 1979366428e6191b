/**
 * User codes (RFC 8628 6.1): 8 letters of 20 consonants, shown as `BCDF-GHJK`. People may type
 * them in any case, with or without the dash or spaces.
 */
import { randomInt } from 'node:crypto';

export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** A fresh code, each letter drawn uniformly (randomInt has no modulo bias). */
export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** The canonical 8 letters, or null when the input cannot be a user code. */
export function normaliseUserCode(input: string): string | null {
  if (input.length > 32) return null;
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== USER_CODE_LENGTH) return null;
  for (const c of code) if (!USER_CODE_ALPHABET.includes(c)) return null;
  return code;
}

/** How a code is shown: two groups of four. */
export const formatUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;
