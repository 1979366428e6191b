/**
 * POST /knowledge/files through the real HTTP API, with multipart bodies built by hand: every
 * supported kind, kind decided by content, hostile upload names, the size limit, and malformed
 * PDFs that fail on their own while the server keeps answering.
 */
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heavyPdf } from '../../domain/knowledge/fixtures.js';
import {
  knowledgeApp,
  makeDocx,
  makePdf,
  multipart,
  PNG,
  type KnowledgeApp,
  type UploadFile,
} from '../../../helpers/knowledge-http.js';

const MAX = 64 * 1024;
let k: KnowledgeApp;

beforeAll(async () => {
  k = await knowledgeApp({ env: { FILE_MAX_BYTES: String(MAX) } });
});
afterAll(() => k.t.close());

async function upload(files: UploadFile[], base = k.base) {
  const body = multipart(files);
  return k.t.call('POST', `${base}/knowledge/files`, k.token, body.payload, body.headers);
}

async function uploadAndSettle(files: UploadFile[]) {
  const res = await upload(files);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await k.settle();
  return k.job(res.body.data.job.id);
}

const text = (s: string) => Buffer.from(s, 'utf8');
const rows = async (table: 'blobs' | 'ingest_jobs') =>
  Number(
    (
      await k.t.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /knowledge/files', () => {
  test('PDF, DOCX, TXT, Markdown, HTML and CSV are each indexed with their kind', async () => {
    const files: UploadFile[] = [
      {
        name: 'manual.pdf',
        contentType: 'application/pdf',
        bytes: await makePdf([
          { heading: 'Battery', text: 'Charge the battery fully before the first use of the scooter.' },
        ]),
      },
      {
        name: 'onboarding.docx',
        contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        bytes: await makeDocx([
          { heading: true, text: 'First day' },
          { text: 'New colleagues collect their badge at the front desk before nine.' },
        ]),
      },
      {
        name: 'hours.txt',
        contentType: 'text/plain',
        bytes: text('The shop opens at eight and closes at six, Monday to Saturday.'),
      },
      {
        name: 'shipping.md',
        contentType: 'text/markdown',
        bytes: text(
          '# Shipping\n\nParcels leave the warehouse within **two working days**.\n\n## Abroad\n\nInternational parcels take a week.',
        ),
      },
      {
        name: 'contact.html',
        contentType: 'text/html',
        bytes: text(
          '<!doctype html><html><head><title>Contact</title></head><body><main><h1>Contact</h1><p>Write to the support desk by e-mail and expect an answer within one working day, or call during opening hours.</p></main></body></html>',
        ),
      },
      {
        name: 'prices.csv',
        contentType: 'text/csv',
        bytes: text('product,price,currency\nscooter,499,EUR\nhelmet,59,EUR\ncharger,35,EUR\n'),
      },
    ];
    const job = await uploadAndSettle(files);
    expect(job).toMatchObject({
      status: 'succeeded',
      counts: { found: 6, done: 6, failed: 0, skipped: 0 },
      errors: [],
    });
    const docs = await k.documents({ sourceId: job.sourceId });
    expect(docs.map((d) => d.kind).sort()).toEqual(['csv', 'docx', 'html', 'markdown', 'pdf', 'text']);
    for (const d of docs) {
      expect(d.status, d.kind).toBe('indexed');
      expect(d.chunkCount, d.kind).toBeGreaterThan(0);
      expect(d.url, d.kind).toBeNull();
    }
    // Stored uploads are removed once indexed.
    expect(await rows('blobs')).toBe(0);
    const sources = (await k.t.call('GET', `${k.base}/knowledge/sources`, k.token)).body.data.sources;
    expect(sources).toEqual([expect.objectContaining({ id: job.sourceId, type: 'files', documentCount: 6 })]);
  });

  test('the kind is decided by content: a PDF named notes.txt is a PDF; a PNG named doc.pdf fails and is not indexed', async () => {
    const before = (await k.documents()).length;
    const pdf = await makePdf([
      { heading: 'Disguised', text: 'This portable document travels under a text file name.' },
    ]);
    const job = await uploadAndSettle([
      { name: 'notes.txt', contentType: 'text/plain', bytes: pdf },
      { name: 'doc.pdf', contentType: 'application/pdf', bytes: PNG },
    ]);
    expect(job.counts).toEqual({ found: 2, done: 1, failed: 1, skipped: 0 });
    expect(job.errors).toHaveLength(1);
    expect(job.errors[0].error).toMatch(/doc\.pdf: not a PDF, DOCX/);
    const docs = await k.documents();
    expect(docs).toHaveLength(before + 1);
    const added = docs.find((d) => d.title === 'Disguised' || d.title === 'notes');
    expect(added).toMatchObject({ kind: 'pdf', status: 'indexed' });
    expect(docs.filter((d) => d.title === 'doc')).toEqual([]);
    // Neither upload stays stored: one was indexed, the other can never be.
    expect(await rows('blobs')).toBe(0);
  });

  test('upload names with ../, absolute paths, a drive letter and NUL are stored as safe display names; nothing is written to disk', async () => {
    const filesBefore = readdirSync(k.t.dataDir).sort();
    const names = ['../../etc/passwd', '/abs/path.txt', 'C:\\x\\y.txt', 'nul\u0000byte.txt'];
    const job = await uploadAndSettle(
      names.map((name, i) => ({
        name,
        contentType: 'text/plain',
        bytes: text(`Upload number ${i} talks about warehouse inventory item ${i}.`),
      })),
    );
    expect(job.counts).toEqual({ found: 4, done: 4, failed: 0, skipped: 0 });
    // The names the job kept (its items' payloads) and the titles derived from them.
    const items = await k.t.database.db
      .selectFrom('ingest_items')
      .select('payload')
      .where('job_id', '=', job.id)
      .execute();
    const kept = items.map((r) => JSON.parse(r.payload!).name as string).sort();
    for (const name of kept) {
      expect(name).not.toMatch(/[\\/]/);
      expect(name).not.toMatch(/^\./);
      expect(name).not.toMatch(/[\u0000-\u001f]/);
    }
    expect(kept).toEqual(expect.arrayContaining(['passwd', 'path.txt', 'y.txt']));
    const titles = (await k.documents({ sourceId: job.sourceId })).map((d) => d.title);
    for (const title of titles) expect(title).not.toMatch(/[\\/\u0000]|\.\./);
    expect(titles).toEqual(expect.arrayContaining(['passwd', 'path', 'y']));
    // Uploads live in the database only: no new file in DATA_DIR, none where the names pointed.
    expect(readdirSync(k.t.dataDir).sort()).toEqual(filesBefore);
    expect(existsSync('/abs/path.txt')).toBe(false);
  });

  test('a file over FILE_MAX_BYTES is 413 PAYLOAD_TOO_LARGE and starts no job', async () => {
    const jobs = await rows('ingest_jobs');
    const res = await upload([
      { name: 'small.txt', contentType: 'text/plain', bytes: text('A small file that would fit.') },
      { name: 'big.txt', contentType: 'text/plain', bytes: Buffer.alloc(MAX + 1, 'a') },
    ]);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await rows('ingest_jobs')).toBe(jobs);
    expect(await rows('blobs')).toBe(0);
  });

  test('a request that is not multipart, or carries no file, or an empty one, is 400', async () => {
    const json = await k.t.call('POST', `${k.base}/knowledge/files`, k.token, { files: [] });
    expect(json.status).toBe(400);
    const none = multipart([]);
    const noFile = await k.t.call('POST', `${k.base}/knowledge/files`, k.token, none.payload, none.headers);
    expect(noFile.status).toBe(400);
    expect((await upload([{ name: 'empty.txt', bytes: Buffer.alloc(0) }])).status).toBe(400);
  });

  test('malformed PDFs (truncated, garbage) fail as items while /health keeps answering', async () => {
    const good = await makePdf([{ heading: 'Complete', text: 'This one is whole and readable from start to end.' }]);
    const truncated = good.subarray(0, Math.floor(good.length / 2));
    const garbage = Buffer.concat([
      Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >>\nstream\n'),
      Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)),
    ]);
    const res = await upload([
      { name: 'truncated.pdf', contentType: 'application/pdf', bytes: truncated },
      { name: 'garbage.pdf', contentType: 'application/pdf', bytes: garbage },
      { name: 'complete.pdf', contentType: 'application/pdf', bytes: good },
    ]);
    expect(res.status).toBe(202);
    // The API answers while the job runs (parsing happens in a worker, off the event loop).
    for (let i = 0; i < 3; i++) expect((await k.t.call('GET', '/api/v2/health')).status).toBe(200);
    await k.settle();
    expect((await k.t.call('GET', '/api/v2/health')).status).toBe(200);
    const job = await k.job(res.body.data.job.id);
    expect(job.status).toBe('partially_succeeded'); // some items failed;
    expect(job.counts).toEqual({ found: 3, done: 1, failed: 2, skipped: 0 });
    for (const e of job.errors) expect(e.error).toMatch(/^(MALFORMED|UNSUPPORTED|TIMEOUT|TOO_LARGE): /);
    const titles = (await k.documents({ sourceId: job.sourceId, status: 'indexed' })).map((d) => d.title);
    expect(titles).toContain('complete');
    expect(titles).not.toContain('truncated');
    expect(titles).not.toContain('garbage');
  });

  test('a PDF that keeps the parser busy is stopped at EXTRACT_TIMEOUT_MS; the API answers meanwhile and after', async () => {
    const slow = await knowledgeApp({ env: { EXTRACT_TIMEOUT_MS: '400' } });
    try {
      const bytes = await heavyPdf(400_000);
      const body = multipart([{ name: 'heavy.pdf', contentType: 'application/pdf', bytes }]);
      const res = await slow.t.call('POST', `${slow.base}/knowledge/files`, slow.token, body.payload, body.headers);
      expect(res.status).toBe(202);
      for (let i = 0; i < 3; i++) expect((await slow.t.call('GET', '/api/v2/health')).status).toBe(200);
      await slow.settle();
      const job = await slow.job(res.body.data.job.id);
      expect(job.counts).toMatchObject({ done: 0, failed: 1 });
      expect(job.errors[0].error).toMatch(/^TIMEOUT: /);
      expect((await slow.t.call('GET', '/api/v2/health')).status).toBe(200);
    } finally {
      await slow.t.close();
    }
  });
});

describe('a file larger than one stored piece', () => {
  let big: KnowledgeApp;
  beforeAll(async () => {
    big = await knowledgeApp({ env: { FILE_MAX_BYTES: String(4 * 1_048_576) } });
  });
  afterAll(() => big.t.close());

  test('is stored in pieces, read back whole: its last section is indexed and every piece is removed after', async () => {
    // ~2.5 MB of Markdown: three pieces, one sentence in the first and one in the last (blank lines between, so indexing stays quick).
    const blank = '\n'.repeat(2_500_000);
    const bytes = Buffer.from(
      `# Warehouse handbook\n\n## Opening\n\nThe warehouse opens its doors at seven sharp.\n${blank}\n## Fire drill\n\nThe quarterly fire drill assembles everyone at the blue gate near the loading dock.\n`,
      'utf8',
    );
    expect(bytes.length).toBeGreaterThan(2 * 1_048_576);
    const body = multipart([{ name: 'handbook.md', contentType: 'text/markdown', bytes }]);
    const res = await big.t.call('POST', `${big.base}/knowledge/files`, big.token, body.payload, body.headers);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await big.settle();
    expect(await big.job(res.body.data.job.id)).toMatchObject({ status: 'succeeded', counts: { done: 1, failed: 0 } });
    const hits = await big.t.app.store.knowledge.chunks.searchLexical(
      big.chatbotId,
      'quarterly fire drill blue gate',
      1,
    );
    expect(hits[0]?.text).toContain('assembles everyone at the blue gate');
    expect(
      (await big.t.app.store.knowledge.chunks.searchLexical(big.chatbotId, 'warehouse opens doors seven', 1))[0]?.text,
    ).toContain('opens its doors at seven');
    const left = await big.t.database.db
      .selectFrom('blob_parts')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });
});
