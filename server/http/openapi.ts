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
import { finishDocument } from './openapi-document.js';

export const Meta = Type.Object(
  {
    requestId: Type.String({ description: 'The x-request-id sent (1-64 of A-Z a-z 0-9 _ -) or a generated id' }),
    warnings: Type.Optional(Type.Array(Type.String())),
    nextCursor: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: 'List endpoints: null on the last page' }),
    ),
  },
  { title: 'Meta' },
);

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
          description:
            'VALIDATION_FAILED: [{path, message, in}] per failing field. TOKEN_SCOPE_NOT_ALLOWED: {requiredScopes}',
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
      details: Type.Union(
        [
          Type.Array(
            Type.Object({
              path: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
                description: 'The failing field; more than one element when it is nested',
              }),
              message: Type.String(),
            }),
          ),
          Type.Null(),
        ],
        { description: 'VALIDATION_FAILED: one item per failing field; otherwise null' },
      ),
    }),
  },
  { $id: 'LegacyErrorBody' },
);

const LEGACY_URL = /^\/api\/v[01](?:\/|$)/;
const V2_URL = /^\/api\/v2(?:\/|$)/;
const hidden = (schema: unknown, url: string) => ({ schema: { ...(schema as object), hide: true } as never, url });
/** Each document keeps only its own error body among the shared schemas. */
const dropSchema = (openapiObject: Record<string, unknown>, name: string) => {
  const components = (openapiObject.components ?? {}) as { schemas?: Record<string, unknown> };
  const schemas = { ...(components.schemas ?? {}) };
  delete schemas[name];
  return { ...openapiObject, components: { ...components, schemas } };
};
/** Shared schemas keep their $id as the component name (#/components/schemas/ErrorEnvelope), not def-N. */
const refResolver = {
  buildLocalReference: (json: Record<string, unknown>, _baseUri: unknown, _fragment: unknown, i: number) =>
    typeof json.$id === 'string' ? json.$id : `def-${i}`,
};
type Documented = { openapiObject: Record<string, unknown> };
/** A route's schema with what only the document reads (full responses, a raw route's body) put in. */
const documented = (schema: unknown, config: { openapi?: object }) => ({
  ...((schema ?? {}) as object),
  ...config.openapi,
});

const LICENSE = { name: 'MIT', identifier: 'MIT' };

/** Response headers, referenced from each response that may carry them (openapi-document.ts). */
const HEADERS = {
  'X-Request-Id': {
    description:
      'The request id: the X-Request-Id sent (1-64 of A-Z a-z 0-9 _ -) or a generated one; also in `meta.requestId`. Quote it when reporting a problem.',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when the Idempotency-Key was seen before: nothing new was stored and the answer is the one stored the first time.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': {
    description:
      '429 RATE_LIMITED and CHATBOT_PAGES_LIMIT_REACHED, 502 UPSTREAM_UNAVAILABLE and 503: seconds to wait before trying again (when known).',
    schema: { type: 'integer', minimum: 0 },
  },
  'WWW-Authenticate': {
    description:
      '401 only: `Bearer resource_metadata="…"` naming the protected resource metadata (RFC 9728), where clients discover how to get a token.',
    schema: { type: 'string' },
  },
  Allow: {
    description: '405 METHOD_NOT_ALLOWED only (another method on this path): the methods the path accepts.',
    schema: { type: 'string' },
  },
};

const TAGS: Record<string, string> = {
  health: 'Reachability',
  account: 'The token, its user and account, usage',
  billing: 'Invoices',
  tokens: 'API tokens',
  chatbots: 'Chatbots',
  settings: "A chatbot's settings, whole or by section",
  webhooks: 'Webhook state, deliveries, signing secret',
  identity: 'Identity verification of signed-in visitors',
  install: 'Whether a site carries the widget',
  icons: "The chatbot's icons",
  analytics: "A chatbot's figures",
  knowledge: 'Knowledge sources: links, websites, sitemaps, videos, text, files, Confluence',
  documents: 'Documents and ingest jobs',
  conversations: 'Conversations and their messages, escalation and take-over',
  starters: 'Conversation starters',
  followups: 'Follow-ups',
  instructions: 'Instructions to the language model',
  personas: 'Personas',
  'custom-responses': 'Fixed answers to given questions',
  tags: 'Conversation tags',
  members: "The chatbot's team",
  leads: 'Leads collected from visitors',
  'knowledge-gaps': 'Questions the assistant could not answer',
  oauth: 'OAuth 2.0 device authorization grant (RFC 8628): how a CLI or device gets a token',
  session: "The console's sign-in: a session cookie that acts as the signed-in user",
  legacy: 'The legacy v0 API',
  links: 'The legacy v1 links route',
};

const hasHeaderParam = (op: Record<string, unknown>, name: string) =>
  ((op.parameters as Array<{ in: string; name: string }> | undefined) ?? []).some(
    (p) => p.in === 'header' && p.name.toLowerCase() === name,
  );

/** Which headers each response of an operation may carry. */
function headersBy(status: string, op: Record<string, unknown>): string[] {
  const secured = Array.isArray(op.security) && op.security.length > 0;
  if (/^2/.test(status))
    return ['X-Request-Id', ...(hasHeaderParam(op, 'idempotency-key') ? ['Idempotent-Replayed'] : [])];
  if (status === '4XX') return ['X-Request-Id', ...(secured ? ['WWW-Authenticate'] : []), 'Retry-After', 'Allow'];
  if (status === '5XX' || status === '429' || status === '503') return ['X-Request-Id', 'Retry-After'];
  return ['X-Request-Id'];
}

const scopeText = (scope: string) => {
  const [resource, action] = scope.split(':');
  return `${action.charAt(0).toUpperCase()}${action.slice(1)} ${resource}`;
};

export function swaggerOptions(siteUrl: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: '2.0.0',
        license: LICENSE,
        description: [
          'Every response is the envelope `{ok, data | error, meta}`; `ok` is false on every error.',
          'Authenticate with `Authorization: Bearer <token>` (all routes but GET /health, the OAuth endpoints and this document).',
          'In a browser, a signed-in session (POST /session) works instead: its cookie acts as the user with every scope their role allows, and every change made with it sends the X-CSRF-Token header (403 CSRF_TOKEN_NOT_VALID without it).',
          'Each operation lists the scopes it needs in `security` and `x-required-scopes`; a token lacking one gets 403 TOKEN_SCOPE_NOT_ALLOWED with `error.details.requiredScopes`.',
          'Lists are keyset-paginated: pass `meta.nextCursor` as `cursor` until it is null.',
          'Every response carries `X-Request-Id`. Made for SDK generators: each operation has an `operationId`, shared shapes are named components, and `required` fields are always present. Also served as YAML at /api/v2/openapi.yaml.',
          `Scopes: ${SCOPES.join(', ')}.`,
          `AI agents: the same operations are MCP tools at ${siteUrl}/mcp (Model Context Protocol, streamable HTTP, the same Bearer tokens and scopes; protected resource metadata at ${siteUrl}/.well-known/oauth-protected-resource/mcp) and over stdio with \`parley mcp\`. Each tool names the operation it stands for; the README's Integrations section lists them.`,
        ].join('\n\n'),
      },
      servers: [{ url: `${siteUrl}/api/v2` }],
      components: {
        securitySchemes: {
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'parley_session',
            description:
              'The console: set by POST /session (e-mail and password), HttpOnly and SameSite=Lax. Acts as the signed-in user with every scope their role allows; every change sends X-CSRF-Token (from GET /session). Used only when no Authorization header is sent.',
          },
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'An opaque API token; never check it for a prefix. Made in the dashboard or CLI (`tokens create`), through `POST /tokens`, or by OAuth 2.0: the device authorization grant or the authorization code grant with PKCE (see `oauth2`).',
          },
          oauth2: {
            type: 'oauth2',
            description: [
              'The OAuth 2.0 device authorization grant (RFC 8628, grant type `urn:ietf:params:oauth:grant-type:device_code`; public client id `parley-cli`, no client secret).',
              `POST ${siteUrl}/oauth/device_authorization (form fields client_id, scope), show the user \`verification_uri\` and \`user_code\`, then poll POST ${siteUrl}/oauth/token (grant_type, device_code, client_id) every \`interval\` seconds until it answers the access token, a bearer token like any other.`,
              `Programs that can open a browser (MCP clients) use the authorization code grant with PKCE (S256 only) instead: register at POST ${siteUrl}/oauth/register (RFC 7591, public clients, https or loopback redirect URIs), send the user to ${siteUrl}/oauth/authorize, trade the code at POST ${siteUrl}/oauth/token (grant_type authorization_code, code_verifier); the token is the same kind (flow \`authorizationCode\`).`,
              "OpenAPI 3.1 has no flow object for the device grant: it is described in `x-deviceAuthorization` (the shape of OpenAPI 3.2's `deviceAuthorization` flow) and in the authorization server metadata (RFC 8414) at `x-oauth2MetadataUrl`.",
              `Discovery: ${siteUrl}/.well-known/oauth-authorization-server and ${siteUrl}/.well-known/oauth-protected-resource/api/v2, which every 401's WWW-Authenticate names.`,
            ].join(' '),
            flows: {
              authorizationCode: {
                authorizationUrl: `${siteUrl}/oauth/authorize`,
                tokenUrl: `${siteUrl}/oauth/token`,
                scopes: Object.fromEntries(SCOPES.map((s) => [s, scopeText(s)])),
              },
              'x-deviceAuthorization': {
                deviceAuthorizationUrl: `${siteUrl}/oauth/device_authorization`,
                tokenUrl: `${siteUrl}/oauth/token`,
                grantType: 'urn:ietf:params:oauth:grant-type:device_code',
                scopes: Object.fromEntries(SCOPES.map((s) => [s, scopeText(s)])),
              },
            },
            'x-oauth2MetadataUrl': `${siteUrl}/.well-known/oauth-authorization-server`,
          } as never,
        },
      },
    },
    hideUntagged: false,
    refResolver,
    transformObject: (({ openapiObject }: Documented) =>
      finishDocument(dropSchema(openapiObject, 'LegacyErrorBody'), {
        tags: TAGS,
        headers: HEADERS,
        headersBy,
      })) as never,
    transform({ schema, url, route }) {
      if (LEGACY_URL.test(url)) return hidden(schema, url);
      const config = (route.config ?? {}) as { access?: Access; openapi?: object };
      const out: Record<string, unknown> = documented(schema, config);
      const access = config.access;
      if (access && !access.public && !access.legacyKey) {
        out.security = [{ bearerAuth: access.scopes }, { oauth2: access.scopes }, { sessionCookie: [] }];
        out['x-required-scopes'] = access.scopes;
        const scopeText = access.scopes.length ? `Scopes: ${access.scopes.join(', ')}.` : 'Any valid token.';
        out.description = [schema?.description, scopeText].filter(Boolean).join('\n\n');
      } else {
        out.security = [];
      }
      // Routes outside /api/v2 (the OAuth endpoints) are relative to the site itself.
      if (!V2_URL.test(url)) return { schema: { ...out, servers: [{ url: siteUrl }] } as typeof schema, url };
      return { schema: out as typeof schema, url: url.replace(/^\/api\/v2/, '') || '/' };
    },
  };
}

/**
 * The legacy document ({site_url}/openapi.yaml, also as /openapi.json): the v0 routes and the v1
 * links route, from the same route schemas, under the server {site_url}/api. Registered as a
 * second swagger instance (`app.legacySwagger`), it hides every other route.
 */
export function legacySwaggerOptions(siteUrl: string): FastifyDynamicSwaggerOptions {
  return {
    decorator: 'legacySwagger',
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley legacy API (v0, and v1 links)',
        version: '0.0.0',
        license: LICENSE,
        description: [
          'The legacy API, kept for existing integrations; new work should use v2 ({site_url}/api/v2, described at /api/v2/openapi.json).',
          'It is a thin mapping onto the same services as v2: a chatbot made here is the same chatbot in v2, with the same rules and limits.',
          'Authenticate with `Authorization: Bearer <legacy API key>` (operator CLI: `legacy-keys create`). The key acts as the account owner and has no scopes; v2 tokens are refused here (401 TOKEN_NOT_VALID). A missing, malformed or unknown key is 401.',
          "Success: `{success: true, message, data}` with the resource itself (or a whole list: no pagination) in `data`. Error: `{success: false, message, data: null, error: {code, message, details}}`; `details` lists failing fields as `{path, message}` (path an array) or is null. The codes are v2's.",
          'Deletes need no confirmation. Routes new in v2 (custom responses, documents, sources, file upload, leads, members, tags, analytics, take over, release to AI, replies, account, usage, billing, tokens) answer 404 here.',
          'Served as YAML at /openapi.yaml and as JSON at /openapi.json; every operation has an `operationId`.',
        ].join('\n\n'),
      },
      servers: [{ url: `${siteUrl}/api` }],
      components: {
        securitySchemes: {
          legacyKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              "A legacy API key: no scopes of its own, it acts as its user with that user's dashboard role (what the role cannot do is 403 TOKEN_SCOPE_NOT_ALLOWED)",
          },
        },
      },
      security: [{ legacyKey: [] }],
    },
    hideUntagged: false,
    refResolver,
    transformObject: (({ openapiObject }: Documented) =>
      finishDocument(dropSchema(openapiObject, 'ErrorEnvelope'), {
        tags: TAGS,
        headers: HEADERS,
        headersBy: legacyHeadersBy,
      })) as never,
    transform({ schema, url, route }) {
      if (!LEGACY_URL.test(url)) return hidden(schema, url);
      const config = (route.config ?? {}) as { openapi?: object };
      return {
        schema: { ...documented(schema, config), security: [{ legacyKey: [] }] } as typeof schema,
        url: url.replace(/^\/api/, ''),
      };
    },
  };
}

/** The legacy routes answer the same headers, WWW-Authenticate on every 401 (all need a key). */
function legacyHeadersBy(status: string, op: Record<string, unknown>): string[] {
  return headersBy(status, { ...op, security: [{ legacyKey: [] }] });
}
