import { afterAll, describe, expect, it } from 'vitest';
import {
  closeExtractionWorkers,
  extract,
  ExtractionError,
  runInWorker,
} from '../../../server/adapters/extraction/index.js';
import { extractionWorkerCount } from '../../../server/adapters/extraction/worker-pool.js';
import { buildPdf, heavyPdf, prose } from '../domain/knowledge/fixtures.js';

const TASKS = new URL('./worker-tasks.fixture.ts', import.meta.url).href;

afterAll(closeExtractionWorkers);

/** Runs `work` while a 10 ms interval counts its ticks: the main thread's responsiveness. */
async function ticking<T>(
  work: () => Promise<T>,
): Promise<{ result: PromiseSettledResult<T>; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const started = Date.now();
  const [result] = await Promise.allSettled([work()]);
  clearInterval(timer);
  return { result, ticks, ms: Date.now() - started };
}

function rejection(r: PromiseSettledResult<unknown>): ExtractionError {
  expect(r.status).toBe('rejected');
  const reason = (r as PromiseRejectedResult).reason;
  expect(reason).toBeInstanceOf(ExtractionError);
  return reason as ExtractionError;
}

describe('runInWorker', () => {
  it('runs a TypeScript task module in a worker and returns its value', async () => {
    const value = await runInWorker<{ echoed: unknown; typed: string }>({
      module: TASKS,
      fn: 'echo',
      args: [{ a: [1, 2] }],
    });
    expect(value).toEqual({ echoed: { a: [1, 2] }, typed: 'object' });
  });

  it('terminates a task that loops forever at the timeout, and the main thread keeps ticking', async () => {
    await runInWorker({ module: TASKS, fn: 'echo', args: [1] }); // a warm worker: the budget is the task's alone
    const { result, ticks, ms } = await ticking(() =>
      runInWorker({ module: TASKS, fn: 'spinForever' }, { timeoutMs: 300 }),
    );
    const error = rejection(result);
    expect(error.code).toBe('TIMEOUT');
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(5_000);
    // ~30 ticks in 300 ms when the main thread is free; a blocked thread would show 0 or 1.
    expect(ticks).toBeGreaterThanOrEqual(10);
  });

  it('still answers after a worker was terminated', async () => {
    await expect(runInWorker({ module: TASKS, fn: 'spinForever' }, { timeoutMs: 100 })).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    await expect(runInWorker({ module: TASKS, fn: 'echo', args: ['again'] })).resolves.toMatchObject({
      echoed: 'again',
    });
  });

  it('reports a task that exhausts its heap as TOO_LARGE', async () => {
    const error = await runInWorker<never>(
      { module: TASKS, fn: 'allocateForever' },
      { maxMemoryMb: 32, timeoutMs: 20_000 },
    ).catch((e: unknown) => e as ExtractionError);
    expect(error).toBeInstanceOf(ExtractionError);
    expect(error.code).toBe('TOO_LARGE');
  });

  it('passes a task error code through, and maps other failures to MALFORMED', async () => {
    await expect(runInWorker({ module: TASKS, fn: 'failWith', args: ['UNSUPPORTED', 'nope'] })).rejects.toMatchObject({
      code: 'UNSUPPORTED',
      message: 'nope',
    });
    await expect(runInWorker({ module: TASKS, fn: 'failWith', args: ['EWHATEVER', 'odd'] })).rejects.toMatchObject({
      code: 'MALFORMED',
    });
    await expect(runInWorker({ module: TASKS, fn: 'crash' }, { timeoutMs: 5_000 })).rejects.toMatchObject({
      code: 'MALFORMED',
    });
    await expect(runInWorker({ module: TASKS, fn: 'missing' })).rejects.toMatchObject({ code: 'MALFORMED' });
  });

  it('runs tasks side by side and never grows past the pool size', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => runInWorker({ module: TASKS, fn: 'echo', args: [i] })),
    );
    expect(results.map((r) => (r as { echoed: number }).echoed)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(extractionWorkerCount()).toBeLessThanOrEqual(4 + 1); // the 32 MB pool may still hold its replacement
  });
});

describe('hostile files', () => {
  it('stops a PDF that takes too long (a huge content stream) at the timeout; the main thread keeps ticking', async () => {
    const pdf = await heavyPdf(400_000);
    expect(pdf.length).toBeLessThan(4_000_000);
    await extract({ bytes: await buildPdf([{ paragraphs: ['warm up'] }]), kind: 'pdf' }); // start the worker first
    const { result, ticks } = await ticking(() => extract({ bytes: pdf, kind: 'pdf' }, { timeoutMs: 400 }));
    expect(rejection(result).code).toBe('TIMEOUT');
    expect(ticks).toBeGreaterThanOrEqual(10);
    // And the next file is read normally.
    const next = await extract({ bytes: await buildPdf([{ paragraphs: [prose(20)] }]), kind: 'pdf' });
    expect(next.sections[0].page).toBe(1);
  });

  it('rejects garbage after %PDF- as MALFORMED', async () => {
    const bytes = Buffer.concat([
      Buffer.from('%PDF-1.7\n'),
      Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 7919) % 256)),
    ]);
    await expect(extract({ bytes, kind: 'pdf' }, { timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'MALFORMED' });
  });

  it('rejects a PDF whose cross-reference table points at itself, without hanging', async () => {
    // startxref -> an xref section whose /Prev is itself, and objects that reference each other.
    const body =
      '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n' +
      '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 /Parent 2 0 R >> endobj\n' +
      '3 0 obj << /Type /Page /Parent 2 0 R /Contents 3 0 R >> endobj\n';
    const xrefAt = Buffer.byteLength(body);
    const pdf =
      body +
      `xref\n0 4\n0000000000 65535 f \n0000000009 00000 n \n0000000058 00000 n \n0000000131 00000 n \n` +
      `trailer << /Size 4 /Root 1 0 R /Prev ${xrefAt} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const { result, ms } = await ticking(() => extract({ bytes: Buffer.from(pdf), kind: 'pdf' }, { timeoutMs: 3_000 }));
    expect(ms).toBeLessThan(10_000);
    if (result.status === 'rejected') expect(['MALFORMED', 'TIMEOUT', 'UNSUPPORTED']).toContain(rejection(result).code);
    else expect(result.value.sections.every((s) => s.page === 1)).toBe(true);
  });

  it('settles on a truncated PDF: what is left is read, or it is MALFORMED', async () => {
    const whole = await buildPdf([
      { heading: 'One', paragraphs: [prose(60)] },
      { heading: 'Two', paragraphs: [prose(60, 3)] },
    ]);
    for (const cut of [0.3, 0.6, 0.9]) {
      const bytes = whole.subarray(0, Math.floor(whole.length * cut));
      const outcome = await extract({ bytes, kind: 'pdf' }, { timeoutMs: 10_000 }).then(
        (doc) => doc,
        (e) => e,
      );
      // UNSUPPORTED: pdf.js rebuilt the page tree but found no text left.
      if (outcome instanceof ExtractionError) expect(['MALFORMED', 'UNSUPPORTED']).toContain(outcome.code);
      else expect(outcome.kind).toBe('pdf');
    }
  });

  it('stops a deeply nested HTML page at the timeout or reads it, never blocking the main thread', async () => {
    const depth = 200_000;
    const html = `<!doctype html><html><body>${'<div><span>'.repeat(depth)}deep text${'</span></div>'.repeat(depth)}</body></html>`;
    const { result, ticks } = await ticking(() =>
      extract({ bytes: Buffer.from(html), kind: 'html' }, { timeoutMs: 500 }),
    );
    expect(ticks).toBeGreaterThan(0);
    if (result.status === 'rejected') expect(['TIMEOUT', 'MALFORMED', 'TOO_LARGE']).toContain(rejection(result).code);
    else expect(result.value.sections.map((s) => s.text).join(' ')).toContain('deep text');
  });

  it('refuses a document with more text than maxChars as TOO_LARGE', async () => {
    const pdf = await buildPdf([{ paragraphs: [prose(200)] }, { paragraphs: [prose(200)] }]);
    await expect(extract({ bytes: pdf, kind: 'pdf' }, { maxChars: 500 })).rejects.toMatchObject({ code: 'TOO_LARGE' });
    await expect(extract({ bytes: Buffer.from(prose(500)), kind: 'text' }, { maxChars: 500 })).rejects.toMatchObject({
      code: 'TOO_LARGE',
    });
  });

  it('refuses a PDF without a text layer (scanned pages) as UNSUPPORTED, with a hint', async () => {
    const { PDFDocument } = await import('pdf-lib');
    const blank = await PDFDocument.create();
    blank.addPage();
    blank.addPage();
    const error = await extract({ bytes: Buffer.from(await blank.save()), kind: 'pdf' }).then(
      () => null,
      (e: unknown) => e as ExtractionError,
    );
    expect(error).toBeInstanceOf(ExtractionError);
    expect(error?.code).toBe('UNSUPPORTED');
    expect(error?.hint).toMatch(/OCR/);
  });

  it('rejects a ZIP that is not a DOCX as MALFORMED', async () => {
    const { buildZip } = await import('../domain/knowledge/fixtures.js');
    await expect(extract({ bytes: await buildZip(), kind: 'docx' })).rejects.toMatchObject({ code: 'MALFORMED' });
  });
});
