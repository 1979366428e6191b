/** Item handlers for content given directly: free text and uploaded files (YouTube: adapters/youtube.ts). */
import { createHash } from 'node:crypto';
import type { ItemContext, ItemHandler, ItemResult } from '../ingest-runner.js';
import type { IngestItem } from '../ports.js';
import { failure, indexOutcome } from './web.js';

/** Free text, read as Markdown so its headings structure the chunks. */
export const textItem: ItemHandler = async (ctx, item) => {
  const title = String(item.payload?.title ?? 'Text');
  const text = String(item.payload?.text ?? '');
  try {
    const doc = await ctx.extractor.extract({ bytes: Buffer.from(text, 'utf8'), kind: 'markdown', filename: title }, ctx.extractLimits);
    doc.title = title;
    return await indexOutcome(ctx, `text:${item.payload?.documentKey ?? item.key}`, null as unknown as string, doc);
  } catch (err) {
    return failure(err);
  }
};

/**
 * An uploaded file: its kind is decided by its bytes. The upload is removed once its item has an
 * outcome (indexed, unchanged, failed or skipped): nothing reads it again, and a file that cannot
 * be read would otherwise stay stored with no document pointing at it. An interrupted item keeps
 * it for the run that resumes the job.
 */
export const fileItem: ItemHandler = async (ctx, item) => {
  const blob = item.blobId ? await ctx.store.knowledge.blobs.get(item.blobId) : null;
  if (!blob) return { status: 'failed', error: 'The uploaded file is no longer stored' };
  const result = await readFile(ctx, item, blob);
  if (!ctx.signal.aborted) await ctx.store.knowledge.blobs.delete([blob.id]);
  return result;
};

async function readFile(ctx: ItemContext, item: IngestItem, blob: { id: string; name: string; bytes: Buffer }): Promise<ItemResult> {
  const name = String(item.payload?.name ?? blob.name);
  try {
    const kind = await ctx.extractor.detectKind(blob.bytes, { filename: name });
    if (!kind || kind === 'youtube' || kind === 'html' && false) {
      return { status: 'failed', error: `${name}: not a PDF, DOCX, TXT, Markdown, HTML or CSV file` };
    }
    const doc = await ctx.extractor.extract({ bytes: blob.bytes, kind, filename: name }, ctx.extractLimits);
    if (!doc.title) doc.title = name;
    const key = `file:${createHash('sha256').update(blob.bytes).digest('hex')}`;
    return await indexOutcome(ctx, key, null as unknown as string, doc);
  } catch (err) {
    return failure(err);
  }
}
