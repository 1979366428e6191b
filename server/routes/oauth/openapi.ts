/**
 * How the v2 OpenAPI document describes the OAuth endpoints. They read forms by hand (a parameter
 * sent twice is invalid_request, RFC 6749 3.1), so these schemas only document: fastify neither
 * validates nor serialises by them.
 */
import Type, { type TSchema } from 'typebox';
import { AUTHORIZATION_CODE_GRANT } from '../../domain/oauth/authorization-code.service.js';
import { DEVICE_CODE_GRANT } from '../../domain/oauth/device-flow.service.js';
import type { OpenApiParts } from '../../http/openapi-parts.js';

const OAuthErrorBody = Type.Object(
  {
    error: Type.Enum(
      [
        'invalid_request',
        'invalid_client',
        'invalid_grant',
        'invalid_scope',
        'unsupported_grant_type',
        'authorization_pending',
        'slow_down',
        'access_denied',
        'expired_token',
        'invalid_redirect_uri',
        'invalid_client_metadata',
        'invalid_target',
        'temporarily_unavailable',
        'server_error',
      ],
      { description: 'RFC 6749 5.2, RFC 8628 3.5, RFC 7591 3.2.2 and RFC 8707' },
    ),
    error_description: Type.String({ description: 'Readable text; may change; never match on it' }),
  },
  { title: 'OAuthError' },
);

const json = (schema: TSchema) => ({ content: { 'application/json': { schema } } });
const RETRY_AFTER = {
  'Retry-After': { type: 'integer', description: 'slow_down and 429: seconds to wait before the next request' },
};

/** A form endpoint's documented body (form-encoded or JSON) and answers. */
function form(fields: TSchema, answer: TSchema, answerText: string): OpenApiParts {
  return {
    body: {
      content: { 'application/x-www-form-urlencoded': { schema: fields }, 'application/json': { schema: fields } },
    },
    response: {
      200: { description: answerText, ...json(answer) },
      400: {
        description: 'An OAuth error; while polling, authorization_pending and slow_down mean "ask again later"',
        headers: RETRY_AFTER,
        ...json(OAuthErrorBody),
      },
      401: { description: 'invalid_client: an unknown client_id', ...json(OAuthErrorBody) },
      429: {
        description: 'slow_down: too many requests from this address',
        headers: RETRY_AFTER,
        ...json(OAuthErrorBody),
      },
    },
  };
}

const ClientId = Type.String({
  description:
    'The public client id (no client secret): `parley-cli` for the device grant, the registered id for the code grant',
});

export const DEVICE_AUTHORIZATION = form(
  Type.Object({
    client_id: ClientId,
    scope: Type.Optional(
      Type.String({
        description:
          "Space-separated scopes (default: the standard set); the token never exceeds the approving user's role",
      }),
    ),
    chatbots: Type.Optional(Type.String({ description: 'Space-separated chatbot ids the token is restricted to' })),
  }),
  Type.Object(
    {
      device_code: Type.String({ description: 'For the client only: poll /oauth/token with it' }),
      user_code: Type.String({ description: 'For the user to type at verification_uri' }),
      verification_uri: Type.String({ format: 'uri' }),
      verification_uri_complete: Type.String({
        format: 'uri',
        description: 'verification_uri with the code filled in (for a QR code or a link)',
      }),
      expires_in: Type.Integer({ description: 'Seconds the codes stay valid' }),
      interval: Type.Integer({ description: 'Seconds to wait between polls' }),
    },
    { title: 'DeviceAuthorization' },
  ),
  'The device code and the user code (RFC 8628 3.2)',
);

export const TOKEN = form(
  Type.Object({
    grant_type: Type.String({ enum: [AUTHORIZATION_CODE_GRANT, DEVICE_CODE_GRANT] }),
    client_id: ClientId,
    device_code: Type.Optional(Type.String({ description: 'Device grant: the device code' })),
    code: Type.Optional(Type.String({ description: 'Code grant: the code the redirect carried (single use, 60 s)' })),
    redirect_uri: Type.Optional(
      Type.String({ description: 'Code grant: the redirect_uri of the authorization request, exactly' }),
    ),
    code_verifier: Type.Optional(
      Type.String({ description: 'Code grant: the PKCE verifier whose S256 hash was the code_challenge (RFC 7636)' }),
    ),
    resource: Type.Optional(
      Type.String({
        description:
          'RFC 8707: {site_url}/mcp or {site_url}/api/v2 (or {site_url}); the token works on both, since each MCP tool is a v2 route',
      }),
    ),
  }),
  Type.Object(
    {
      access_token: Type.String({ description: 'A bearer token for the API, like one made with POST /tokens' }),
      token_type: Type.Literal('Bearer'),
      scope: Type.String({ description: 'The effective scopes, space-separated' }),
      expires_in: Type.Optional(
        Type.Integer({
          description: 'Seconds the token is valid; absent: it does not expire (revoke it at /oauth/revoke)',
        }),
      ),
    },
    { title: 'OAuthToken' },
  ),
  'The access token: for a code, at once; for a device code, once the user approved (RFC 8628 3.5)',
);

export const REVOKE = form(
  Type.Object({ token: Type.String(), client_id: ClientId }),
  Type.Object({}),
  'Revoked, or the token was not valid anyway (RFC 7009 2.2)',
);

const ClientMetadata = Type.Object(
  {
    redirect_uris: Type.Array(Type.String({ maxLength: 2000 }), {
      minItems: 1,
      maxItems: 10,
      description:
        'https URLs, or http on 127.0.0.1, [::1] or localhost (any port at authorization time, RFC 8252 7.3); no fragment',
    }),
    client_name: Type.Optional(
      Type.String({ maxLength: 80, description: 'Shown on the authorization page (as the client calls itself)' }),
    ),
    token_endpoint_auth_method: Type.Optional(Type.Literal('none', { description: 'Public clients only' })),
    grant_types: Type.Optional(
      Type.Array(Type.String(), {
        description: '["authorization_code"]; "refresh_token" is accepted but not granted (tokens do not expire)',
      }),
    ),
    response_types: Type.Optional(Type.Array(Type.Literal('code'))),
    client_uri: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { title: 'OAuthClientMetadata', description: 'Other RFC 7591 fields are ignored' },
);

/** RFC 7591: JSON in, JSON out. */
export const REGISTER: OpenApiParts = {
  body: { content: { 'application/json': { schema: ClientMetadata } } },
  response: {
    201: {
      description: 'Registered: the client id to use at /oauth/authorize and /oauth/token',
      ...json(
        Type.Object(
          {
            client_id: Type.String(),
            client_id_issued_at: Type.Integer(),
            client_name: Type.String(),
            redirect_uris: Type.Array(Type.String()),
            grant_types: Type.Array(Type.Literal(AUTHORIZATION_CODE_GRANT)),
            response_types: Type.Array(Type.Literal('code')),
            token_endpoint_auth_method: Type.Literal('none'),
            client_uri: Type.Optional(Type.String()),
          },
          { title: 'OAuthClient' },
        ),
      ),
    },
    400: { description: 'invalid_redirect_uri or invalid_client_metadata (RFC 7591 3.2.2)', ...json(OAuthErrorBody) },
    429: { description: 'Too many registrations from this address', headers: RETRY_AFTER, ...json(OAuthErrorBody) },
    503: { description: 'temporarily_unavailable: the table of clients is full', ...json(OAuthErrorBody) },
  },
};
