/**
 * File uploads streamed to disk: each part goes to a temporary file under DATA_DIR/uploads as it
 * arrives, with its size checked while streaming (busboy stops at the per-file limit) and the
 * request's total checked as bytes arrive, so a request never holds its files in memory. An
 * account may run only a few uploads at once (429 RATE_LIMITED beyond). The caller reads each
 * file once and the files are removed when the request ends, whatever happened.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';

export interface ReceivedFile {
  name: string;
  size: number;
  /** The file's bytes, streamed from disk when asked. */
  bytes(): AsyncIterable<Uint8Array>;
}

export interface UploadLimits {
  /** Where temporary files go. */
  dir: string;
  /** The request's files together. */
  maxTotalBytes: number;
  /** Uploads of one account at once. */
  perAccount: number;
}

const tooLarge = (what: string) =>
  new AppError('PAYLOAD_TOO_LARGE', `${what} is larger than this route accepts`, { hint: 'Send smaller or fewer files' });

export class Uploads {
  private readonly active = new Map<string, number>();

  constructor(private readonly limits: UploadLimits) {}

  /**
   * Streams the request's file parts to disk and calls `use` with them; `name` turns a client file
   * name into a display name. The temporary files are gone when this returns or throws.
   */
  async receive<T>(request: FastifyRequest, accountId: string, name: (raw: string) => string, use: (files: ReceivedFile[]) => Promise<T>): Promise<T> {
    const running = this.active.get(accountId) ?? 0;
    if (running >= this.limits.perAccount) {
      throw new AppError('RATE_LIMITED', `This account already has ${running} uploads in progress`, {
        hint: 'Wait for an upload to finish, then send this one again',
        headers: { 'retry-after': '5' },
      });
    }
    this.active.set(accountId, running + 1);
    const dir = join(this.limits.dir, `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`);
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const files: ReceivedFile[] = [];
      let total = 0;
      for await (const part of request.parts()) {
        if (part.type !== 'file') continue;
        const path = join(dir, String(files.length));
        let size = 0;
        const maxTotal = this.limits.maxTotalBytes;
        const counter = new Transform({
          transform(chunk: Buffer, _enc, done) {
            size += chunk.length;
            total += chunk.length;
            if (total > maxTotal) done(tooLarge('The upload'));
            else done(null, chunk);
          },
        });
        await pipeline(part.file, counter, createWriteStream(path, { mode: 0o600 }));
        // busboy cut the file at the per-file limit (@fastify/multipart throws too; this is the backstop).
        if (part.file.truncated) throw tooLarge(`The file ${part.filename}`);
        files.push({ name: name(part.filename), size, bytes: () => createReadStream(path) });
      }
      return await use(files);
    } finally {
      const left = (this.active.get(accountId) ?? 1) - 1;
      if (left > 0) this.active.set(accountId, left);
      else this.active.delete(accountId);
      await rm(dir, { recursive: true, force: true });
    }
  }
}
