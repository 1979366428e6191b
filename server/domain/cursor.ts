/**
 * Opaque pagination cursors: the last item's keyset, bound to the list it came from and signed
 * with the server secret, so a cursor the API did not issue (or one from another list) is
 * refused with INVALID_CURSOR instead of silently returning the wrong page.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors.js';
import type { Keyset } from './ports.js';

export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 22);
  }

  encode(list: string, key: Keyset | null): string | null {
    if (!key) return null;
    const body = Buffer.from(JSON.stringify([list, key.createdAt, key.id])).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  decode(list: string, cursor: string | undefined): Keyset | null {
    if (cursor === undefined || cursor === '') return null;
    const invalid = new AppError('INVALID_CURSOR', 'The cursor was not issued by this API for this list', {
      hint: 'Pass the nextCursor of the previous page unchanged, or omit cursor to start from the first page',
    });
    const [body, sig, extra] = cursor.split('.');
    if (!body || !sig || extra !== undefined) throw invalid;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid;
    try {
      const [l, createdAt, id] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown[];
      if (l !== list || typeof createdAt !== 'string' || typeof id !== 'string') throw invalid;
      return { createdAt, id };
    } catch {
      throw invalid;
    }
  }
}
