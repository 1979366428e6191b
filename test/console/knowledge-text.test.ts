/**
 * The words of the knowledge and knowledge-gap pages: every failure the ingest pipeline records
 * is said in a sentence (not left to the generic one), and every language has every string,
 * with the same placeholders as English, translated rather than copied.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { reasonOf } from '../../console/pages/knowledge/reasons.js';

describe('failure reasons in words', () => {
  test.each([
    ['HTTP 404', 'notFound', 404],
    ['HTTP 410', 'notFound', 410],
    ['HTTP 403', 'refused', 403],
    ['HTTP 429', 'slowDown', 429],
    ['HTTP 503', 'serverError', 503],
    ['HTTP 302', 'httpStatus', 302],
    ['disallowed by robots.txt', 'robots', undefined],
    ['redirected to https://a.test/x, which robots.txt disallows', 'robots', undefined],
    [
      'robots.txt could not be read (https://a.test/robots.txt answered HTTP 500); not fetched',
      'robotsUnreadable',
      undefined,
    ],
    ['robots.txt could not be read (timeout); the site is not crawled until it can be', 'robotsUnreadable', undefined],
    [
      'BLOCKED_ADDRESS: http://10.0.0.1/ was not fetched: 10.0.0.1 is a private address. Internal addresses are refused unless ALLOW_PRIVATE_FETCH opens them (1, or their address ranges)',
      'blocked',
      undefined,
    ],
    ['TIMEOUT: no answer within 20000 ms', 'timeout', undefined],
    ['ENOTFOUND: getaddrinfo ENOTFOUND nowhere.test', 'unreachable', undefined],
    ['NETWORK: socket hang up', 'unreachable', undefined],
    ['TOO_LARGE: the text is longer than allowed', 'tooLarge', undefined],
    ['MALFORMED: not a valid PDF', 'unreadable', undefined],
    ['notes.bin: not a PDF, DOCX, TXT, Markdown, HTML or CSV file', 'unreadable', undefined],
    ['not a readable document (image/png)', 'notDocument', undefined],
    ['outside the crawl scope http://a.test/docs', 'outOfScope', undefined],
    ['redirected outside the crawl scope, to https://b.test/', 'outOfScope', undefined],
    ['not an absolute http(s) URL', 'invalidUrl', undefined],
    ['The job stopped: database is locked', 'stopped', undefined],
    ['Every item failed; see the error list', 'allFailedList', undefined],
    ['The video has no captions to read', 'noCaptions', undefined],
    ['The captions track is empty', 'noCaptions', undefined],
    ['HTTP 404 for the video page', 'notFound', 404],
    ['something nobody foresaw', 'other', undefined],
  ])('%s -> %s', (error, key, status) => {
    const reason = reasonOf(error);
    expect(reason.key).toBe(key);
    expect(reason.status).toBe(status);
  });

  test("a job's error names its first item's cause", () => {
    expect(reasonOf('The item failed: https://a.test/x: HTTP 404')).toEqual({ key: 'notFound', status: 404 });
    expect(reasonOf('The item failed: BLOCKED_ADDRESS: http://10.0.0.1/ was not fetched: private').key).toBe('blocked');
    expect(reasonOf('2 of 5 items failed; see the error list').key).toBe('someFailed');
    expect(reasonOf('Every item failed; the first: TIMEOUT: no answer')).toEqual({
      key: 'allFailed',
      cause: 'TIMEOUT: no answer',
    });
  });
});

type Table = { [key: string]: string | Table };
const flatten = (t: Table, prefix = ''): Record<string, string> =>
  Object.fromEntries(
    Object.entries(t).flatMap(([k, v]) =>
      typeof v === 'string' ? [[`${prefix}${k}`, v]] : Object.entries(flatten(v, `${prefix}${k}.`)),
    ),
  );
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe.each(['knowledge', 'gaps'])('the %s page in every language', (page) => {
  const dir = join(process.cwd(), 'console', 'pages', page, 'strings');
  const languages = readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && f !== 'en.ts')
    .map((f) => f.slice(0, -3));

  test('the widget’s twelve other languages are there', () => {
    expect(languages.sort()).toEqual(['ar', 'da', 'de', 'es', 'fr', 'he', 'it', 'ja', 'nl', 'pl', 'pt', 'sv']);
  });

  test.each(languages)('%s: every key, the same placeholders, sentences translated', async (lang) => {
    const en = flatten((await import(join(dir, 'en.ts'))).en as Table);
    const other = flatten((await import(join(dir, `${lang}.ts`))).default as Table);
    expect(Object.keys(other).sort()).toEqual(Object.keys(en).sort());
    for (const [key, text] of Object.entries(en)) {
      expect(other[key].trim(), `${lang} ${key}`).not.toBe('');
      expect(placeholders(other[key]), `${lang} ${key}`).toEqual(placeholders(text));
      if (text.length > 30) expect(other[key], `${lang} ${key} is English`).not.toBe(text);
    }
  });
});
