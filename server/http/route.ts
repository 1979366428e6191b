/**
 * endpoint(): the one way a route declares itself. From one spec it builds the route's `schema`
 * (request parts, and `response`: the success envelope around `data` plus the error envelope) and
 * its `config` (access, success status). Fastify serialises every response by that schema (fields
 * not declared never leave the server) and the OpenAPI document is generated from the same place.
 *
 *   app.post('/chatbots/:chatbotId/tags', endpoint({
 *     access: { scopes: ['conversations:write'] }, status: 201,
 *     tags: ['tags'], summary: 'Add a tag', params: ChatbotParams, body: CreateTag,
 *     data: one('tag', TagSchema),
 *   }), async (request) => ({ tag: await service.create(request.auth, request.params.chatbotId, request.body) }));
 */
import type { FastifyContextConfig } from 'fastify';
import type { TSchema } from 'typebox';
import type { Access } from './access.js';
import { Meta } from './openapi.js';
import type { OpenApiParts } from './openapi-parts.js';

export interface EndpointSpec {
  access: Access;
  /** Schema of `data` on success. Without it `data` is written as it is (routes not yet described). */
  data?: TSchema;
  /** The success status (default 200); the reply gets it unless the handler sets another. */
  status?: 200 | 201 | 202;
  /** Other success statuses the handler may set (e.g. 200 when a create found an existing item). */
  alsoStatus?: Array<200 | 201 | 202>;
  /** Not wrapped in the envelope and not serialised by schema (files, the OpenAPI document). */
  raw?: boolean;
  tags?: string[];
  summary?: string;
  description?: string;
  hide?: boolean;
  consumes?: string[];
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  headers?: TSchema;
  /**
   * A legacy v0/v1 route: its replies are the legacy bodies of spec 2.4 (`{success, message, data}`
   * and `{success: false, message, data: null, error}`), `message` being its success text.
   */
  legacy?: { message: string };
  /** Stable camelCase name of the operation for SDK generators; by default derived from method and path (openapi-document.ts). */
  operationId?: string;
  /**
   * The request body and (raw routes) answers as the OpenAPI document states them, per content
   * type; fastify neither validates nor serialises by them (the OAuth endpoints read forms by
   * hand, the uploads stream multipart parts).
   */
  documented?: OpenApiParts;
  /** Further route config (e.g. rate limits). */
  config?: Omit<FastifyContextConfig, 'access' | 'successStatus' | 'raw' | 'legacy' | 'openapi'>;
}

const ERROR = { $ref: 'ErrorEnvelope#' };
const LEGACY_ERROR = { $ref: 'LegacyErrorBody#' };

/** Keywords that only constrain input: a reply is written by its types and properties alone. */
const INPUT_ONLY = new Set([
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'additionalProperties',
  // A field a reply leaves out (a secret setting the caller may not read) is omitted, never a 500.
  'required',
]);
const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * A response schema for serialising: input-only keywords dropped (request schemas are reused for
 * replies; a stored value must never fail to serialise; an absent field is simply not written) and `X | null` as `type: [X, 'null']`,
 * which the serialiser writes directly instead of testing each branch of an anyOf.
 */
export function forReply(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forReply);
  if (!schema || typeof schema !== 'object') return schema;
  const src = schema as Record<string, unknown>;
  const anyOf = src.anyOf as Record<string, unknown>[] | undefined;
  if (anyOf?.length === 2) {
    const other = anyOf.find((s) => s.type !== 'null');
    if (other && anyOf.some((s) => s.type === 'null')) {
      const { anyOf: _, ...rest } = src;
      const inner = forReply(other) as Record<string, unknown>;
      if (
        typeof inner.type === 'string' &&
        (SCALARS.has(inner.type) || inner.type === 'object' || inner.type === 'array')
      ) {
        return { ...inner, ...rest, type: [inner.type, 'null'] };
      }
      if (Array.isArray(inner.enum) && inner.type === undefined)
        return { ...inner, ...rest, enum: [...inner.enum, null] };
    }
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(src)) {
    if (INPUT_ONLY.has(key) && !(key === 'additionalProperties' && value !== false)) continue;
    out[key] =
      key === 'properties' || key === 'patternProperties'
        ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, forReply(v)]))
        : forReply(value);
  }
  return out;
}

/** The success envelope around a `data` schema. */
export function successSchema(data: TSchema | undefined) {
  return {
    type: 'object',
    required: ['ok', 'data', 'meta'],
    properties: { ok: { type: 'boolean', const: true }, data: data ?? {}, meta: Meta },
  } as const;
}

/** The legacy success body around a `data` schema (spec 2.4). */
export function legacySuccessSchema(data: TSchema | undefined) {
  return {
    type: 'object',
    required: ['success', 'message', 'data'],
    properties: { success: { type: 'boolean', const: true }, message: { type: 'string' }, data: data ?? {} },
  } as const;
}

/**
 * A route's responses: its success statuses and the error envelope (or the legacy bodies), in full.
 * The OpenAPI document publishes them as they are; fastify serialises by their forReply() form.
 */
export function responseSchemas(data: TSchema | undefined, statuses: number[], legacy = false) {
  const response: Record<string, object> = {};
  const error = legacy ? LEGACY_ERROR : ERROR;
  for (const status of statuses)
    response[status] = { description: 'Success', ...(legacy ? legacySuccessSchema(data) : successSchema(data)) };
  response['4XX'] = { description: 'Error (see error.code)', ...error };
  response['5XX'] = { description: 'INTERNAL_SERVER_ERROR', ...error };
  return response;
}

type RequestParts<S extends EndpointSpec> = {
  params: S['params'];
  querystring: S['querystring'];
  body: S['body'];
  headers: S['headers'];
};

export function endpoint<S extends EndpointSpec>(spec: S) {
  const { access, data, status = 200, alsoStatus = [], raw, config, legacy, documented, ...schema } = spec;
  const response = raw ? undefined : responseSchemas(data, [status, ...alsoStatus], !!legacy);
  const openapi: OpenApiParts | undefined = response ? { ...documented, response } : documented;
  return {
    // `response` is typed loosely on purpose: handlers return `data`; the envelope is added by a hook.
    schema: { ...schema, ...(response ? { response: forReply(response) as Record<string, unknown> } : {}) } as Omit<
      S,
      'access' | 'data' | 'status' | 'alsoStatus' | 'raw' | 'config' | 'legacy' | 'documented'
    > &
      RequestParts<S> & { response?: Record<string, unknown> },
    config: {
      ...config,
      access,
      ...(status !== 200 ? { successStatus: status } : {}),
      ...(raw ? { raw } : {}),
      ...(legacy ? { legacy } : {}),
      ...(openapi ? { openapi } : {}),
    } as FastifyContextConfig,
  };
}
