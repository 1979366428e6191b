/**
 * The one error handler: domain errors, fastify's own errors (validation, bodies, content types,
 * multipart limits), unknown paths (404) and known paths with another method (405), all in the
 * envelope. Anything unexpected is a 500 with no internals, logged with the request id.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { FieldError } from '../../shared/errors.js';
import { AppError } from '../domain/errors.js';
import { sendError } from './envelope.js';

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

export function fieldErrors(issues: AjvIssue[], part: string | undefined): (FieldError & { in?: string })[] {
  const seen = new Set<string>();
  const out: (FieldError & { in?: string })[] = [];
  for (const issue of issues) {
    // A nullable field fails both its type and `null`; report the real constraint once.
    if (issue.keyword === 'type' && issue.params.type === 'null') continue;
    if (issue.keyword === 'anyOf') continue;
    const path: (string | number)[] = issue.instancePath
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    let message = issue.message ?? 'is not valid';
    if (issue.keyword === 'required') {
      path.push(String(issue.params.missingProperty));
      message = 'is required';
    }
    if (issue.keyword === 'additionalProperties') {
      path.push(String(issue.params.additionalProperty));
      message = 'is not a field of this request';
    }
    if (issue.keyword === 'enum') message = `must be one of ${(issue.params.allowedValues as unknown[]).join(', ')}`;
    const key = `${part}:${path.join('.')}:${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, message, ...(part ? { in: part } : {}) });
  }
  return out;
}

/** busboy reports a malformed body (cut short, no boundary) as a plain Error with one of these messages. */
const MULTIPART_PARSE_ERROR =
  /^(Unexpected end of multipart data|Multipart: Boundary not found|.+ terminated early due to unexpected end of multipart data)$/;

function fastifyErrorBody(
  err: FastifyError,
): { status: number; code: AppError['code']; message: string; hint?: string; details?: unknown } | null {
  if (err.validation) {
    return {
      status: 400,
      code: 'VALIDATION_FAILED',
      message: `The request ${err.validationContext ?? ''} is not valid`.replace('  ', ' '),
      hint: 'Fix the fields listed in error.details and send again',
      details: fieldErrors(err.validation as unknown as AjvIssue[], err.validationContext),
    };
  }
  switch (err.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return {
        status: 400,
        code: 'INVALID_JSON',
        message: 'The body is not valid JSON',
        hint: 'Send a JSON document with Content-Type: application/json',
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return {
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
        message: 'The request body is larger than this route accepts',
        hint: 'Send a smaller body or file',
      };
    case 'FST_CSRF_MISSING_SECRET':
    case 'FST_CSRF_INVALID_TOKEN':
      return {
        status: 403,
        code: 'CSRF_TOKEN_NOT_VALID',
        message: 'A signed-in session sends its CSRF token with every change',
        hint: 'Send the csrfToken of GET /api/v2/session in the X-CSRF-Token header (or sign in again)',
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return {
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'This route does not read that Content-Type',
        hint: 'Send application/json (multipart/form-data for file uploads)',
      };
  }
  if (MULTIPART_PARSE_ERROR.test(err.message ?? '')) {
    return {
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'The multipart/form-data body is not valid',
      hint: 'Send the whole form with the boundary named in Content-Type',
      details: [{ path: [], message: err.message }],
    };
  }
  if (err instanceof SyntaxError || (err as { name?: string }).name === 'SyntaxError') {
    return {
      status: 400,
      code: 'INVALID_JSON',
      message: 'The body is not valid JSON',
      hint: 'Check quotes, commas and brackets',
    };
  }
  const status = err.statusCode ?? 500;
  if (status === 413) return { status, code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large' };
  if (status === 415) return { status, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported Content-Type' };
  if (status >= 400 && status < 500)
    return { status: 400, code: 'VALIDATION_FAILED', message: 'The request is not valid', details: [] };
  return null;
}

export function installErrorHandling(app: FastifyInstance, routerOptions: FindMyWay.Config<FindMyWay.HTTPVersion.V1>) {
  // A mirror of the routing table, used only to tell 405 from 404.
  const routes = FindMyWay(routerOptions);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      try {
        routes.on(method as FindMyWay.HTTPMethod, route.url, () => {});
      } catch {
        /* the same method+path registered twice is fastify's error to raise */
      }
    }
  });

  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof AppError) {
      return sendError(
        request,
        reply,
        err.status,
        {
          code: err.code,
          message: err.message,
          ...(err.extra.hint && { hint: err.extra.hint }),
          ...(err.extra.details !== undefined && { details: err.extra.details }),
        },
        err.extra.headers,
      );
    }
    const known = fastifyErrorBody(err);
    if (known) {
      request.log.debug({ err: { code: err.code, message: err.message } }, 'request refused');
      return sendError(request, reply, known.status, {
        code: known.code,
        message: known.message,
        ...(known.hint && { hint: known.hint }),
        ...(known.details !== undefined && { details: known.details }),
      });
    }
    request.log.error({ err, requestId: request.id }, 'unexpected failure');
    return sendError(request, reply, 500, {
      code: 'INTERNAL_SERVER_ERROR',
      message: 'Something went wrong on our side',
      hint: `If it persists, report request id ${request.id}`,
    });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = (['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const).filter(
      (m) => routes.find(m, path) !== null,
    );
    if (allowed.length) {
      return sendError(
        request,
        reply,
        405,
        {
          code: 'METHOD_NOT_ALLOWED',
          message: `${request.method} is not supported on this path`,
          hint: `Use ${allowed.join(', ')}`,
        },
        { allow: allowed.join(', ') },
      );
    }
    return sendError(request, reply, 404, {
      code: 'NOT_FOUND',
      message: `No route ${request.method} ${path}`,
      hint: 'Check the path; the API lives under /api/v2 and its description is at /api/v2/openapi.json',
    });
  });
}
