/**
 * How the v2 OpenAPI document describes the OAuth endpoints. They read forms by hand (a parameter
 * sent twice is invalid_request, RFC 6749 3.1), so these schemas only document: fastify neither
 * validates nor serialises by them.
 */
import Type, { type TSchema } from 'typebox';
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
        'server_error',
      ],
      { description: 'RFC 6749 5.2 and RFC 8628 3.5' },
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

const ClientId = Type.String({ description: 'The public client id, `parley-cli` (no client secret)' });

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
    grant_type: Type.Literal(DEVICE_CODE_GRANT),
    device_code: Type.String(),
    client_id: ClientId,
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
  'The access token, once the user approved (RFC 8628 3.5)',
);

export const REVOKE = form(
  Type.Object({ token: Type.String(), client_id: ClientId }),
  Type.Object({}),
  'Revoked, or the token was not valid anyway (RFC 7009 2.2)',
);
