/** Item handlers for content given directly: free text and uploaded files (YouTube: adapters/youtube.ts). */
import { createHash } from 'node:crypto';
import type { ItemContext, ItemHandler, ItemResult } from '../ingest-runner.js';
import type { IngestItem, StoredBlob } from '../ports.js';
import { failure, indexOutcome } from './web.js';

/** Free text, read as Markdown so its headings structure the chunks. */
export const textItem: ItemHandler = async (ctx, item) => {
  const title = String(item.payload?.title ?? 'Text');
  const text = String(item.payload?.text ?? '');
  try {
    const doc = await ctx.extractor.extract(
      { bytes: Buffer.from(text, 'utf8'), kind: 'markdown', filename: title },
      ctx.extractLimits,
    );
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

/**
 * The parsers need a file whole: its pieces are copied into one buffer of the stored size as they
 * are read (no second copy of the file), and hashed on the way.
 */
async function gather(blob: StoredBlob): Promise<{ bytes: Buffer; hash: string }> {
  const bytes = Buffer.allocUnsafe(blob.size);
  const hash = createHash('sha256');
  let at = 0;
  for await (const piece of blob.pieces()) {
    if (at + piece.length > bytes.length)
      throw new Error(`The stored file ${blob.id} is longer than its ${blob.size} bytes`);
    piece.copy(bytes, at);
    hash.update(piece);
    at += piece.length;
  }
  return { bytes, hash: hash.digest('hex') };
}

async function readFile(ctx: ItemContext, item: IngestItem, blob: StoredBlob): Promise<ItemResult> {
  const name = String(item.payload?.name ?? blob.name);
  try {
    const { bytes, hash } = await gather(blob);
    const kind = await ctx.extractor.detectKind(bytes, { filename: name });
    if (!kind || kind === 'youtube') {
      return { status: 'failed', error: `${name}: not a PDF, DOCX, TXT, Markdown, HTML or CSV file` };
    }
    const doc = await ctx.extractor.extract({ bytes, kind, filename: name }, ctx.extractLimits);
    if (!doc.title) doc.title = name;
    return await indexOutcome(ctx, `file:${hash}`, null as unknown as string, doc);
  } catch (err) {
    return failure(err);
  }
}
