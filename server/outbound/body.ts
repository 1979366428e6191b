/**
 * Response bodies as bounded streams: the wire bytes are counted against maxBytes, decoded
 * (gzip, deflate, br) and the decoded bytes counted against maxDecompressedBytes. Counting
 * happens chunk by chunk, so a 50 MB body or a zip bomb is cut off at the limit, never buffered.
 */
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { OutboundError } from './errors.js';

class ByteLimit extends Transform {
  private seen = 0;
  constructor(
    private readonly limit: number,
    private readonly tooLarge: () => OutboundError,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) callback(this.tooLarge());
    else callback(null, chunk);
  }
}

type Coding = 'gzip' | 'deflate' | 'br';

/** Codings in the order they must be undone; null when one is unknown (the body is left encoded). */
export function parseContentEncoding(header: string | undefined): Coding[] | null {
  if (!header) return [];
  const listed = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  const codings: Coding[] = [];
  for (const c of listed.reverse()) {
    if (c === 'gzip' || c === 'x-gzip') codings.push('gzip');
    else if (c === 'deflate') codings.push('deflate');
    else if (c === 'br') codings.push('br');
    else return null;
  }
  return codings;
}

/** "deflate" should be zlib-wrapped, but some servers send raw deflate: look at the first bytes. */
function looksZlibWrapped(head: Buffer): boolean {
  if (head.length < 2) return true;
  return (head[0] & 0x0f) === 8 && ((head[0] << 8) | head[1]) % 31 === 0;
}

/** Reads the first chunk without consuming it (it is pushed back for the pipeline). */
function peekFirst(stream: Readable): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const finish = (err: Error | null, chunk: Buffer | null) => {
      stream.off('data', onData).off('end', onEnd).off('error', onError);
      stream.pause();
      if (err) reject(err);
      else {
        if (chunk) stream.unshift(chunk);
        resolve(chunk);
      }
    };
    const onData = (chunk: Buffer) => finish(null, chunk);
    const onEnd = () => finish(null, null);
    const onError = (err: Error) => finish(err, null);
    stream.on('data', onData).once('end', onEnd).once('error', onError);
  });
}

function decoder(coding: Coding, head: Buffer | null): Transform {
  if (coding === 'gzip') return createGunzip();
  if (coding === 'br') return createBrotliDecompress();
  return head && !looksZlibWrapped(head) ? createInflateRaw() : createInflate();
}

export interface BoundedBody {
  stream: Readable;
  /** True when a content coding was undone (Content-Encoding/Length no longer describe `stream`). */
  decoded: boolean;
}

/**
 * Wraps a raw response body. Errors (TOO_LARGE, decode failures, aborts) surface on the
 * returned stream; destroying it destroys the raw body, which closes the connection.
 */
export async function boundBody(
  raw: Readable,
  url: string,
  limits: { maxBytes: number; maxDecompressedBytes: number },
  contentEncoding: string | undefined,
): Promise<BoundedBody> {
  const codings = parseContentEncoding(contentEncoding) ?? [];
  const decoded = codings.length > 0;
  const head = codings[0] === 'deflate' ? await peekFirst(raw) : null;
  const stages: Transform[] = [
    new ByteLimit(
      limits.maxBytes,
      () => new OutboundError('TOO_LARGE', url, `The response from ${url} is larger than ${limits.maxBytes} bytes`),
    ),
  ];
  codings.forEach((coding, i) => stages.push(decoder(coding, i === 0 ? head : null)));
  if (decoded) {
    stages.push(
      new ByteLimit(
        limits.maxDecompressedBytes,
        () =>
          new OutboundError(
            'TOO_LARGE',
            url,
            `The response from ${url} decompresses to more than ${limits.maxDecompressedBytes} bytes`,
          ),
      ),
    );
  }
  const last = stages[stages.length - 1];
  pipeline([raw, ...stages], (err) => {
    if (err && !last.destroyed) last.destroy(err);
  });
  return { stream: last, decoded };
}
