/**
 * What the console's knowledge page reads besides jobs: documents searched by title or URL (on
 * SQLite and PostgreSQL, whose LIKE differs), one document and its chunks in reading order, and
 * the upload limits shown before an upload.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';
import { attach, type KnowledgeApp } from '../../../helpers/knowledge-http.js';

const section = (n: number) =>
  `## Part ${n}\n\n` + `Part ${n} of the manual explains step ${n} in detail. `.repeat(60) + '\n\n';

describeOnDialects('documents and chunks on %s', (dialect) => {
  let t: TestApp;
  let k: KnowledgeApp;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await buildTestApp({ dialect, env: { QUEUE_POLL_MS: '20', FILE_MAX_BYTES: '2097152' } });
    k = await attach(t);
    const texts: [string, string][] = [
      ['Refund Policy', 'Refunds are paid within 14 days.'],
      ['Shipping 100% free', 'Shipping costs nothing.'],
      ['Sizes_and_fits', 'Sizes run small.'],
      ['Manual', [1, 2, 3, 4, 5, 6].map(section).join('')],
    ];
    for (const [title, text] of texts) {
      const res = await t.call('POST', `${k.base}/knowledge/text`, k.token, { title, text });
      expect(res.status).toBe(202);
    }
    await k.settle();
    for (const d of await k.documents()) ids[d.title] = d.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const titles = async (q: string, more = '') => {
    const res = await t.call('GET', `${k.base}/documents?q=${encodeURIComponent(q)}${more}`, k.token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return (res.body.data.documents as { title: string }[]).map((d) => d.title).sort();
  };

  test('q finds documents by title, any case; % and _ match only themselves', async () => {
    expect(await titles('refund')).toEqual(['Refund Policy']);
    expect(await titles('POLICY')).toEqual(['Refund Policy']);
    expect(await titles('100%')).toEqual(['Shipping 100% free']);
    expect(await titles('%')).toEqual(['Shipping 100% free']);
    expect(await titles('_')).toEqual(['Sizes_and_fits']);
    expect(await titles('nothing like this')).toEqual([]);
    expect(await titles('N', '&limit=100')).toEqual([
      'Manual',
      'Refund Policy',
      'Shipping 100% free',
      'Sizes_and_fits',
    ]);
  });

  test('a search pages with its own cursor; a cursor of another search is refused', async () => {
    const first = await t.call('GET', `${k.base}/documents?q=n&limit=2`, k.token);
    expect(first.body.data.documents).toHaveLength(2);
    const cursor = encodeURIComponent(first.body.data.pagination.nextCursor);
    const rest = await t.call('GET', `${k.base}/documents?q=n&limit=2&cursor=${cursor}`, k.token);
    expect(rest.body.data.documents).toHaveLength(2);
    const seen = [...first.body.data.documents, ...rest.body.data.documents].map((d: { id: string }) => d.id);
    expect(new Set(seen).size).toBe(4);
    const other = await t.call('GET', `${k.base}/documents?q=s&limit=2&cursor=${cursor}`, k.token);
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('INVALID_CURSOR');
    const long = await t.call('GET', `${k.base}/documents?q=${'x'.repeat(201)}`, k.token);
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('VALIDATION_FAILED');
  });

  test("a document's chunks come in reading order, page by page, under their headings", async () => {
    const one = await t.call('GET', `${k.base}/documents/${ids.Manual}`, k.token);
    expect(one.status).toBe(200);
    expect(one.body.data.document).toMatchObject({ id: ids.Manual, title: 'Manual', status: 'indexed' });
    const total = one.body.data.document.chunkCount as number;
    expect(total).toBeGreaterThan(2);

    const chunks: { index: number; text: string; headingPath: string[] }[] = [];
    let cursor: string | null = null;
    do {
      const qs: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const res = await t.call('GET', `${k.base}/documents/${ids.Manual}/chunks?limit=2${qs}`, k.token);
      expect(res.status).toBe(200);
      expect(res.body.data.document.id).toBe(ids.Manual);
      expect(res.body.data.chunks.length).toBeLessThanOrEqual(2);
      chunks.push(...res.body.data.chunks);
      cursor = res.body.data.pagination.nextCursor;
    } while (cursor);
    expect(chunks.map((c) => c.index)).toEqual([...Array(total).keys()]);
    expect(chunks[0].text).toContain('Part 1');
    expect(chunks.at(-1)!.text).toContain('Part 6');
    expect(chunks.some((c) => c.headingPath.includes('Part 3'))).toBe(true);
  });
});

describe('document, chunks and upload limits: reach and scopes', () => {
  let t: TestApp;
  let k: KnowledgeApp;
  let docId: string;

  beforeAll(async () => {
    t = await buildTestApp({
      env: { QUEUE_POLL_MS: '20', FILE_MAX_BYTES: '3145728', UPLOAD_MAX_TOTAL_BYTES: '5242880' },
    });
    k = await attach(t);
    await t.call('POST', `${k.base}/knowledge/text`, k.token, { title: 'Hours', text: 'Open 9 to 5.' });
    await k.settle();
    docId = (await k.documents())[0].id;
  });
  afterAll(async () => {
    await t?.close();
  });

  test('the upload limits are the configured ones', async () => {
    const res = await t.call('GET', `${k.base}/knowledge/files/limits`, k.token);
    expect(res.status).toBe(200);
    expect(res.body.data.limits).toEqual({
      maxFiles: 10,
      maxFileBytes: 3_145_728,
      maxTotalBytes: 5_242_880,
      types: ['pdf', 'docx', 'txt', 'md', 'html', 'csv'],
    });
  });

  test("another chatbot's document is not found; an unknown one neither", async () => {
    const other = await attach(t, 'Other');
    for (const path of [`/documents/${docId}`, `/documents/${docId}/chunks`, `/documents/nope`]) {
      const res = await t.call('GET', `${other.base}${path}`, other.token);
      expect(res.status, path).toBe(404);
      expect(res.body.ok).toBe(false);
    }
  });

  test('reading needs knowledge:read', async () => {
    const { token } = await t.token({ access: 'custom', scopes: ['conversations:read'] });
    for (const path of [`/documents/${docId}`, `/documents/${docId}/chunks`, '/knowledge/files/limits']) {
      const res = await t.call('GET', `${k.base}${path}`, token);
      expect(res.status, path).toBe(403);
      expect(res.body.error.code).toBe('TOKEN_SCOPE_NOT_ALLOWED');
    }
  });
});
