/**
 * The dialect is chosen once, inside storage: only storage/dialects/ (and the frozen migrations,
 * which create each dialect's schema) may name a dialect or test the driver. Anywhere else under
 * server/ such a branch would be a second place where SQLite and PostgreSQL differ.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const ALLOWED = ['server/storage/dialects/', 'server/storage/migrations/'];
const BRANCH = /\bdialect\s*[!=]==|\w\.dialect\b|===?\s*'(postgres|sqlite)'|'(postgres|sqlite)'\s*===?|PostgresAdapter|SqliteAdapter/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

test('no file outside storage/dialects/ and migrations branches on the dialect or reads it from the driver', () => {
  const offending: string[] = [];
  const all = files(join(ROOT, 'server'));
  expect(all.length).toBeGreaterThan(100);
  for (const file of all) {
    const path = relative(ROOT, file);
    if (ALLOWED.some((a) => path.startsWith(a))) continue;
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (BRANCH.test(line) && !line.trim().startsWith('*') && !line.trim().startsWith('//')) offending.push(`${path}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(offending).toEqual([]);
});

test('the check sees a branch', () => {
  expect(BRANCH.test("if (database.dialect === 'postgres') {")).toBe(true);
  expect(BRANCH.test('const pg = db.getExecutor().adapter instanceof PostgresAdapter;')).toBe(true);
  expect(BRANCH.test("const kind = 'postgres' as const;")).toBe(false);
});
