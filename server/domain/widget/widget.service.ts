/**
 * The visitor-facing side of a chatbot: its public configuration and visitor sessions. A session
 * is bound to a chat user (a visitor of the chatbot) created when the session is first asked
 * for; renewing keeps the same visitor and so the same history.
 */
import type { SessionRequest, SessionResponse, WidgetConfig } from '../../../shared/protocol.js';
import type { ChatUserRecord } from '../conversations/ports.js';
import { visitorInfo } from '../conversations/views.js';
import { AppError, chatbotNotFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import type { ChatbotRecord, Store } from '../ports.js';
import { widgetConfig } from '../../../shared/widget-config.js';
import { allowedDomainsOf, originAllowed } from './origins.js';
import { identitySecretId, type SessionClaims, SessionTokens } from './sessions.js';

export interface VisitorSession {
  claims: SessionClaims;
  chatbot: ChatbotRecord;
  visitor: ChatUserRecord;
}

export const sessionNotValid = (why: string) =>
  new AppError('SESSION_NOT_VALID', `The visitor session is not valid: ${why}`, {
    hint: 'Ask for a new session (POST /api/widget/{chatbotId}/session, with "renew" to keep the same visitor), then reconnect',
  });

export const originNotAllowed = () =>
  new AppError('ORIGIN_NOT_ALLOWED', "This page's address is not among the chatbot's allowed domains", {
    hint: "Add the site's domain to the chatbot's allowedDomains setting (PATCH /api/v2/chatbots/{id}/settings/general)",
  });

/** Page context is kept short: it is shown to the team and may be given to the answer. */
const MAX_CONTEXT_KEYS = 20;
const MAX_CONTEXT_VALUE = 500;

export class WidgetService {
  constructor(
    private readonly store: Store,
    readonly tokens: SessionTokens,
    /** Whether a session id was revoked (logout); none are until visitor accounts say so. */
    private readonly isRevoked: (sid: string) => Promise<boolean> = async () => false,
  ) {}

  /** A chatbot visitors may reach: it exists and its account is active. */
  async chatbot(chatbotId: string): Promise<ChatbotRecord> {
    const chatbot = await this.store.chatbots.get(chatbotId);
    if (!chatbot) throw chatbotNotFound();
    const account = await this.store.accounts.get(chatbot.accountId);
    if (!account?.plan.active) throw chatbotNotFound();
    return chatbot;
  }

  checkOrigin(chatbot: ChatbotRecord, origin: string | undefined): void {
    if (!originAllowed(origin, allowedDomainsOf(chatbot.settings))) throw originNotAllowed();
  }

  /** The public config of a chatbot the caller has read (and checked its origin). */
  async config(chatbot: ChatbotRecord): Promise<WidgetConfig> {
    const [starters, followUps] = await Promise.all([
      this.store.resources.starters.list(chatbot.id),
      this.store.resources.followups.list(chatbot.id),
    ]);
    return widgetConfig(chatbot, starters, followUps);
  }

  /** A new session: for the visitor of `renew` when it is still renewable, else for a new visitor. */
  async startSession(chatbot: ChatbotRecord, input: SessionRequest): Promise<SessionResponse> {
    const at = nowIso();
    const metadata: Record<string, unknown> = {};
    if (input.context) metadata.context = cleanContext(input.context);
    if (input.locale) metadata.locale = input.locale;
    let visitor: ChatUserRecord | null = null;
    let identitySecret: string | undefined;
    if (input.renew !== undefined) {
      const claims = this.tokens.read(input.renew);
      if (!claims || claims.chatbotId !== chatbot.id)
        throw sessionNotValid('the token to renew is not one of this chatbot');
      if (!claims.renewable) throw sessionNotValid('the token to renew is too old');
      if (await this.isRevoked(claims.sid)) throw sessionNotValid('the session was logged out');
      await this.checkIdentity(claims);
      identitySecret = claims.secretId;
      visitor = await this.store.conversations.chatUsers.get(claims.chatUserId);
      if (!visitor || visitor.chatbotId !== chatbot.id) throw sessionNotValid('its visitor no longer exists');
      if (Object.keys(metadata).length) {
        await this.store.conversations.chatUsers.update(visitor.id, {
          metadata: { ...visitor.metadata, ...metadata },
          updatedAt: at,
        });
      }
    } else {
      visitor = {
        id: newId(),
        chatbotId: chatbot.id,
        email: null,
        name: null,
        phone: null,
        verified: false,
        metadata,
        createdAt: at,
        updatedAt: at,
      };
      await this.store.conversations.chatUsers.insert(visitor);
    }
    return this.sessionFor(chatbot, visitor, identitySecret);
  }

  /** Keeps the page the visitor writes from (the frame's `page`, checked http(s) by its schema) with them, for the team. */
  async notePage(visitor: ChatUserRecord, page: string): Promise<void> {
    if (visitor.metadata.page === page) return;
    const current = (await this.store.conversations.chatUsers.get(visitor.id)) ?? visitor;
    const metadata = { ...current.metadata, page };
    await this.store.conversations.chatUsers.update(visitor.id, { metadata, updatedAt: nowIso() });
    visitor.metadata = metadata;
  }

  /** `identitySecret`: the id of the identity secret whose signed claim identified the visitor (the session ends with it). */
  sessionFor(chatbot: ChatbotRecord, visitor: ChatUserRecord, identitySecret?: string): SessionResponse {
    const { token, expiresAt } = this.tokens.issue(chatbot.id, visitor.id, undefined, identitySecret);
    return { token, expiresAt, visitor: visitorInfo(visitor) };
  }

  /** The session a token stands for, or SESSION_NOT_VALID. */
  async authenticate(token: unknown): Promise<VisitorSession> {
    const claims = this.tokens.read(token);
    if (!claims) throw sessionNotValid('the token is malformed or not signed by this server');
    if (claims.expired) throw sessionNotValid('the token expired');
    if (await this.isRevoked(claims.sid)) throw sessionNotValid('the session was logged out');
    await this.checkIdentity(claims);
    const chatbot = await this.chatbot(claims.chatbotId).catch(() => null);
    if (!chatbot) throw sessionNotValid('its chatbot no longer exists');
    const visitor = await this.store.conversations.chatUsers.get(claims.chatUserId);
    if (!visitor || visitor.chatbotId !== chatbot.id) throw sessionNotValid('its visitor no longer exists');
    return { claims, chatbot, visitor };
  }

  /**
   * A session of a signed identity ends when the chatbot's identity secret is rotated or removed:
   * rotating is how an owner shuts out claims made with a leaked secret, and the sessions those
   * claims opened would otherwise last (renewed) for 30 days.
   */
  async checkIdentity(claims: SessionClaims) {
    if (claims.via !== 'identity') return;
    checkIdentitySecret(claims, await this.identitySecretId(claims.chatbotId));
  }

  /** The id of the chatbot's current identity secret (identitySecretId), or null when it has none. */
  async identitySecretId(chatbotId: string): Promise<string | null> {
    const row = await this.store.visitors.identitySecrets.get(chatbotId);
    return row ? identitySecretId(row.sealed) : null;
  }
}

/** SESSION_NOT_VALID for a signed identity's session made with another identity secret than the chatbot's current one (`currentId`), or with none left. */
export function checkIdentitySecret(claims: SessionClaims, currentId: string | null) {
  if (claims.via !== 'identity') return;
  if (!currentId || claims.secretId !== currentId)
    throw sessionNotValid("the chatbot's identity secret was rotated: identify the visitor again");
}

function cleanContext(context: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(context).slice(0, MAX_CONTEXT_KEYS)) {
    if (typeof v === 'string' && k !== '__proto__') out[k.slice(0, 64)] = v.slice(0, MAX_CONTEXT_VALUE);
  }
  return out;
}
