import { randomBytes } from 'node:crypto';

// One call into the CSPRNG per 256 ids: a call per id cost more than the rest of making it.
let pool = Buffer.alloc(0);
let offset = 0;
function random(n: number): Buffer {
  if (offset + n > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  offset += n;
  return pool.subarray(offset - n, offset);
}

/**
 * 128 random bits, URL-safe: ids never reveal order or count. Never starting with `-`, so an id
 * passed on a command line (`--account <id>`) is never taken for an option.
 */
export function newId(): string {
  const bytes = Buffer.from(random(16));
  // base64url's first character is the top six bits of the first byte; 62 is `-`. Flipping
  // one bit keeps 128 random bits everywhere else.
  if (bytes[0] >> 2 === 62) bytes[0] ^= 0x80;
  return bytes.toString('base64url');
}

/** ISO-8601 UTC with milliseconds: the one timestamp format in storage and in the API. */
export const nowIso = () => new Date().toISOString();
