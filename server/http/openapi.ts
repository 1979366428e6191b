/**
 * OpenAPI 3.1 generated from the route schemas: endpoint() (route.ts) writes each operation's
 * success and error envelopes; this adds its bearer security with the required scopes (also as
 * `x-required-scopes`), and every error code with its status.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import Type from 'typebox';
import { ERROR_CODES, ERROR_STATUS } from '../../shared/errors.js';
import { SCOPES } from '../../shared/scopes.js';
import type { Access } from './access.js';

export const Meta = Type.Object({
  requestId: Type.String({ description: 'The x-request-id sent (1-64 of A-Z a-z 0-9 _ -) or a generated id' }),
  warnings: Type.Optional(Type.Array(Type.String())),
  nextCursor: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'List endpoints: null on the last page' })),
});

export const ErrorEnvelope = Type.Object(
  {
    ok: Type.Literal(false),
    error: Type.Object({
      code: Type.Enum(ERROR_CODES as unknown as string[], {
        description: ERROR_CODES.map((c) => `${c} (${ERROR_STATUS[c]})`).join(', '),
      }),
      message: Type.String({ description: 'Readable text; may change; never match on it' }),
      hint: Type.Optional(Type.String({ description: 'Suggested next step' })),
      details: Type.Optional(
        Type.Unknown({
          description: 'VALIDATION_FAILED: [{path, message, in}] per failing field. TOKEN_SCOPE_NOT_ALLOWED: {requiredScopes}',
        }),
      ),
    }),
    meta: Meta,
  },
  { $id: 'ErrorEnvelope' },
);

/** The legacy v0/v1 error body (spec 2.4). */
export const LegacyErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String({ description: 'Readable text; may change; never match on it' }),
    data: Type.Null(),
    error: Type.Object({
      code: Type.Enum(ERROR_CODES as unknown as string[], {
        description: ERROR_CODES.map((c) => `${c} (${ERROR_STATUS[c]})`).join(', '),
      }),
      message: Type.String(),
      details: Type.Union([
        Type.Array(Type.Object({
          path: Type.Array(Type.Union([Type.String(), Type.Integer()]), { description: 'The failing field; more than one element when it is nested' }),
          message: Type.String(),
        })),
        Type.Null(),
      ], { description: 'VALIDATION_FAILED: one item per failing field; otherwise null' }),
    }),
  },
  { $id: 'LegacyErrorBody' },
);

const LEGACY_URL = /^\/api\/v[01](?:\/|$)/;
const hidden = (schema: unknown, url: string) => ({ schema: { ...(schema as object), hide: true } as never, url });
/** Each document keeps only its own error body among the shared schemas. */
const dropSchema = (name: string) => ({ openapiObject }: { openapiObject: { components?: { schemas?: Record<string, unknown> } } }) => {
  const schemas = { ...(openapiObject.components?.schemas ?? {}) };
  delete schemas[name];
  return { ...openapiObject, components: { ...openapiObject.components, schemas } };
};

export function swaggerOptions(siteUrl: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: '2.0.0',
        description: [
          'Every response is the envelope `{ok, data | error, meta}`; `ok` is false on every error.',
          'Authenticate with `Authorization: Bearer <token>` (all routes but GET /health and this document).',
          'Each operation lists the scopes it needs in `security` and `x-required-scopes`; a token lacking one gets 403 TOKEN_SCOPE_NOT_ALLOWED with `error.details.requiredScopes`.',
          'Lists are keyset-paginated: pass `meta.nextCursor` as `cursor` until it is null.',
          `Scopes: ${SCOPES.join(', ')}.`,
        ].join('\n\n'),
      },
      servers: [{ url: `${siteUrl}/api/v2` }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'An opaque API token; never check it for a prefix. Made in the dashboard or CLI (`tokens create`), through `POST /tokens`, or by the OAuth 2.0 device authorization grant (RFC 8628; public client id `parley-cli`): ' +
              `POST ${siteUrl}/oauth/device_authorization, approve at ${siteUrl}/device, poll POST ${siteUrl}/oauth/token. ` +
              `Discovery: ${siteUrl}/.well-known/oauth-authorization-server and ${siteUrl}/.well-known/oauth-protected-resource/api/v2, which every 401's WWW-Authenticate names.`,
          },
        },
      },
    },
    hideUntagged: false,
    // Shared schemas keep their $id as the component name (#/components/schemas/ErrorEnvelope),
    // not the default def-N, so clients generate readable type names.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transformObject: dropSchema('LegacyErrorBody') as never,
    transform({ schema, url, route }) {
      if (LEGACY_URL.test(url)) return hidden(schema, url);
      const config = (route.config ?? {}) as { access?: Access };
      const out: Record<string, unknown> = { ...(schema ?? {}) };
      const path = url.replace(/^\/api\/v2/, '') || '/';
      const access = config.access;
      if (access && !access.public && !access.legacyKey) {
        out.security = [{ bearerAuth: access.scopes }];
        out['x-required-scopes'] = access.scopes;
        const scopeText = access.scopes.length ? `Scopes: ${access.scopes.join(', ')}.` : 'Any valid token.';
        out.description = [schema?.description, scopeText].filter(Boolean).join('\n\n');
      } else {
        out.security = [];
      }
      return { schema: out as typeof schema, url: path };
    },
  };
}

/**
 * The legacy document ({site_url}/openapi.yaml): the v0 routes and the v1 links route, from the
 * same route schemas, under the server {site_url}/api. Registered as a second swagger instance
 * (`app.legacySwagger`), it hides every other route.
 */
export function legacySwaggerOptions(siteUrl: string): FastifyDynamicSwaggerOptions {
  return {
    decorator: 'legacySwagger',
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley legacy API (v0, and v1 links)',
        version: '0.0.0',
        description: [
          'The legacy API, kept for existing integrations; new work should use v2 ({site_url}/api/v2, described at /api/v2/openapi.json).',
          'It is a thin mapping onto the same services as v2: a chatbot made here is the same chatbot in v2, with the same rules and limits.',
          'Authenticate with `Authorization: Bearer <legacy API key>` (operator CLI: `legacy-keys create`). The key acts as the account owner and has no scopes; v2 tokens are refused here (401 TOKEN_NOT_VALID). A missing, malformed or unknown key is 401.',
          'Success: `{success: true, message, data}` with the resource itself (or a whole list: no pagination) in `data`. Error: `{success: false, message, data: null, error: {code, message, details}}`; `details` lists failing fields as `{path, message}` (path an array) or is null. The codes are v2\'s.',
          'Deletes need no confirmation. Routes new in v2 (custom responses, documents, sources, file upload, leads, members, tags, analytics, take over, release to AI, replies, account, usage, billing, tokens) answer 404 here.',
        ].join('\n\n'),
      },
      servers: [{ url: `${siteUrl}/api` }],
      components: {
        securitySchemes: {
          legacyKey: { type: 'http', scheme: 'bearer', description: 'A legacy API key: no scopes of its own, it acts as its user with that user\'s dashboard role (what the role cannot do is 403 TOKEN_SCOPE_NOT_ALLOWED)' },
        },
      },
      security: [{ legacyKey: [] }],
    },
    hideUntagged: false,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transformObject: dropSchema('ErrorEnvelope') as never,
    transform({ schema, url }) {
      if (!LEGACY_URL.test(url)) return hidden(schema, url);
      return { schema: { ...(schema ?? {}), security: [{ legacyKey: [] }] } as typeof schema, url: url.replace(/^\/api/, '') };
    },
  };
}
