/**
 * Encryption of stored credentials (a connected source's API token). AES-256-GCM under a key
 * derived from the server secret by HKDF-SHA256, so the secret that signs cursors is never used
 * as a cipher key itself. Output: `v1.<iv>.<tag>.<ciphertext>` (base64url); the version lets a
 * later key or algorithm coexist with rows written by this one.
 *
 * `context` is bound as additional authenticated data (e.g. the source id): a ciphertext copied
 * to another row does not decrypt there.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const INFO = 'parley credentials v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Decryption failed: a changed SECRET_KEY, a tampered or truncated value, or the wrong context. */
export class SecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretError';
  }
}

export class SecretBox {
  private readonly key: Buffer;

  constructor(secretKey: Buffer) {
    if (secretKey.length < 32) throw new Error('The server secret must be at least 32 bytes');
    this.key = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), INFO, 32));
  }

  encrypt(plaintext: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      VERSION,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }

  decrypt(sealed: string, context = ''): string {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION)
      throw new SecretError('Stored credentials are not in a format this server reads');
    const [, ivText, tagText, bodyText] = parts;
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
      throw new SecretError('Stored credentials are truncated or damaged');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(bodyText, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretError(
        'Stored credentials could not be decrypted: SECRET_KEY changed since they were saved, or they were altered',
      );
    }
  }

  /** JSON values (a credentials object) sealed as one string. */
  seal(value: unknown, context = ''): string {
    return this.encrypt(JSON.stringify(value), context);
  }

  open<T>(sealed: string, context = ''): T {
    return JSON.parse(this.decrypt(sealed, context)) as T;
  }
}
