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
const BRANCH =
  /\bdialect\s*[!=]==|\w\.dialect\b|===?\s*'(postgres|sqlite)'|'(postgres|sqlite)'\s*===?|PostgresAdapter|SqliteAdapter/;
/**
 * A driver's own words: a PostgreSQL SQLSTATE ('23505', '28P01': five characters, digits first),
 * a better-sqlite3 code (SQLITE_…) or message (`UNIQUE constraint failed`, `unable to open
 * database`), or the drivers' error classes. Reading them is the dialect's job (`isUniqueViolation`,
 * `openFailureOf`).
 */
const DRIVER =
  /['"`]\d[\dA-Z]\d[\dA-Z]{2}['"`]|\bSQLITE_[A-Z_]+|constraint failed|unable to open database|\bSqliteError\b|\bDatabaseError\b/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Code lines (not comments) outside dialects/ and migrations/ that match `pattern`. */
function outsideDialects(pattern: RegExp): string[] {
  const offending: string[] = [];
  const all = files(join(ROOT, 'server'));
  expect(all.length).toBeGreaterThan(100);
  for (const file of all) {
    const path = relative(ROOT, file);
    if (ALLOWED.some((a) => path.startsWith(a))) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (pattern.test(line) && !line.trim().startsWith('*') && !line.trim().startsWith('//'))
          offending.push(`${path}:${i + 1}: ${line.trim()}`);
      });
  }
  return offending;
}

test('no file outside storage/dialects/ and migrations branches on the dialect or reads it from the driver', () => {
  expect(outsideDialects(BRANCH)).toEqual([]);
});

test("no file outside storage/dialects/ and migrations reads a driver's error codes or messages", () => {
  expect(outsideDialects(DRIVER)).toEqual([]);
});

test('the check sees a branch', () => {
  expect(BRANCH.test("if (database.dialect === 'postgres') {")).toBe(true);
  expect(BRANCH.test('const pg = db.getExecutor().adapter instanceof PostgresAdapter;')).toBe(true);
  expect(BRANCH.test("const kind = 'postgres' as const;")).toBe(false);
});

test("the check sees a driver's error code or message", () => {
  expect(DRIVER.test("(err as { code?: string }).code === '23505'")).toBe(true);
  expect(DRIVER.test("code === '28P01' || code === '3D000'")).toBe(true);
  expect(DRIVER.test("code === 'SQLITE_CANTOPEN'")).toBe(true);
  expect(DRIVER.test('/UNIQUE constraint failed/i.test(String(err))')).toBe(true);
  expect(DRIVER.test("if (code === 'ECONNREFUSED' || status === '404') return;")).toBe(false);
});
