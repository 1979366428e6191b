/**
 * Shared pieces of the HTTP-level knowledge tests: an app with a chatbot and a token, readers
 * for jobs and documents through the API, a hand-built multipart body, and PDF/DOCX files built
 * on the fly (pdf-lib, jszip; nothing binary is checked in).
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { buildTestApp, type TestApp, type TestAppOptions } from './app.js';
import { buildDocx } from '../server/domain/knowledge/fixtures.js';

export interface KnowledgeApp {
  t: TestApp;
  token: string;
  chatbotId: string;
  /** `/api/v2/chatbots/{chatbotId}` */
  base: string;
  /** Waits until no ingest job is queued or running. */
  settle(timeoutMs?: number): Promise<void>;
  /** GET one ingest job (data.job). */
  job(jobId: string): Promise<JobView>;
  /** Every document of the chatbot (follows nextCursor), optionally filtered. */
  documents(query?: Record<string, string>): Promise<DocumentView[]>;
}

export interface JobView {
  id: string;
  sourceId: string;
  trigger: string;
  status: string;
  counts: { found: number; done: number; failed: number; skipped: number };
  errors: { url: string; error: string }[];
  error: string | null;
  cancelRequested: boolean;
}

export interface DocumentView {
  id: string;
  sourceId: string;
  title: string;
  url: string | null;
  kind: string;
  status: string;
  chars: number;
  chunkCount: number;
  error: string | null;
}

/**
 * The real app (fast queue polling so background jobs start at once; any other env on top) with
 * a token and a new chatbot, or the given existing one (an app restarted on the same database).
 */
export async function knowledgeApp(
  options: TestAppOptions & { title?: string; chatbotId?: string } = {},
): Promise<KnowledgeApp> {
  const t = await buildTestApp({ ...options, env: { QUEUE_POLL_MS: '20', ...options.env } });
  return attach(t, options.title, options.chatbotId);
}

/** The KnowledgeApp view of an app already built, with a fresh full-access token and chatbot. */
export async function attach(t: TestApp, title = 'Docs', chatbotId?: string): Promise<KnowledgeApp> {
  const { token } = await t.token();
  if (!chatbotId) {
    const created = await t.call('POST', '/api/v2/chatbots', token, { title });
    if (created.status !== 201 && created.status !== 200)
      throw new Error(`chatbot not created: ${JSON.stringify(created.body)}`);
    chatbotId = created.body.data.chatbot.id as string;
  }
  const base = `/api/v2/chatbots/${chatbotId}`;
  return {
    t,
    token,
    chatbotId,
    base,
    settle: (timeoutMs = 30_000) => t.app.services.queue.drain(timeoutMs),
    async job(jobId) {
      const res = await t.call('GET', `${base}/ingest-jobs/${jobId}`, token);
      if (res.status !== 200) throw new Error(`GET job ${jobId}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data.job as JobView;
    },
    async documents(query = {}) {
      const out: DocumentView[] = [];
      let cursor: string | null = null;
      do {
        const qs = new URLSearchParams({ ...query, limit: '100', ...(cursor ? { cursor } : {}) });
        const res = await t.call('GET', `${base}/documents?${qs}`, token);
        if (res.status !== 200) throw new Error(`GET documents: ${res.status} ${JSON.stringify(res.body)}`);
        out.push(...(res.body.data.documents as DocumentView[]));
        cursor = res.body.data.pagination.nextCursor as string | null;
      } while (cursor);
      return out;
    },
  };
}

/** Polls `check` (every 20 ms) until it returns true; throws after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A paragraph long enough for Readability to take the page's article as its main content. */
export const para = (topic: string) =>
  `<p>${topic} is explained here in enough words for the extractor to treat this as the main content of the page. ` +
  `It covers how ${topic} works, when to use ${topic}, and what to avoid when configuring ${topic} in production.</p>`;

export interface UploadFile {
  /** The raw filename as the client sends it (quotes and CR/LF are the caller's business). */
  name: string;
  bytes: Buffer;
  contentType?: string;
  /** Form field name; default `files`. */
  field?: string;
}

/** A multipart/form-data body built by hand, with the headers app.inject needs. */
export function multipart(files: UploadFile[], boundary = `----parley-test-${Date.now().toString(36)}`) {
  const parts: Buffer[] = [];
  for (const f of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\n` +
          `Content-Disposition: form-data; name="${f.field ?? 'files'}"; filename="${f.name}"\r\n` +
          `Content-Type: ${f.contentType ?? 'application/octet-stream'}\r\n\r\n`,
        'utf8',
      ),
      f.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A PDF with one page per entry: a heading line and a paragraph of text. */
export async function makePdf(pages: { heading: string; text: string }[], title?: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const p of pages) {
    const page = doc.addPage([612, 792]);
    page.drawText(p.heading, { x: 50, y: 720, size: 20, font });
    let y = 680;
    // pdf-lib draws no wrapping: one line per ~80 characters.
    const words = p.text.split(' ');
    let line = '';
    for (const w of words) {
      if (line && line.length + w.length > 80) {
        page.drawText(line, { x: 50, y, size: 11, font });
        y -= 14;
        line = w;
      } else line = line ? `${line} ${w}` : w;
    }
    if (line) page.drawText(line, { x: 50, y, size: 11, font });
  }
  if (title) doc.setTitle(title);
  return Buffer.from(await doc.save());
}

/** A DOCX of paragraphs, headings styled Heading1 (the extraction tests' builder). */
export const makeDocx = (paragraphs: { heading?: boolean; text: string }[]) =>
  buildDocx(paragraphs.map((p) => ({ text: p.text, ...(p.heading && { style: 'Heading1' }) })));

/** The 8-byte PNG signature and an IHDR chunk: enough for any sniffer to call it an image. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);
