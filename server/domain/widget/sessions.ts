/**
 * Visitor session tokens: `<claims>.<signature>`, both base64url, the signature an HMAC-SHA256
 * of the claims under a key derived from SECRET_KEY. Nothing is stored to issue one; a token is
 * renewable for a while after it expires (same visitor, same history), and a logout revokes its
 * session id. The alphabet fits a WebSocket subprotocol token.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface SessionClaims {
  /** Session id (revocation). */
  sid: string;
  chatbotId: string;
  /** The chat user (visitor) the session acts as. */
  chatUserId: string;
  /** Issued and expiry, seconds since the epoch. */
  iat: number;
  exp: number;
  /** `identity`: the visitor was identified by the host page's signed claim (void once the identity secret is rotated). */
  via?: 'identity';
  /** With `via: 'identity'`: the id of the identity secret that signed the claim (identitySecretId). */
  secretId?: string;
}

/**
 * The id of one identity secret: a digest of its sealed form, which is new at every rotation
 * (a new secret, a new random nonce). A signed identity's session carries it and is valid only
 * while the chatbot's secret has the same id, however close to a rotation it was made.
 */
export const identitySecretId = (sealed: string) =>
  createHash('sha256').update(sealed).digest('base64url').slice(0, 22);

export const SESSION_TTL_SECONDS = 24 * 3600;
/** How long after issue an expired token may still be renewed into a new one. */
export const RENEW_WINDOW_SECONDS = 30 * 24 * 3600;

export class SessionTokens {
  private readonly key: Buffer;
  constructor(
    secretKey: Buffer,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    this.key = createHmac('sha256', secretKey).update('parley widget session v1').digest();
  }

  /** `identitySecret`: the id of the identity secret whose signed claim identified the visitor. */
  issue(
    chatbotId: string,
    chatUserId: string,
    ttlSeconds = SESSION_TTL_SECONDS,
    identitySecret?: string,
  ): { token: string; claims: SessionClaims; expiresAt: string } {
    const iat = this.now();
    const identity = identitySecret !== undefined ? { via: 'identity' as const, secretId: identitySecret } : {};
    const claims: SessionClaims = {
      sid: randomBytes(12).toString('base64url'),
      chatbotId,
      chatUserId,
      iat,
      exp: iat + ttlSeconds,
      ...identity,
    };
    const parts = [
      claims.sid,
      claims.chatbotId,
      claims.chatUserId,
      claims.iat,
      claims.exp,
      ...(identity.via ? [identity.via, identity.secretId] : []),
    ];
    const body = Buffer.from(JSON.stringify(parts)).toString('base64url');
    return { token: `${body}.${this.sign(body)}`, claims, expiresAt: new Date(claims.exp * 1000).toISOString() };
  }

  /** The claims of a well-signed token, expired or not; null for anything else. */
  read(token: unknown): (SessionClaims & { expired: boolean; renewable: boolean }) | null {
    if (typeof token !== 'string' || token.length > 1024) return null;
    const dot = token.indexOf('.');
    if (dot <= 0) return null;
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.sign(body), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let parts: unknown;
    try {
      parts = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    // Six parts: a signed identity's token from before secret ids; it names no secret, so no secret accepts it.
    if (!Array.isArray(parts) || parts.length < 5 || parts.length > 7) return null;
    const [sid, chatbotId, chatUserId, iat, exp, via, secretId = ''] = parts;
    if (
      typeof sid !== 'string' ||
      typeof chatbotId !== 'string' ||
      typeof chatUserId !== 'string' ||
      typeof iat !== 'number' ||
      typeof exp !== 'number'
    )
      return null;
    if (via !== undefined && via !== 'identity') return null;
    if (typeof secretId !== 'string') return null;
    const now = this.now();
    return {
      sid,
      chatbotId,
      chatUserId,
      iat,
      exp,
      ...(via && { via, secretId }),
      expired: now >= exp,
      renewable: now < iat + RENEW_WINDOW_SECONDS,
    };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
