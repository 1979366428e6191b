/**
 * Route access declarations and the one hook that enforces them. Every route declares
 * `config.access`: `{ public: true }`, `{ scopes: [...] }` (an empty list: any valid token) or,
 * for the legacy v0/v1 API, `{ legacyKey: true }`. Registering a route without a declaration
 * fails at start, so no route is open by accident. A v2 request without an Authorization header
 * may be signed in instead: the session cookie acts as its user (http/session.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { Scope } from '../../shared/scopes.js';
import { type AuthContext, missingScopes, requireScopes } from '../domain/auth.js';
import { AppError } from '../domain/errors.js';
import { requireActive } from '../domain/plans.js';
import type { TokensService } from '../domain/tokens.service.js';
import type { OpenApiParts } from './openapi-parts.js';

export type Access =
  | { public: true }
  | {
      public?: false;
      legacyKey?: false;
      scopes: Scope[];
      /** Reachable while the account is inactive (so its owner can see why and fix it). */
      whileInactive?: boolean;
      /**
       * The protected resource (RFC 9728) the route belongs to, as a path of the site: a 401 names
       * its metadata. Default /api/v2; the MCP endpoint is its own resource, /mcp.
       */
      resource?: string;
    }
  | {
      public?: false;
      /**
       * Legacy v0/v1: a legacy API key (spec 5), which has no scopes and acts as its owner with
       * the owner's role. v2 tokens are refused here, as legacy keys are on v2.
       */
      legacyKey: true;
      /** The scopes of the route's v2 twin: the owner's role must allow them, as on v2. */
      scopes: Scope[];
    };

/** The scopes a route declares (none for public routes; a legacy route's are its v2 twin's). */
export const scopesOf = (access: Access): Scope[] => ('scopes' in access ? access.scopes : []);

/** One registered route and its declared access, as the access hook saw it at start. */
export interface RouteAccess {
  method: string;
  url: string;
  access: Access;
  /** The route's request schemas (params, querystring, body), which the MCP tools reuse. */
  schema?: FastifySchema;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every registered route with its access declaration (tests walk it; see route-scopes.test.ts). */
    routeTable: readonly RouteAccess[];
  }
  interface FastifyContextConfig {
    access?: Access;
    /** Status of a success, when not 200 (set by endpoint()). */
    successStatus?: number;
    /** Not wrapped in the envelope (the OpenAPI document itself, icon files). */
    raw?: boolean;
    /** A legacy v0/v1 route: legacy bodies, with this success message (set by endpoint()). */
    legacy?: { message: string };
    /** Schema parts only the OpenAPI document reads: full responses, a raw route's body (set by endpoint()). */
    openapi?: OpenApiParts;
  }
  interface FastifyRequest {
    /** The caller of an authenticated route; reading it on a public route is a programming error. */
    readonly auth: AuthContext;
    /** The caller, or null on a public route (set by the access hook). */
    authContext: AuthContext | null;
    warnings: string[];
  }
}

/** Resolves the session cookie of a request to its signed-in caller (null: no live session). */
export type SessionAuth = (request: FastifyRequest) => Promise<AuthContext | null> | null;

export function installAccess(app: FastifyInstance, tokens: TokensService, siteUrl: string, session: SessionAuth) {
  const challenge = (resource = '/api/v2') =>
    `Bearer resource_metadata="${siteUrl}/.well-known/oauth-protected-resource${resource}"`;
  // Legacy keys are not OAuth-issued: the challenge names the realm only.
  const legacyChallenge = 'Bearer realm="Parley legacy API (v0/v1)"';
  const unauthorized = (
    code: 'AUTHORIZATION_HEADER_REQUIRED' | 'AUTHORIZATION_HEADER_NOT_VALID' | 'TOKEN_NOT_VALID',
    message: string,
    hint: string,
    legacy = false,
    resource?: string,
  ) =>
    new AppError(code, message, {
      hint,
      headers: { 'www-authenticate': legacy ? legacyChallenge : challenge(resource) },
    });

  app.decorateRequest('authContext', null);
  app.decorateRequest('auth', {
    getter(this: FastifyRequest) {
      if (!this.authContext)
        throw new Error(`${this.method} ${this.routeOptions.url} is public but reads request.auth`);
      return this.authContext;
    },
  });
  app.decorateRequest('warnings', {
    getter() {
      return ((this as unknown as { _warnings?: string[] })._warnings ??= []);
    },
  });

  const routeTable: RouteAccess[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (!access) {
      throw new Error(`Route ${[route.method].flat().join(',')} ${route.url} declares no access (config.access)`);
    }
    if (!route.config?.raw && !route.schema?.response) {
      throw new Error(
        `Route ${[route.method].flat().join(',')} ${route.url} declares no response schema: declare it with endpoint() (server/http/route.ts)`,
      );
    }
    for (const method of [route.method].flat())
      routeTable.push({ method, url: route.url, access, schema: route.schema });
  });

  app.addHook('onRequest', async (request: FastifyRequest, _reply: FastifyReply) => {
    const access = request.routeOptions.config.access;
    if (!access || access.public) return;
    const legacy = access.legacyKey === true;
    const resource = 'resource' in access ? access.resource : undefined;
    const credential = legacy ? 'legacy API key' : 'API token';
    const header = request.headers.authorization;
    if ((header === undefined || header === '') && !legacy && request.routeOptions.url?.startsWith('/api/v2/')) {
      // The console: a signed-in session acts as its user on the v2 API (no Authorization header sent).
      const signedIn = await session(request);
      if (signedIn) {
        request.authContext = signedIn;
        requireScopes(signedIn, access.scopes);
        if (!access.whileInactive) requireActive(signedIn.account);
        return;
      }
    }
    if (header === undefined || header === '') {
      throw unauthorized(
        'AUTHORIZATION_HEADER_REQUIRED',
        'This route needs an Authorization header',
        `Send Authorization: Bearer <${credential}>`,
        legacy,
        resource,
      );
    }
    // The scheme name is case-insensitive (RFC 9110 11.1); the token is not.
    const match = /^[Bb][Ee][Aa][Rr][Ee][Rr] ([A-Za-z0-9._~+/=-]{1,512})$/.exec(header);
    if (!match) {
      throw unauthorized(
        'AUTHORIZATION_HEADER_NOT_VALID',
        'The Authorization header is not "Bearer <token>"',
        `Send Authorization: Bearer <${credential}>, with one space`,
        legacy,
        resource,
      );
    }
    const auth = await tokens.authenticate(match[1], legacy ? 'legacy' : 'api');
    if (!auth) {
      throw legacy
        ? unauthorized(
            'TOKEN_NOT_VALID',
            'The key is not a legacy API key of this server, or was revoked',
            'v0 and v1 take a legacy API key (CLI `legacy-keys create`); v2 tokens work on /api/v2',
            true,
          )
        : unauthorized(
            'TOKEN_NOT_VALID',
            'The token is unknown or was revoked',
            'Create a new token (CLI `tokens create` or POST /api/v2/tokens)',
            false,
            resource,
          );
    }
    request.authContext = auth;
    if (legacy) {
      // A legacy key holds every scope: what limits it is its owner's role.
      const missing = missingScopes(auth, access.scopes);
      if (missing.length) {
        throw new AppError(
          'TOKEN_SCOPE_NOT_ALLOWED',
          `The key's user has the role ${auth.user.role}, which does not allow ${missing.join(', ')}`,
          {
            details: { requiredScopes: access.scopes, missingScopes: missing },
            hint: 'Ask an owner to raise your role, or use the key of a user whose role allows it',
          },
        );
      }
      return requireActive(auth.account);
    }
    requireScopes(auth, access.scopes);
    if (!access.whileInactive) requireActive(auth.account);
  });
}
