/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers too large, malformed
 * HTTP, a body that took longer than REQUEST_TIMEOUT_MS) are answered in the v2 envelope when the
 * socket can still take an answer, then closed.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';

const REFUSALS: Record<string, { status: number; code: string; message: string; hint: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'HEADERS_TOO_LARGE', message: 'The request headers are too large', hint: 'Send fewer or shorter headers (cookies, long tokens)' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request took too long to arrive', hint: 'Send the whole request within REQUEST_TIMEOUT_MS' },
};
const MALFORMED = { status: 400, code: 'MALFORMED_REQUEST', message: 'The request is not valid HTTP', hint: 'Check the request line, headers and body framing' };

export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const r = REFUSALS[err.code ?? ''] ?? MALFORMED;
  const requestId = randomUUID();
  const body = JSON.stringify({ ok: false, error: { code: r.code, message: r.message, hint: r.hint }, meta: { requestId } });
  // Written, then closed both ways: a client still sending (a slow drip) is not waited for.
  socket.write(
    `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Content-Type-Options: nosniff\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
