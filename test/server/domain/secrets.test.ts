import { createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { SecretBox, SecretError } from '../../../server/domain/secrets.js';

const key = randomBytes(32);
const box = new SecretBox(key);

/** Flips one bit of one base64url part of a sealed value. */
function flip(sealed: string, part: 1 | 2 | 3): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part], 'base64url');
  bytes[bytes.length - 1] ^= 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('SecretBox (AES-256-GCM, HKDF-SHA256 key)', () => {
  test('round trip, also for empty and non-ASCII text and JSON values', () => {
    for (const plain of ['ATATT3xFfGF0-token', '', 'pässwörd 🔑 日本語', 'x'.repeat(10_000)]) {
      expect(box.decrypt(box.encrypt(plain))).toBe(plain);
    }
    const creds = { email: 'jane@example.com', apiToken: 'tok' };
    expect(box.open(box.seal(creds, 'source:1'), 'source:1')).toEqual(creds);
  });

  test('versioned base64url output with a fresh 12-byte IV and a 16-byte tag; no plaintext in it', () => {
    const a = box.encrypt('the same secret');
    const b = box.encrypt('the same secret');
    expect(a).not.toBe(b);
    const [version, iv, tag, body] = a.split('.');
    expect(version).toBe('v1');
    expect(Buffer.from(iv, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag, 'base64url')).toHaveLength(16);
    expect(Buffer.from(body, 'base64url')).toHaveLength('the same secret'.length);
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(a).not.toContain('secret');
  });

  test('the cipher key is HKDF-SHA256(secret, info "parley credentials v1"), not the secret itself', () => {
    const sealed = box.encrypt('derived');
    const [, iv, tag, body] = sealed.split('.');
    const derived = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'parley credentials v1', 32));
    const d = createDecipheriv('aes-256-gcm', derived, Buffer.from(iv, 'base64url'));
    d.setAAD(Buffer.alloc(0));
    d.setAuthTag(Buffer.from(tag, 'base64url'));
    expect(Buffer.concat([d.update(Buffer.from(body, 'base64url')), d.final()]).toString()).toBe('derived');
    const raw = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    raw.setAuthTag(Buffer.from(tag, 'base64url'));
    raw.update(Buffer.from(body, 'base64url'));
    expect(() => raw.final()).toThrow();
  });

  test('tampering with the IV, the tag or the ciphertext is detected', () => {
    const sealed = box.encrypt('do not change me');
    for (const part of [1, 2, 3] as const) {
      expect(() => box.decrypt(flip(sealed, part)), `part ${part}`).toThrow(SecretError);
    }
    const [v, iv, tag, body] = sealed.split('.');
    expect(() => box.decrypt([v, iv, tag, body + 'AA'].join('.'))).toThrow(SecretError);
    expect(() => box.decrypt([v, iv, tag.slice(0, 10), body].join('.'))).toThrow(/truncated or damaged/);
  });

  test('the wrong key, the wrong context or a foreign format fails with a clear SecretError', () => {
    const sealed = box.encrypt('token', 'source:a');
    expect(() => new SecretBox(randomBytes(32)).decrypt(sealed, 'source:a')).toThrow(/SECRET_KEY changed/);
    expect(() => box.decrypt(sealed, 'source:b')).toThrow(SecretError);
    expect(() => box.decrypt(sealed)).toThrow(SecretError);
    expect(box.decrypt(sealed, 'source:a')).toBe('token');
    for (const bad of [
      '',
      'plaintext',
      'v2.a.b.c',
      sealed.replace(/^v1/, 'v0'),
      sealed.split('.').slice(0, 3).join('.'),
    ]) {
      expect(() => box.decrypt(bad), bad).toThrow(SecretError);
    }
  });

  test('a server secret shorter than 32 bytes is refused', () => {
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
