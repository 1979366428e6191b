/**
 * Signed identity from the host page: a site that knows its signed-in user passes
 * `{ email, signature }` where signature = hex HMAC-SHA256(identity secret, email). The secret is
 * per chatbot, made and rotated through the v2 API, shown once, stored sealed (SecretBox, bound to
 * the chatbot). A claim that is unsigned, wrongly signed, or made for a chatbot without a secret
 * is refused (IDENTITY_NOT_VALID) before anything is read or merged.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { VisitorInfo } from '../../../shared/protocol.js';
import type { AuthContext } from '../auth.js';
import type { ChatbotsService } from '../chatbots.service.js';
import type { ChatUserRecord } from '../conversations/ports.js';
import { AppError, confirmationRequired, notFound } from '../errors.js';
import { nowIso } from '../ids.js';
import type { Store } from '../ports.js';
import { normalizeContact } from '../resources/lead-fields.js';
import type { SecretBox } from '../secrets.js';
import { identitySecretId } from '../widget/sessions.js';
import { visitorInfo } from '../conversations/views.js';
import type { VisitorAccounts } from './accounts.js';

export interface IdentityClaim {
  email: string;
  signature: string;
  name?: string;
}

export interface IdentitySecretStatus {
  configured: boolean;
  /** When the current secret was made (null when none). */
  createdAt: string | null;
  algorithm: 'HMAC-SHA256';
}

const PREFIX = 'pis_';
const context = (chatbotId: string) => `identity-secret:${chatbotId}`;

export const identityNotValid = () =>
  new AppError('IDENTITY_NOT_VALID', "The identity claim is not signed with this chatbot's identity secret", {
    hint: 'Sign the exact e-mail string with HMAC-SHA256 and the current identity secret, as lowercase hex; without a claim the visitor is anonymous',
  });

/** hex HMAC-SHA256(secret, email): what a host page computes on its server. */
export const signIdentity = (secret: string, email: string) =>
  createHmac('sha256', secret).update(email, 'utf8').digest('hex');

export class IdentityService {
  constructor(
    private readonly store: Store,
    private readonly chatbots: ChatbotsService,
    private readonly box: SecretBox,
    private readonly accounts: VisitorAccounts,
  ) {}

  /** Makes a new secret (replacing the current one: claims signed with it stop working, and the sessions they opened end). The only time it is shown. */
  async rotate(auth: AuthContext, chatbotId: string): Promise<{ secret: string } & IdentitySecretStatus> {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const secret = PREFIX + randomBytes(32).toString('base64url');
    const at = nowIso();
    await this.store.visitors.identitySecrets.put(chatbot.id, this.box.encrypt(secret, context(chatbot.id)), at);
    // Open sockets of the sessions the old secret opened end now, on every instance.
    await this.chatbots.changed(chatbot.id);
    return { secret, configured: true, createdAt: at, algorithm: 'HMAC-SHA256' };
  }

  async status(auth: AuthContext, chatbotId: string): Promise<IdentitySecretStatus> {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const row = await this.store.visitors.identitySecrets.get(chatbot.id);
    return { configured: !!row, createdAt: row?.createdAt ?? null, algorithm: 'HMAC-SHA256' };
  }

  /** Turns signed identities off: every claim is refused until a new secret is made. */
  async remove(auth: AuthContext, chatbotId: string, confirm: boolean): Promise<IdentitySecretStatus> {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    if (!(await this.store.visitors.identitySecrets.get(chatbot.id))) throw notFound('Identity secret');
    if (!confirm)
      throw confirmationRequired(
        'Add ?confirm=true to delete the identity secret; host pages that sign identities stop working',
      );
    await this.store.visitors.identitySecrets.delete(chatbot.id);
    await this.chatbots.changed(chatbot.id);
    return { configured: false, createdAt: null, algorithm: 'HMAC-SHA256' };
  }

  /** The claim's address (lowercased) when it is signed with the chatbot's current secret, else null. */
  async verify(chatbotId: string, claim: { email?: unknown; signature?: unknown }): Promise<string | null> {
    return (await this.check(chatbotId, claim))?.email ?? null;
  }

  /** As `verify`, with the id of the secret that signed the claim (a session it opens carries it). */
  async check(
    chatbotId: string,
    claim: { email?: unknown; signature?: unknown },
  ): Promise<{ email: string; secretId: string } | null> {
    if (typeof claim.email !== 'string' || typeof claim.signature !== 'string') return null;
    if (!/^[0-9a-fA-F]{64}$/.test(claim.signature)) return null;
    const row = await this.store.visitors.identitySecrets.get(chatbotId);
    if (!row) return null;
    let secret: string;
    try {
      secret = this.box.decrypt(row.sealed, context(chatbotId));
    } catch {
      return null; // SECRET_KEY changed since it was made: the owner rotates it
    }
    const expected = Buffer.from(signIdentity(secret, claim.email), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(claim.signature, 'hex'))) return null;
    const errors: { path: string[]; message: string }[] = [];
    const email = normalizeContact(claim.email, 'email', 'email', errors);
    return errors.length || !email ? null : { email, secretId: identitySecretId(row.sealed) };
  }

  /**
   * The verified visitor of a correctly signed claim (created on first use), with the session's
   * own anonymous conversations joined to it. Throws IDENTITY_NOT_VALID, changing nothing,
   * for any other claim.
   */
  async identify(
    chatbotId: string,
    claim: IdentityClaim,
    currentChatUserId: string | null = null,
  ): Promise<{ visitor: VisitorInfo; chatUser: ChatUserRecord }> {
    const email = await this.verify(chatbotId, claim);
    if (!email) throw identityNotValid();
    const chatUser = await this.bind(chatbotId, email, claim.name, currentChatUserId);
    return { visitor: visitorInfo(chatUser), chatUser };
  }

  /** The verified visitor of an e-mail `verify` returned (created on first use), as `identify`. */
  async bind(
    chatbotId: string,
    email: string,
    name: IdentityClaim['name'],
    currentChatUserId: string | null,
  ): Promise<ChatUserRecord> {
    const errors: { path: string[]; message: string }[] = [];
    const clean = normalizeContact(name, 'name', 'text', errors);
    return this.accounts.bindVerified(chatbotId, email, { name: errors.length ? null : clean }, currentChatUserId);
  }
}
