/**
 * Route access declarations and the one hook that enforces them. Every route declares
 * `config.access`: `{ public: true }` or `{ scopes: [...] }` (an empty list: any valid token).
 * Registering a route without a declaration fails at start, so no route is open by accident.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Scope } from '../../shared/scopes.js';
import { type AuthContext, requireScopes } from '../domain/auth.js';
import { AppError } from '../domain/errors.js';
import { requireActive } from '../domain/plans.js';
import type { TokensService } from '../domain/tokens.service.js';

export type Access =
  | { public: true }
  | {
      public?: false;
      scopes: Scope[];
      /** Reachable while the account is inactive (so its owner can see why and fix it). */
      whileInactive?: boolean;
    };

/** One registered route and its declared access, as the access hook saw it at start. */
export interface RouteAccess {
  method: string;
  url: string;
  access: Access;
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
  }
  interface FastifyRequest {
    /** The caller of an authenticated route; reading it on a public route is a programming error. */
    readonly auth: AuthContext;
    /** The caller, or null on a public route (set by the access hook). */
    authContext: AuthContext | null;
    warnings: string[];
  }
}

export function installAccess(app: FastifyInstance, tokens: TokensService, siteUrl: string) {
  const challenge = `Bearer resource_metadata="${siteUrl}/.well-known/oauth-protected-resource/api/v2"`;
  const unauthorized = (code: 'AUTHORIZATION_HEADER_REQUIRED' | 'AUTHORIZATION_HEADER_NOT_VALID' | 'TOKEN_NOT_VALID', message: string, hint: string) =>
    new AppError(code, message, { hint, headers: { 'www-authenticate': challenge } });

  app.decorateRequest('authContext', null);
  app.decorateRequest('auth', {
    getter(this: FastifyRequest) {
      if (!this.authContext) throw new Error(`${this.method} ${this.routeOptions.url} is public but reads request.auth`);
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
      throw new Error(`Route ${[route.method].flat().join(',')} ${route.url} declares no response schema: declare it with endpoint() (server/http/route.ts)`);
    }
    for (const method of [route.method].flat()) routeTable.push({ method, url: route.url, access });
  });

  app.addHook('onRequest', async (request: FastifyRequest, _reply: FastifyReply) => {
    const access = request.routeOptions.config.access;
    if (!access || access.public) return;
    const header = request.headers.authorization;
    if (header === undefined || header === '') {
      throw unauthorized('AUTHORIZATION_HEADER_REQUIRED', 'This route needs an Authorization header', 'Send Authorization: Bearer <API token>');
    }
    // The scheme name is case-insensitive (RFC 9110 11.1); the token is not.
    const match = /^[Bb][Ee][Aa][Rr][Ee][Rr] ([A-Za-z0-9._~+/=-]{1,512})$/.exec(header);
    if (!match) {
      throw unauthorized('AUTHORIZATION_HEADER_NOT_VALID', 'The Authorization header is not "Bearer <token>"', 'Send Authorization: Bearer <API token>, with one space');
    }
    const auth = await tokens.authenticate(match[1]);
    if (!auth) {
      throw unauthorized('TOKEN_NOT_VALID', 'The token is unknown or was revoked', 'Create a new token (CLI `tokens create` or POST /api/v2/tokens)');
    }
    request.authContext = auth;
    requireScopes(auth, access.scopes);
    if (!access.whileInactive) requireActive(auth.account);
  });
}
