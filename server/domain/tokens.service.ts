import { isScope, scopesForAccess, type Scope, type TokenAccess } from '../../shared/scopes.js';
import { type AuthContext, effectiveScopes, generateSecret, hashSecret } from './auth.js';
import { AppError, notFound, validationFailed } from './errors.js';
import type { CursorCodec } from './cursor.js';
import { newId, nowIso } from './ids.js';
import type { TokenKind, TokenRecord, Store, UserRecord } from './ports.js';

export interface TokenView {
  id: string;
  name: string;
  access: TokenAccess;
  scopes: Scope[];
  chatbotIds: string[] | null;
  createdById: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface NewToken {
  name?: string;
  access: TokenAccess;
  scopes?: string[];
  chatbotIds?: string[] | null;
}

/** Members and tokens restricted to chosen chatbots see and revoke only their own user's tokens. */
const ownTokensOnly = (auth: AuthContext) => auth.user.role === 'member' || auth.token.chatbotIds !== null;

/** How often last-used time is written: at most once a minute per token keeps reads cheap. */
const TOUCH_INTERVAL_MS = 60_000;

export const tokenView = (t: TokenRecord): TokenView => ({
  id: t.id,
  name: t.name,
  access: t.access,
  scopes: t.scopes,
  chatbotIds: t.chatbotIds,
  createdById: t.userId,
  createdAt: t.createdAt,
  lastUsedAt: t.lastUsedAt,
  revokedAt: t.revokedAt,
});

export class TokensService {
  constructor(
    private readonly store: Store,
    private readonly cursors: CursorCodec,
  ) {}

  /** Resolves a presented secret to its caller, or null when unknown or revoked. */
  async authenticate(plaintext: string, kind: TokenKind = 'api'): Promise<AuthContext | null> {
    const found = await this.store.tokens.withOwner(hashSecret(plaintext));
    if (!found) return null;
    const { token, user, account } = found;
    if (token.revokedAt || token.kind !== kind || user.accountId !== account.id) return null;
    const at = Date.now();
    if (!token.lastUsedAt || at - Date.parse(token.lastUsedAt) > TOUCH_INTERVAL_MS) {
      const iso = new Date(at).toISOString();
      await this.store.tokens.touch(token.id, iso);
      token.lastUsedAt = iso;
    }
    return { token, user, account, scopes: effectiveScopes(token.scopes, user.role) };
  }

  /**
   * The caller of an authenticated token as it is now (revoked, its user's role, its account),
   * for connections that outlive a request; null when the token was revoked or its user is gone.
   */
  async current(auth: AuthContext): Promise<AuthContext | null> {
    const token = await this.store.tokens.get(auth.account.id, auth.token.id);
    if (!token || token.revokedAt || token.kind !== auth.token.kind) return null;
    const [user, account] = await Promise.all([
      this.store.users.get(token.userId),
      this.store.accounts.get(token.accountId),
    ]);
    if (!user || !account || user.accountId !== account.id) return null;
    return { token, user, account, scopes: effectiveScopes(token.scopes, user.role) };
  }

  /**
   * Issues a token for `user`. Through the API (`by` set) a token can never mint more than it
   * holds: no scope beyond its effective scopes, no chatbot outside its own restriction.
   */
  async create(
    user: UserRecord,
    input: NewToken,
    by?: AuthContext,
    /** Inside a caller's transaction (`store`), with an id the caller chose (the device flow). */
    within: { store?: Store; id?: string } = {},
  ): Promise<{ token: string; record: TokenView }> {
    const store = within.store ?? this.store;
    const scopes = this.scopesOf(input);
    const chatbotIds = await this.checkChatbots(store, user.accountId, input.chatbotIds ?? null);
    if (by) {
      const beyond = scopes.filter((s) => !by.scopes.has(s));
      if (beyond.length) {
        throw new AppError(
          'TOKEN_SCOPE_NOT_ALLOWED',
          'A token cannot create a token with scopes it does not hold itself',
          {
            details: { requiredScopes: beyond },
            hint: 'Ask for fewer scopes, or create the token with a token that holds them',
          },
        );
      }
      const own = by.token.chatbotIds;
      if (own && (!chatbotIds || chatbotIds.some((id) => !own.includes(id)))) {
        throw validationFailed(
          [{ path: ['chatbotIds'], message: 'must list only chatbots this token is restricted to' }],
          'A restricted token can only create tokens restricted to its own chatbots',
        );
      }
    }
    const { plaintext, hash } = generateSecret();
    const record: TokenRecord = {
      id: within.id ?? newId(),
      accountId: user.accountId,
      userId: user.id,
      kind: 'api',
      name: input.name?.trim() || `${input.access} token`,
      access: input.access,
      scopes,
      chatbotIds,
      createdAt: nowIso(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await store.tokens.insert(record, hash);
    return { token: plaintext, record: tokenView(record) };
  }

  /** A legacy v0 key: no scopes of its own, it acts as its owner with the owner's role. */
  async createLegacyKey(user: UserRecord): Promise<{ token: string; id: string }> {
    const { plaintext, hash } = generateSecret();
    const record: TokenRecord = {
      id: newId(),
      accountId: user.accountId,
      userId: user.id,
      kind: 'legacy',
      name: 'legacy API key',
      access: 'full',
      scopes: scopesForAccess('full'),
      chatbotIds: null,
      createdAt: nowIso(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.store.tokens.insert(record, hash);
    return { token: plaintext, id: record.id };
  }

  /**
   * Members and chatbot-restricted tokens list their own user's tokens; the owner and admins the
   * account's (README "Access").
   */
  async list(auth: AuthContext, limit: number, cursor?: string) {
    const own = ownTokensOnly(auth);
    const list = own ? `tokens:${auth.user.id}` : 'tokens';
    const page = await this.store.tokens.page(
      auth.account.id,
      { limit, after: this.cursors.decode(list, cursor) },
      own ? auth.user.id : null,
    );
    return { tokens: page.items.map(tokenView), nextCursor: this.cursors.encode(list, page.next) };
  }

  async listAll(accountId: string | null): Promise<TokenView[]> {
    return (await this.store.tokens.listAll(accountId)).map(tokenView);
  }

  /**
   * `DELETE /tokens/{id}`: members and chatbot-restricted tokens revoke only their own user's
   * tokens (others are 404, as if absent); an admin cannot revoke the owner's.
   */
  async revoke(auth: AuthContext, id: string): Promise<TokenView> {
    const token = await this.store.tokens.get(auth.account.id, id);
    if (!token || token.kind !== 'api' || (ownTokensOnly(auth) && token.userId !== auth.user.id))
      throw notFound('Token');
    if (
      auth.user.role !== 'owner' &&
      token.userId !== auth.user.id &&
      (await this.store.users.get(token.userId))?.role === 'owner'
    ) {
      throw new AppError('TOKEN_SCOPE_NOT_ALLOWED', "Only the owner can revoke the owner's tokens", {
        hint: 'Ask the account owner to revoke it',
      });
    }
    return this.revokeAsOperator(auth.account.id, id);
  }

  /** The operator's revoke (CLI): any token of the account. */
  async revokeAsOperator(accountId: string, id: string): Promise<TokenView> {
    const token = await this.store.tokens.get(accountId, id);
    if (!token) throw notFound('Token');
    const at = nowIso();
    await this.store.tokens.revoke(id, at);
    return tokenView({ ...token, revokedAt: token.revokedAt ?? at });
  }

  private scopesOf(input: NewToken): Scope[] {
    if (input.access !== 'custom') {
      if (input.scopes?.length) {
        throw validationFailed([{ path: ['scopes'], message: 'is only accepted with access "custom"' }]);
      }
      return scopesForAccess(input.access);
    }
    const unknown = (input.scopes ?? []).filter((s) => !isScope(s));
    if (unknown.length) {
      throw validationFailed(unknown.map((s) => ({ path: ['scopes'], message: `unknown scope "${s}"` })));
    }
    const scopes = scopesForAccess('custom', input.scopes ?? []);
    if (!scopes.length)
      throw validationFailed([{ path: ['scopes'], message: 'custom access needs at least one scope' }]);
    return scopes;
  }

  private async checkChatbots(store: Store, accountId: string, ids: string[] | null): Promise<string[] | null> {
    if (ids === null) return null;
    const unique = [...new Set(ids)];
    const found = await Promise.all(unique.map((id) => store.chatbots.get(id)));
    const missing = unique.filter((id, i) => !found[i] || found[i]!.accountId !== accountId);
    if (missing.length) {
      throw validationFailed(
        missing.map((id) => ({ path: ['chatbotIds'], message: `no chatbot "${id}" in this account` })),
      );
    }
    return unique;
  }
}
