/**
 * Signing secrets and signatures. A secret is `whsec_` + base64 of 32 random bytes, as in the
 * Standard Webhooks specification; its key is the decoded bytes. Each delivery carries:
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")>`
 *   (Standard Webhooks; receivers check the timestamp to refuse replays);
 * - `X-SERVICE-SIGNATURE` (spec section 6): `sha256=<hex HMAC-SHA256(key, body)>`.
 * During a rotation's overlap both secrets sign `webhook-signature` (space-separated entries, as
 * the Standard Webhooks format allows); `X-SERVICE-SIGNATURE` stays the single value the spec
 * defines, with the current secret.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export const generateSecret = () => PREFIX + randomBytes(32).toString('base64');

/** The HMAC key of a secret: its bytes after the prefix, base64-decoded. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'x-service-signature': string;
}

/** Signature headers of one attempt; `secrets` newest first. */
export function signDelivery(id: string, timestampSeconds: number, body: string, secrets: string[]): SignatureHeaders {
  const standard = secrets.map(
    (secret) =>
      'v1,' + createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64'),
  );
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standard.join(' '),
    'x-service-signature': secrets.length
      ? 'sha256=' + createHmac('sha256', secretKey(secrets[0])).update(body).digest('hex')
      : '',
  };
}
