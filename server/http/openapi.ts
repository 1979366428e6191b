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
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An opaque API token; never check it for a prefix' },
        },
      },
    },
    hideUntagged: false,
    // Shared schemas keep their $id as the component name (#/components/schemas/ErrorEnvelope),
    // not the default def-N, so clients generate readable type names.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform({ schema, url, route }) {
      const config = (route.config ?? {}) as { access?: Access };
      const out: Record<string, unknown> = { ...(schema ?? {}) };
      const path = url.replace(/^\/api\/v2/, '') || '/';
      const access = config.access;
      if (access && !access.public) {
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
