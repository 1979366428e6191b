/**
 * OAuth 2.0 at {auth_url} = {site_url}: the device authorization and token endpoints (RFC 8628),
 * the authorization code grant with PKCE for self-registered clients (RFC 7591 registration here,
 * the authorization page in authorize-page.ts), token revocation (RFC 7009), the discovery
 * documents (RFC 8414, RFC 9728) and the verification page (device-page.ts). These speak OAuth, not the v2 envelope: form-encoded requests (JSON
 * too), `{error, error_description}` errors (RFC 6749 5.2).
 */
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SCOPES } from '../../../shared/scopes.js';
import { AppError } from '../../domain/errors.js';
import { AUTHORIZATION_CODE_GRANT } from '../../domain/oauth/authorization-code.service.js';
import { DEVICE_CODE_GRANT } from '../../domain/oauth/device-flow.service.js';
import { OAuthError } from '../../domain/oauth/grants.js';
import { endpoint } from '../../http/route.js';
import { authorizePage } from './authorize-page.js';
import { devicePage } from './device-page.js';
import { DEVICE_AUTHORIZATION, REGISTER, REVOKE, TOKEN } from './openapi.js';
import { LOCALES } from './i18n/locales.js';

const PUBLIC = { public: true } as const;
/** The tag of these routes in the v2 OpenAPI document (openapi.ts says what they read and answer). */
const tags = ['oauth'];
/** Forms of a few fields: anything larger is not a sign-in or an OAuth request. */
const FORM_LIMIT = 16 * 1024;

/** One string parameter; a parameter sent twice is invalid (RFC 6749 3.1). */
function param(request: FastifyRequest, name: string): string | undefined {
  const body = request.body;
  if (!body || typeof body !== 'object') return undefined;
  const value = (body as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must be given once, as text`);
  return value;
}

/** The discovery documents (also used by the tests that check their fields). */
export function discovery(siteUrl: string) {
  const authorizationServer = {
    issuer: siteUrl,
    authorization_endpoint: `${siteUrl}/oauth/authorize`,
    device_authorization_endpoint: `${siteUrl}/oauth/device_authorization`,
    token_endpoint: `${siteUrl}/oauth/token`,
    registration_endpoint: `${siteUrl}/oauth/register`,
    revocation_endpoint: `${siteUrl}/oauth/revoke`,
    grant_types_supported: [AUTHORIZATION_CODE_GRANT, DEVICE_CODE_GRANT],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    code_challenge_methods_supported: ['S256'],
    // RFC 9207: the redirect names the issuer, so a client talking to several servers can tell them apart.
    authorization_response_iss_parameter_supported: true,
    // Public clients only: PKCE, not a secret, protects the code.
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SCOPES],
    service_documentation: `${siteUrl}/api/v2/openapi.json`,
    ui_locales_supported: [...LOCALES],
  };
  const resource = (path: string, name = 'Parley API', documentation = `${siteUrl}/api/v2/openapi.json`) => ({
    resource: `${siteUrl}${path}`,
    authorization_servers: [siteUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: name,
    resource_documentation: documentation,
  });
  return {
    authorizationServer,
    protectedResource: resource(''),
    protectedResourceV2: resource('/api/v2'),
    // MCP clients check that the metadata names the very URL they connect to (RFC 9728 3.3).
    protectedResourceMcp: resource('/mcp', 'Parley MCP server', `${siteUrl}/#integrations`),
  };
}

export async function oauthRoutes(app: FastifyInstance) {
  const flow = app.services.deviceFlow;
  const codes = app.services.authorizationCodes;
  const siteUrl = app.config.siteUrl;
  const docs = discovery(siteUrl);

  // Discovery: public, cacheable, readable from any origin (browser-based clients discover too).
  const wellKnown = (url: string, doc: object, summary: string) =>
    app.get(url, endpoint({ access: PUBLIC, raw: true, hide: true, summary }), async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=3600')
        .header('access-control-allow-origin', '*')
        .type('application/json')
        .send(JSON.stringify(doc)),
    );
  wellKnown(
    '/.well-known/oauth-authorization-server',
    docs.authorizationServer,
    'OAuth authorization server metadata (RFC 8414)',
  );
  wellKnown('/.well-known/oauth-protected-resource', docs.protectedResource, 'Protected resource metadata (RFC 9728)');
  wellKnown(
    '/.well-known/oauth-protected-resource/api/v2',
    docs.protectedResourceV2,
    'Protected resource metadata of /api/v2 (RFC 9728)',
  );
  wellKnown(
    '/.well-known/oauth-protected-resource/mcp',
    docs.protectedResourceMcp,
    'Protected resource metadata of the MCP endpoint /mcp (RFC 9728)',
  );

  await app.register(async (oauth) => {
    await oauth.register(formbody, { bodyLimit: FORM_LIMIT });
    await oauth.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_request, context) =>
        Object.assign(new OAuthError('slow_down', `Too many requests: at most ${context.max} per ${context.after}`), {
          statusCode: 429,
          retryAfter: Math.ceil(context.ttl / 1000),
        }),
    });
    oauth.setErrorHandler(
      (err: FastifyError & { retryAfter?: number }, request: FastifyRequest, reply: FastifyReply) => {
        const noStore = () => reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
        if (err instanceof OAuthError) {
          // On slow_down too: clients such as openid-client wait for it instead of guessing.
          if (err.statusCode === 429 || err.retryAfter !== undefined)
            reply.header('retry-after', String(err.retryAfter ?? 60));
          return noStore()
            .code(err.statusCode === 429 ? 429 : err.status)
            .send({ error: err.error, error_description: err.description });
        }
        const status = err instanceof AppError ? err.status : (err.statusCode ?? 500);
        if (status < 500)
          return noStore()
            .code(status === 413 || status === 415 ? status : 400)
            .send({ error: 'invalid_request', error_description: err.message });
        request.log.error({ err, requestId: request.id }, 'unexpected failure');
        return noStore()
          .code(500)
          .send({
            error: 'server_error',
            error_description: `Something went wrong on our side (request ${request.id})`,
          });
      },
    );

    const ok = (reply: FastifyReply, body: object) =>
      reply
        .header('cache-control', 'no-store')
        .header('pragma', 'no-cache')
        .type('application/json')
        .send(JSON.stringify(body));

    oauth.post(
      '/oauth/device_authorization',
      endpoint({
        access: PUBLIC,
        raw: true,
        tags,
        operationId: 'startDeviceAuthorization',
        summary: 'Start the device authorization grant: a device code and a user code (RFC 8628)',
        documented: DEVICE_AUTHORIZATION,
        config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
      }),
      async (request, reply) => {
        const started = await flow.authorize({
          clientId: param(request, 'client_id'),
          scope: param(request, 'scope'),
          chatbots: param(request, 'chatbots'),
        });
        const compact = started.userCode.replace('-', '');
        return ok(reply, {
          device_code: started.deviceCode,
          user_code: started.userCode,
          verification_uri: `${siteUrl}/device`,
          verification_uri_complete: `${siteUrl}/device?user_code=${compact}`,
          expires_in: started.expiresIn,
          interval: started.interval,
        });
      },
    );

    oauth.post(
      '/oauth/token',
      endpoint({
        access: PUBLIC,
        raw: true,
        tags,
        operationId: 'requestToken',
        summary:
          'Trade an authorization code (RFC 6749 4.1.3, PKCE) or poll with a device code (RFC 8628 3.4) for an access token',
        documented: TOKEN,
        config: { rateLimit: { max: 120, timeWindow: '1 minute' } },
      }),
      async (request, reply) => {
        const grant = param(request, 'grant_type');
        if (!grant) throw new OAuthError('invalid_request', 'grant_type is required');
        let issued;
        if (grant === DEVICE_CODE_GRANT)
          issued = await flow.poll({
            clientId: param(request, 'client_id'),
            deviceCode: param(request, 'device_code'),
          });
        else if (grant === AUTHORIZATION_CODE_GRANT)
          issued = await codes.exchange({
            clientId: param(request, 'client_id'),
            code: param(request, 'code'),
            redirectUri: param(request, 'redirect_uri'),
            codeVerifier: param(request, 'code_verifier'),
            resource: param(request, 'resource'),
          });
        else
          throw new OAuthError(
            'unsupported_grant_type',
            `Supported: ${AUTHORIZATION_CODE_GRANT} and ${DEVICE_CODE_GRANT} (the tokens do not expire, so there is no refresh_token)`,
          );
        return ok(reply, { access_token: issued.accessToken, token_type: 'Bearer', scope: issued.scopes.join(' ') });
      },
    );

    oauth.post(
      '/oauth/register',
      {
        ...endpoint({
          access: PUBLIC,
          raw: true,
          tags,
          operationId: 'registerOAuthClient',
          summary: 'Register a public client for the authorization code grant (RFC 7591)',
          documented: REGISTER,
          status: 201,
          // A client registers once per install; an address registering more is filling the table.
          config: { rateLimit: { max: 20, timeWindow: '1 hour' } },
        }),
        bodyLimit: FORM_LIMIT,
      },
      async (request, reply) => {
        const client = await codes.register(request.body);
        return ok(reply.code(201), client);
      },
    );

    oauth.post(
      '/oauth/revoke',
      endpoint({
        access: PUBLIC,
        raw: true,
        tags,
        operationId: 'revokeOAuthToken',
        summary: 'Revoke a token the device grant or an authorization code issued (RFC 7009)',
        documented: REVOKE,
        config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
      }),
      async (request, reply) => {
        const clientId = param(request, 'client_id');
        // A registered client revokes what it was given, as the command line does.
        const registered = (await codes.client(clientId)) !== null;
        await flow.revoke({ clientId, token: param(request, 'token') }, registered);
        return ok(reply, {});
      },
    );
  });

  await app.register(devicePage);
  await app.register(authorizePage);
}
