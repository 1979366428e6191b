/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers too large, malformed
 * HTTP, a body that took longer than REQUEST_TIMEOUT_MS) are answered in the v2 envelope when the
 * socket can still take an answer, then closed.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { ErrorCode } from '../../shared/errors.js';
import { isLegacyPath, legacyError } from './envelope.js';

const REFUSALS: Record<string, { status: number; code: string; message: string; hint: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'HEADERS_TOO_LARGE',
    message: 'The request headers are too large',
    hint: 'Send fewer or shorter headers (cookies, long tokens)',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'REQUEST_TIMEOUT',
    message: 'The request took too long to arrive',
    hint: 'Send the whole request within REQUEST_TIMEOUT_MS',
  },
};
const MALFORMED = {
  status: 400,
  code: 'MALFORMED_REQUEST',
  message: 'The request is not valid HTTP',
  hint: 'Check the request line, headers and body framing',
};

export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const r = REFUSALS[err.code ?? ''] ?? MALFORMED;
  const requestId = randomUUID();
  const body = JSON.stringify({
    ok: false,
    error: { code: r.code, message: r.message, hint: r.hint },
    meta: { requestId },
  });
  // Written, then closed both ways: a client still sending (a slow drip) is not waited for.
  socket.write(
    `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Content-Type-Options: nosniff\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/**
 * Fastify's own refusals before routing (a path with broken percent-encoding, a path segment
 * longer than the router reads) in the envelope (the legacy body under /api/v0 and /api/v1), with
 * the headers every response carries.
 */
export function frameworkErrors(err: { code?: string }, request: FastifyRequest, reply: FastifyReply) {
  const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const status = tooLong ? 404 : 400;
  const error = tooLong
    ? { code: 'NOT_FOUND' as ErrorCode, message: 'Nothing has an id that long', hint: 'Check the id in the path' }
    : {
        code: 'MALFORMED_REQUEST' as ErrorCode,
        message: 'The request path is not a valid URL',
        hint: 'Percent-encode the path correctly',
      };
  const body = isLegacyPath(request.url) ? legacyError(error) : { ok: false, error, meta: { requestId: request.id } };
  void reply
    .code(status)
    .header('x-request-id', request.id)
    .header('x-content-type-options', 'nosniff')
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(body));
}
