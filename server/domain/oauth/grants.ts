/**
 * What the device flow and the authorization code grant share: the error their endpoints answer
 * with, and the one way a grant becomes an API token.
 */
import type { Scope } from '../../../shared/scopes.js';
import { effectiveScopes } from '../auth.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Store, UserRecord } from '../ports.js';
import type { NewToken, TokensService } from '../tokens.service.js';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  // The authorization code grant (RFC 6749 4.1.2.1), registration (RFC 7591 3.2.2), resource indicators (RFC 8707).
  | 'unsupported_response_type'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_target'
  | 'temporarily_unavailable';

/** An error of the OAuth endpoints, answered as RFC 6749 5.2 `{error, error_description}`. */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 | 503 = error === 'invalid_client' ? 401 : 400,
    /** Seconds until the request can succeed, sent as Retry-After. */
    readonly retryAfter?: number,
  ) {
    super(description);
  }
}

export interface IssuedToken {
  accessToken: string;
  tokenId: string;
  scopes: Scope[];
}

/**
 * Marks a grant used and mints its token in one transaction, so exactly one caller gets a token:
 * `claim` marks the grant (an OAuthError when it cannot) and says whose token it is and what it
 * is. A grant that can no longer be honoured as given (e.g. a chatbot deleted since, an AppError
 * of the token service) is `invalid_grant`, worded `${refused}: ${reason}`.
 */
export async function issueGrantToken(
  store: Store,
  tokens: TokensService,
  refused: string,
  claim: (s: Store, tokenId: string) => Promise<{ user: UserRecord; token: NewToken }>,
): Promise<IssuedToken> {
  try {
    return await store.transaction(async (s) => {
      const tokenId = newId();
      const { user, token } = await claim(s, tokenId);
      const created = await tokens.create(user, token, undefined, { store: s, id: tokenId });
      // What the token can do, as /me reports it: the scopes the member's role withholds are not granted.
      return {
        accessToken: created.token,
        tokenId: created.record.id,
        scopes: [...effectiveScopes(created.record.scopes, user.role)],
      };
    });
  } catch (err) {
    if (err instanceof AppError) throw new OAuthError('invalid_grant', `${refused}: ${err.message}`);
    throw err;
  }
}
