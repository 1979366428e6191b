/**
 * The one place that builds response envelopes: v2's (spec 2.1) and the legacy v0/v1 bodies
 * (spec 2.4). Handlers return only `data`; a preSerialization hook wraps it, the error handler
 * wraps errors, and v2 bodies get `meta`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import './access.js';
import type {
  ErrorBody,
  ErrorEnvelope,
  LegacyError,
  LegacySuccess,
  Meta,
  SuccessEnvelope,
} from '../../shared/envelope.js';
import { noteErrorCode } from './request-log.js';

/** Marks an object that is already an envelope (symbols are not serialized). */
export const BUILT = Symbol('envelope');

const REQUEST_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The caller's `x-request-id` when it is 1-64 letters, digits, `_` or `-`; otherwise null. */
export function acceptedRequestId(header: string | string[] | undefined): string | null {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : null;
}

function meta(request: FastifyRequest, extra: Partial<Meta> = {}): Meta {
  const m: Meta = { requestId: request.id, ...extra };
  if (request.warnings?.length) m.warnings = request.warnings;
  return m;
}

export function successEnvelope(request: FastifyRequest, data: unknown): SuccessEnvelope<unknown> {
  const extra: Partial<Meta> = {};
  const pagination = (data as { pagination?: { nextCursor?: string | null } } | null)?.pagination;
  if (pagination && 'nextCursor' in pagination) extra.nextCursor = pagination.nextCursor ?? null;
  return Object.assign({ ok: true as const, data, meta: meta(request, extra) }, { [BUILT]: true });
}

export function errorEnvelope(request: FastifyRequest, error: ErrorBody): ErrorEnvelope {
  return Object.assign({ ok: false as const, error, meta: meta(request) }, { [BUILT]: true });
}

/** Paths of the legacy API: every answer under them (unknown paths too) is a legacy body. */
const LEGACY_PATH = /^\/api\/v[01](?:[/?#]|$)/;

export const isLegacyPath = (url: string) => LEGACY_PATH.test(url);

/** The request is a legacy v0/v1 call: a legacy route, or any path under /api/v0 or /api/v1. */
export function isLegacy(request: FastifyRequest): boolean {
  return !!request.routeOptions.config?.legacy || isLegacyPath(request.url);
}

export function legacySuccess(message: string, data: unknown): LegacySuccess<unknown> {
  return Object.assign({ success: true as const, message, data }, { [BUILT]: true });
}

/**
 * The legacy error body: `details` keeps only failing fields (`{path, message}`, the path an
 * array); v2's other details (and `hint`) have no place in it.
 */
export function legacyError(error: ErrorBody): LegacyError {
  const fields = Array.isArray(error.details)
    ? error.details
        .filter(
          (d): d is { path: (string | number)[]; message: string } =>
            !!d && Array.isArray(d.path) && typeof d.message === 'string',
        )
        .map((d) => ({ path: d.path, message: d.message }))
    : null;
  const body = {
    success: false as const,
    message: error.message,
    data: null,
    error: { code: error.code, message: error.message, details: fields },
  };
  return Object.assign(body, { [BUILT]: true });
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  error: ErrorBody,
  headers: Record<string, string> = {},
) {
  const body = isLegacy(request) ? legacyError(error) : errorEnvelope(request, error);
  noteErrorCode(request, error.code);
  return reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
}

/** `data.pagination` (spec 2.2) for a list whose next page starts at `nextCursor`. */
export function paged<K extends string, T>(key: K, items: T[], limit: number, nextCursor: string | null) {
  return { [key]: items, pagination: { limit, hasNextPage: nextCursor !== null, nextCursor } } as Record<K, T[]> & {
    pagination: { limit: number; hasNextPage: boolean; nextCursor: string | null };
  };
}

/**
 * The envelope around every success (unless the route is `raw` or the payload already is one), and
 * each route's declared success status, set before its handler runs so a handler never repeats it.
 */
export function installEnvelope(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    const status = route.config?.successStatus;
    if (!status) return;
    const setStatus: preHandlerHookHandler = (_request, reply, done) => {
      reply.code(status);
      done();
    };
    route.preHandler = [setStatus, ...[route.preHandler ?? []].flat()];
  });
  app.addHook('preSerialization', (request, _reply, payload, done) => {
    const config = request.routeOptions.config;
    if (config?.raw || (payload && typeof payload === 'object' && BUILT in payload)) return done(null, payload);
    done(null, config?.legacy ? legacySuccess(config.legacy.message, payload) : successEnvelope(request, payload));
  });
}
