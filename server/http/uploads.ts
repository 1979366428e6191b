/**
 * File uploads streamed to disk: each part goes to a temporary file under DATA_DIR/uploads as it
 * arrives, with its size checked while streaming (busboy stops at the per-file limit) and the
 * request's total checked as bytes arrive, so a request never holds its files in memory. An
 * account may run only a few uploads at once across every instance (429 RATE_LIMITED beyond):
 * each upload holds a lease in the database, renewed while it runs, released when it ends, and
 * expired LEASE_MS after a process that died stopped renewing it. The caller reads each file
 * once and the files are removed when the request ends, whatever happened.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { UploadLeaseStore } from '../domain/ports.js';

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
  /** Uploads of one account at once, on all instances together. */
  perAccount: number;
}

/** How long an upload's lease lasts unless renewed (every third of it while the upload runs). */
export const LEASE_MS = 60_000;

const tooLarge = (what: string) =>
  new AppError('PAYLOAD_TOO_LARGE', `${what} is larger than this route accepts`, {
    hint: 'Send smaller or fewer files',
  });

export class Uploads {
  constructor(
    private readonly limits: UploadLimits,
    private readonly leases: UploadLeaseStore,
  ) {}

  /**
   * Streams the request's file parts to disk and calls `use` with them; `name` turns a client file
   * name into a display name. The temporary files are gone when this returns or throws.
   */
  async receive<T>(
    request: FastifyRequest,
    accountId: string,
    name: (raw: string) => string,
    use: (files: ReceivedFile[]) => Promise<T>,
  ): Promise<T> {
    const expiry = () => new Date(Date.now() + LEASE_MS).toISOString();
    const lease = { id: newId(), accountId, expiresAt: expiry() };
    const { taken, running } = await this.leases.acquire(lease, this.limits.perAccount, new Date().toISOString());
    if (!taken) {
      throw new AppError('RATE_LIMITED', `This account already has ${running} uploads in progress`, {
        hint: 'Wait for an upload to finish, then send this one again',
        headers: { 'retry-after': '5' },
      });
    }
    const renewal = setInterval(
      () =>
        void this.leases
          .renew(lease.id, expiry())
          .catch((err) => request.log.warn({ err }, 'renewing an upload lease failed')),
      LEASE_MS / 3,
    );
    renewal.unref();
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
      clearInterval(renewal);
      // A lease left behind (database unreachable) expires by itself.
      await this.leases.release(lease.id).catch((err) => request.log.warn({ err }, 'releasing an upload lease failed'));
      await rm(dir, { recursive: true, force: true });
    }
  }
}
