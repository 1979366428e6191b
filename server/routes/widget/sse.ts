/**
 * `POST /api/widget/sse`: the socket as Server-Sent Events, for networks that strip the
 * WebSocket upgrade. The body is the hello frame; the stream (server/realtime/sse.ts) carries the
 * same server frames, and takes the socket's slots (per address, per visitor).
 */
import type { FastifyInstance } from 'fastify';
import { LIMITS } from '../../../shared/protocol.js';
import { AppError } from '../../domain/errors.js';
import { SseHello } from '../../realtime/frames.js';
import { SseStream } from '../../realtime/sse.js';
import { VisitorConnection } from '../../realtime/visitor-connection.js';
import { connectsPerMinute } from '../rate-limit.js';
import { PUBLIC } from './schemas.js';
import { sessionOf } from './visitor-session.js';

export const SSE_URL = '/api/widget/sse';

const tooMany = (what: string) =>
  new AppError('RATE_LIMITED', `Too many streams ${what}`, { hint: 'Close other tabs or try again later' });

export default async function sse(app: FastifyInstance) {
  const widget = app.services.widget;
  const gateway = app.realtime;

  // Open streams are ended like the sockets when the server closes (1001): its close waits for
  // every response, so one stream left open would hold a restart until the process is killed.
  const streams = new Set<SseStream>();
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    for (const stream of streams) stream.goAway();
  });

  app.post(
    SSE_URL,
    {
      schema: {
        hide: true,
        tags: ['widget'],
        summary: 'The socket as Server-Sent Events',
        description:
          'For networks that strip the WebSocket upgrade. The body is the hello frame; the response is text/event-stream, one server frame per event (`data:` JSON). Authorization: Bearer <session token>.',
        body: SseHello,
      },
      // The socket's limits: a hello of 64 KiB at most, resuming at most 100 conversations.
      bodyLimit: LIMITS.maxPayloadBytes,
      config: { access: PUBLIC, raw: true, rateLimit: connectsPerMinute(app) },
    },
    async (request, reply) => {
      const session = await sessionOf(widget, request);
      const releaseIp = await gateway.admit('ip', request.ip);
      if (!releaseIp) throw tooMany('from this address');
      const releaseVisitor = await gateway.admit('visitor', session.visitor.id);
      if (!releaseVisitor) {
        releaseIp();
        throw tooMany('for this visitor');
      }
      reply.hijack();
      const counted = app.metrics?.connectionOpened('visitor_sse');
      const stream: SseStream = new SseStream(
        reply.raw,
        gateway,
        reply.getHeaders() as Record<string, string>,
        () => connection.beat(),
        () => {
          counted?.();
          streams.delete(stream);
          connection.dispose();
          releaseIp();
          releaseVisitor();
        },
      );
      const connection = new VisitorConnection(
        app.connections.visitor,
        session,
        { ip: request.ip, origin: request.headers.origin },
        stream,
      );
      // Gone while its slots were counted (they await Redis): 'close' has already been emitted.
      if (request.socket.destroyed) return stream.end();
      if (closing) return stream.goAway();
      streams.add(stream);
      await connection.handle(request.body as never);
    },
  );
}
