/**
 * One `info` line per request, written when the response is sent: method, URL, status, time and,
 * for a refused request, the error code. Fastify's own pair (incoming, completed) is replaced.
 */
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

const errorCodes = new WeakMap<FastifyRequest, string>();

/** The error code the request was answered with (sendError), for its log line. */
export function noteErrorCode(request: FastifyRequest, code: string) {
  errorCodes.set(request, code);
}

export class RequestLog extends LogController {
  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const code = errorCodes.get(request);
    const fields = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      ms,
      ...(code && { code }),
    };
    const line = `${request.method} ${request.url} ${reply.statusCode}${code ? ` ${code}` : ''} ${ms} ms`;
    if (error) request.log.error({ ...fields, err: error }, `${line}: the response failed`);
    else request.log.info(fields, line);
  }
}
