import { describe, expect, test } from 'vitest';
import { newId } from '../../../server/domain/ids.js';

describe('newId', () => {
  test('never begins with "-" (a command line would read it as an option)', () => {
    // One random id in 64 began with "-" before: 20,000 ids all but surely contain such a case.
    const ids = Array.from({ length: 20_000 }, newId);
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 100)) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
  });
});
