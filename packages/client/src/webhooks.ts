/**
 * Verifying Parley's webhook deliveries (on a server: it needs node:crypto, so it is the separate
 * entry `@parley/client/webhooks`). Two signature forms, both HMAC-SHA256 with the key the signing
 * secret carries (`whsec_` + base64 of the key bytes):
 * - Standard Webhooks: `webhook-signature: v1,<base64 HMAC(key, "{webhook-id}.{webhook-timestamp}.{body}")>`,
 *   possibly several space-separated entries during a secret rotation; the timestamp must be
 *   recent, so a captured delivery cannot be replayed later;
 * - `X-SERVICE-SIGNATURE: sha256=<hex HMAC(key, body)>` (no timestamp: nothing stops a replay).
 * Comparisons are constant-time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Fetch's Headers, or Node's `IncomingHttpHeaders` (lower-case names). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /**
   * Which form to check. `auto` (the default): the Standard Webhooks headers when the delivery
   * has them (every Parley delivery does), else X-SERVICE-SIGNATURE.
   */
  scheme?: 'auto' | 'standard-webhooks' | 'service-signature';
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The current time in milliseconds (default Date.now). */
  now?: () => number;
}

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(', ') : value;
};

const keyOf = (secret: string) => Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/**
 * Checks a delivery's signature with the raw body exactly as received (not re-serialised JSON)
 * and returns the parsed body; throws WebhookVerificationError otherwise. `secret` may be several
 * (the old and the new one while a rotation overlaps).
 */
export function verifyWebhook<T = unknown>(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): T {
  const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const keys = (typeof secret === 'string' ? [secret] : [...secret]).map(keyOf);
  if (!keys.length || keys.some((k) => !k.length)) throw new WebhookVerificationError('No signing secret given');
  const scheme = options.scheme ?? 'auto';
  const standard = header(headers, 'webhook-signature');
  const service = header(headers, 'x-service-signature');

  if (scheme === 'standard-webhooks' || (scheme === 'auto' && standard !== undefined)) {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    if (!id || !timestamp || !standard)
      throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature');
    if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');
    const tolerance = options.toleranceSeconds ?? 300;
    const now = Math.floor((options.now ?? Date.now)() / 1000);
    if (Math.abs(now - Number(timestamp)) > tolerance)
      throw new WebhookVerificationError('webhook-timestamp is outside the tolerance: an old or replayed delivery');
    const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), raw]);
    const expected = keys.map((key) => createHmac('sha256', key).update(signed).digest());
    const given = standard
      .split(' ')
      .filter((entry) => entry.startsWith('v1,'))
      .map((entry) => Buffer.from(entry.slice(3), 'base64'));
    if (!given.some((g) => expected.some((e) => sameBytes(g, e))))
      throw new WebhookVerificationError('No webhook-signature entry matches the secret');
  } else {
    if (!service) throw new WebhookVerificationError('The delivery carries no signature header');
    const match = /^sha256=([0-9a-f]{64})$/.exec(service.trim());
    if (!match) throw new WebhookVerificationError('X-SERVICE-SIGNATURE is not sha256=<64 hex digits>');
    const given = Buffer.from(match[1], 'hex');
    if (!keys.some((key) => sameBytes(given, createHmac('sha256', key).update(raw).digest())))
      throw new WebhookVerificationError('X-SERVICE-SIGNATURE does not match the secret');
  }

  try {
    return JSON.parse(raw.toString('utf8')) as T;
  } catch {
    throw new WebhookVerificationError('The signed body is not JSON');
  }
}
