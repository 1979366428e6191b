/**
 * The authorization code grant with PKCE (RFC 6749 4.1, RFC 7636) for clients that register
 * themselves (RFC 7591): what MCP clients do on their own when /mcp answers 401. The user signs
 * in and allows on the authorization page; the client trades the code for an ordinary scoped API
 * token, as the device flow's. See README.md for the rules.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isScope, STANDARD_SCOPES, type Scope } from '../../../shared/scopes.js';
import { effectiveScopes, generateSecret, hashSecret } from '../auth.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Store, UserRecord } from '../ports.js';
import type { TokensService } from '../tokens.service.js';
import { type IssuedToken, issueGrantToken, OAuthError } from './grants.js';
import type { OAuthClientRecord } from './ports.js';
import { MAX_REDIRECT_URI_LENGTH, redirectMatches, redirectUriProblem } from './redirect-uris.js';

export const AUTHORIZATION_CODE_GRANT = 'authorization_code';
/** A code lives a minute: the client trades it as soon as the browser comes back. */
export const CODE_TTL_SECONDS = 60;
const MAX_REDIRECT_URIS = 10;
const MAX_CLIENT_NAME = 80;
/** Registered clients kept at once; one that never got a token is forgotten after a day. */
export const MAX_CLIENTS = 10_000;
const UNUSED_CLIENT_MS = 24 * 3600_000;
const MAX_STATE = 1000;
const words = (v: string | undefined) => (v ?? '').split(/\s+/).filter(Boolean);

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  client_uri?: string;
}

/** The parameters of an authorization request, as read from the query or the consent form. */
export type AuthorizationParams = Partial<
  Record<
    | 'client_id'
    | 'redirect_uri'
    | 'response_type'
    | 'scope'
    | 'state'
    | 'code_challenge'
    | 'code_challenge_method'
    | 'resource',
    string
  >
>;

export interface AuthorizationRequest {
  client: OAuthClientRecord;
  redirectUri: string;
  state: string | undefined;
  /** Asked for (the standard set when none was). */
  scopes: Scope[];
  codeChallenge: string;
  resource: string | null;
}

/**
 * A checked authorization request, or why not: `redirect` set when the client and redirect URI
 * are trusted, so the error goes back to the client; otherwise it is shown to the user only.
 */
export type CheckedRequest =
  { ok: true; request: AuthorizationRequest } | { ok: false; description: string; redirect?: string };

export class AuthorizationCodeService {
  private readonly now: () => number;
  /** Resource indicators (RFC 8707) a token may be asked for: the API and the MCP endpoint. */
  readonly resources: readonly string[];

  constructor(
    private readonly store: Store,
    private readonly tokens: TokensService,
    private readonly options: { issuer: string; now?: () => number },
  ) {
    this.now = options.now ?? Date.now;
    const site = options.issuer;
    this.resources = [site, `${site}/`, `${site}/api/v2`, `${site}/mcp`];
  }

  private iso(offsetMs = 0) {
    return new Date(this.now() + offsetMs).toISOString();
  }

  /** RFC 7591: registers a public client; unknown metadata is ignored (3.2.1), the rest checked. */
  async register(body: unknown): Promise<RegisteredClient> {
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object of client metadata');
    const m = body as Record<string, unknown>;
    const uris = m.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || uris.some((u) => typeof u !== 'string'))
      throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list at least one redirect URI');
    if (uris.length > MAX_REDIRECT_URIS)
      throw new OAuthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect URIs`);
    for (const uri of uris as string[]) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new OAuthError('invalid_redirect_uri', `${JSON.stringify(uri.slice(0, 100))} ${problem}`);
    }
    const method = m.token_endpoint_auth_method;
    if (method !== undefined && method !== 'none')
      throw new OAuthError(
        'invalid_client_metadata',
        'Only public clients register here: token_endpoint_auth_method must be "none" (PKCE protects the code)',
      );
    const grants = m.grant_types ?? [AUTHORIZATION_CODE_GRANT];
    // refresh_token is tolerated (many clients ask for it) but not granted: the tokens do not expire.
    if (
      !Array.isArray(grants) ||
      !grants.includes(AUTHORIZATION_CODE_GRANT) ||
      grants.some((g) => g !== AUTHORIZATION_CODE_GRANT && g !== 'refresh_token')
    )
      throw new OAuthError('invalid_client_metadata', 'grant_types must be ["authorization_code"]');
    const responses = m.response_types ?? ['code'];
    if (!Array.isArray(responses) || responses.some((r) => r !== 'code'))
      throw new OAuthError('invalid_client_metadata', 'response_types must be ["code"]');
    const name = m.client_name ?? 'Unnamed app';
    if (typeof name !== 'string' || !name.trim() || name.length > MAX_CLIENT_NAME || /[\u0000-\u001f\u007f]/.test(name))
      throw new OAuthError(
        'invalid_client_metadata',
        `client_name must be text of at most ${MAX_CLIENT_NAME} characters, without control characters`,
      );
    const clientUri = m.client_uri;
    if (
      clientUri !== undefined &&
      (typeof clientUri !== 'string' || clientUri.length > MAX_REDIRECT_URI_LENGTH || !/^https?:\/\//.test(clientUri))
    )
      throw new OAuthError('invalid_client_metadata', 'client_uri must be an http(s) URL');

    await this.store.oauth.clients.purgeUnused(this.iso(-UNUSED_CLIENT_MS));
    if ((await this.store.oauth.clients.count()) >= MAX_CLIENTS)
      throw new OAuthError(
        'temporarily_unavailable',
        'Too many registered clients: try again tomorrow, or ask the operator',
        503,
      );
    const record: OAuthClientRecord = {
      clientId: `mcp_${newId()}`,
      clientName: name.trim(),
      redirectUris: [...new Set(uris as string[])],
      clientUri: (clientUri as string | undefined) ?? null,
      createdAt: this.iso(),
      lastUsedAt: null,
    };
    await this.store.oauth.clients.insert(record);
    return {
      client_id: record.clientId,
      client_id_issued_at: Math.floor(Date.parse(record.createdAt) / 1000),
      client_name: record.clientName,
      redirect_uris: record.redirectUris,
      grant_types: [AUTHORIZATION_CODE_GRANT],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(record.clientUri ? { client_uri: record.clientUri } : {}),
    };
  }

  /** A registered client, or null (the first-party CLI is not one: it uses the device grant). */
  async client(clientId: string | undefined): Promise<OAuthClientRecord | null> {
    if (!clientId || clientId.length > 100) return null;
    return this.store.oauth.clients.get(clientId);
  }

  /**
   * RFC 6749 4.1.1 with PKCE: checks an authorization request. Until the client and its
   * redirect URI are known, errors are only for the user's eyes (never an open redirect).
   */
  async check(p: AuthorizationParams): Promise<CheckedRequest> {
    const client = await this.client(p.client_id);
    if (!client) return { ok: false, description: 'The client_id is not a registered client' };
    const redirectUri = p.redirect_uri;
    if (!redirectUri) return { ok: false, description: 'The redirect_uri is missing' };
    if (!client.redirectUris.some((r) => redirectMatches(r, redirectUri)))
      return { ok: false, description: 'The redirect_uri is not one this client registered' };
    const state = p.state;
    const back = (error: string, description: string) => ({
      ok: false as const,
      description,
      redirect: this.redirectWith(redirectUri, { error, error_description: description, state }),
    });
    if (state !== undefined && state.length > MAX_STATE)
      return back('invalid_request', `state is longer than ${MAX_STATE} characters`);
    if (p.response_type !== 'code') return back('unsupported_response_type', 'Only response_type=code is supported');
    if (p.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(p.code_challenge ?? ''))
      return back('invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256');
    const asked = words(p.scope);
    const unknown = asked.filter((s) => !isScope(s));
    if (unknown.length) return back('invalid_scope', `Unknown scope ${JSON.stringify(unknown[0].slice(0, 64))}`);
    if (p.resource !== undefined && !this.resources.includes(p.resource))
      return back('invalid_target', `resource must be one of ${this.resources.join(', ')}`);
    return {
      ok: true,
      request: {
        client,
        redirectUri,
        state,
        scopes: asked.length ? ([...new Set(asked)] as Scope[]) : [...STANDARD_SCOPES],
        codeChallenge: p.code_challenge!,
        resource: p.resource ?? null,
      },
    };
  }

  /** The scopes `user` can grant of those asked for (their role's), and those withheld. */
  grantable(user: UserRecord, scopes: readonly Scope[]): { granted: Scope[]; withheld: Scope[] } {
    const allowed = effectiveScopes(scopes, user.role);
    return { granted: scopes.filter((s) => allowed.has(s)), withheld: scopes.filter((s) => !allowed.has(s)) };
  }

  /** The user's answer: the redirect back to the client, with a code or with access_denied. */
  async decide(user: UserRecord, request: AuthorizationRequest, allow: boolean): Promise<string> {
    const { redirectUri, state } = request;
    if (!allow)
      return this.redirectWith(redirectUri, {
        error: 'access_denied',
        error_description: 'The user denied the request',
        state,
      });
    const { granted } = this.grantable(user, request.scopes);
    if (!granted.length)
      return this.redirectWith(redirectUri, {
        error: 'invalid_scope',
        error_description: "None of the scopes asked for is allowed by the user's role",
        state,
      });
    await this.store.oauth.authorizationCodes.purge(this.iso(-24 * 3600_000));
    const code = generateSecret();
    await this.store.oauth.authorizationCodes.insert(
      {
        id: newId(),
        clientId: request.client.clientId,
        userId: user.id,
        redirectUri,
        codeChallenge: request.codeChallenge,
        scopes: granted,
        resource: request.resource,
        expiresAt: this.iso(CODE_TTL_SECONDS * 1000),
        createdAt: this.iso(),
        usedAt: null,
        tokenId: null,
      },
      code.hash,
    );
    return this.redirectWith(redirectUri, { code: code.plaintext, state });
  }

  /** The redirect URI with the answer's parameters and `iss` (RFC 9207: which server answered). */
  private redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    url.searchParams.set('iss', this.options.issuer);
    return url.toString();
  }

  /** RFC 6749 4.1.3 with RFC 7636 4.6: trades a code for a token, once. */
  async exchange(input: {
    clientId?: string;
    code?: string;
    redirectUri?: string;
    codeVerifier?: string;
    resource?: string;
  }): Promise<IssuedToken> {
    const client = await this.client(input.clientId);
    if (!client) throw new OAuthError('invalid_client', 'Unknown client_id: register the client first');
    if (!input.code) throw new OAuthError('invalid_request', 'code is required');
    if (!input.codeVerifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(input.codeVerifier))
      throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters (RFC 7636 4.1)');
    if (input.resource !== undefined && !this.resources.includes(input.resource))
      throw new OAuthError('invalid_target', `resource must be one of ${this.resources.join(', ')}`);
    const row = await this.store.oauth.authorizationCodes.byCode(hashSecret(input.code));
    if (!row || row.clientId !== client.clientId) throw new OAuthError('invalid_grant', 'Unknown code');
    if (row.usedAt) {
      // RFC 6749 4.1.2: a code used twice may have been stolen; the token it gave is revoked.
      if (row.tokenId) await this.revokeIssued(row.userId, row.tokenId);
      throw new OAuthError('invalid_grant', 'This code was already used; the token issued for it is revoked');
    }
    if (this.now() >= Date.parse(row.expiresAt))
      throw new OAuthError('invalid_grant', 'This code expired: start the sign-in again');
    if (input.redirectUri !== row.redirectUri)
      throw new OAuthError('invalid_grant', 'redirect_uri is not the one of the authorization request');
    const challenge = createHash('sha256').update(input.codeVerifier, 'ascii').digest('base64url');
    const a = Buffer.from(challenge);
    const b = Buffer.from(row.codeChallenge);
    if (a.length !== b.length || !timingSafeEqual(a, b))
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');

    return issueGrantToken(this.store, this.tokens, 'The code can no longer be honoured', async (s, tokenId) => {
      const at = this.iso();
      if (!(await s.oauth.authorizationCodes.claim(row.id, at, tokenId)))
        throw new OAuthError('invalid_grant', 'This code was already used or expired');
      const user = await s.users.get(row.userId);
      if (!user) throw new OAuthError('invalid_grant', 'The user who allowed it no longer exists');
      await s.oauth.clients.touch(client.clientId, at);
      return {
        user,
        token: { name: `${client.clientName} (OAuth sign-in)`, access: 'custom', scopes: row.scopes, chatbotIds: null },
      };
    });
  }

  private async revokeIssued(userId: string, tokenId: string): Promise<void> {
    const user = await this.store.users.get(userId);
    if (!user) return;
    await this.tokens.revokeAsOperator(user.accountId, tokenId).catch((err: unknown) => {
      // Already deleted: nothing left to revoke.
      if (!(err instanceof AppError)) throw err;
    });
  }
}
