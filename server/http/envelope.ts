/**
 * The one place that builds v2 response envelopes (spec 2.1). Handlers return only `data`; a
 * preSerialization hook wraps it, the error handler wraps errors, and both add `meta`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import './access.js';
import type { ErrorBody, ErrorEnvelope, Meta, SuccessEnvelope } from '../../shared/envelope.js';

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

export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, error: ErrorBody, headers: Record<string, string> = {}) {
  return reply.code(status).headers(headers).type('application/json; charset=utf-8').send(errorEnvelope(request, error));
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
    if (request.routeOptions.config?.raw || (payload && typeof payload === 'object' && BUILT in payload)) return done(null, payload);
    done(null, successEnvelope(request, payload));
  });
}
