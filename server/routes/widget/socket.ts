/**
 * `GET /api/widget/ws`: the visitor's WebSocket and its admission. The session token comes as a
 * subprotocol (checked before the upgrade) or in the hello frame; the socket's slots (per
 * address, per visitor) are counted before any frame is handled.
 */
import type { FastifyInstance } from 'fastify';
import { CLOSE, WS_SESSION_PROTOCOL_PREFIX } from '../../../shared/protocol.js';
import { AppError } from '../../domain/errors.js';
import type { VisitorSession } from '../../domain/widget/widget.service.js';
import { afterAdmission, Holdings, runSocket, socketTransport, subprotocolToken } from '../../realtime/socket.js';
import { CloseError, VisitorConnection } from '../../realtime/visitor-connection.js';
import { connectsPerMinute } from '../rate-limit.js';
import { PUBLIC } from './schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The socket's session (authenticated before the upgrade) or why it is refused. */
    widgetSession?: VisitorSession | CloseError;
  }
}

export default async function socket(app: FastifyInstance) {
  const widget = app.services.widget;
  const gateway = app.realtime;

  app.get(
    '/api/widget/ws',
    {
      websocket: true,
      config: { access: PUBLIC, raw: true, rateLimit: connectsPerMinute(app) },
      // Authenticated before the upgrade when the token comes as a subprotocol; the outcome is kept
      // for the handler, which closes a refused socket with the protocol's code and reason.
      preValidation: async (request) => {
        const token = subprotocolToken(request.headers['sec-websocket-protocol'], WS_SESSION_PROTOCOL_PREFIX);
        if (!token) return;
        try {
          const session = await widget.authenticate(token);
          widget.checkOrigin(session.chatbot, request.headers.origin);
          request.widgetSession = session;
        } catch (err) {
          const origin = err instanceof AppError && err.code === 'ORIGIN_NOT_ALLOWED';
          request.widgetSession = new CloseError(
            origin ? CLOSE.originRefused : CLOSE.sessionInvalid,
            err instanceof AppError ? err.message : 'session not valid',
          );
        }
      },
    },
    (socket, request) => {
      const pre = request.widgetSession;
      if (pre instanceof CloseError) return socket.close(pre.code, pre.message.slice(0, 120));
      if (app.metrics) socket.once('close', app.metrics.connectionOpened('visitor_socket'));
      // The socket is wired at once (frames sent meanwhile wait in order); its slots are counted
      // asynchronously, across instances with Redis, and a refused socket is closed with 4029.
      const holdings = new Holdings();
      const admitVisitor = async (session: VisitorSession) => {
        try {
          widget.checkOrigin(session.chatbot, request.headers.origin);
        } catch (err) {
          if (err instanceof AppError) throw new CloseError(CLOSE.originRefused, err.message);
          throw err;
        }
        const release = await gateway.admit('visitor', session.visitor.id);
        if (!release) throw new CloseError(CLOSE.tooManySockets, 'too many sockets for this visitor');
        holdings.keep('visitor', release);
      };
      const connection = new VisitorConnection(
        app.connections.visitor,
        null,
        { ip: request.ip, origin: request.headers.origin },
        socketTransport(socket, gateway),
        admitVisitor,
      );
      const admission = (async () => {
        const releaseIp = await gateway.admit('ip', request.ip);
        if (!releaseIp) throw new CloseError(CLOSE.tooManySockets, 'too many sockets from this address');
        holdings.keep('ip', releaseIp);
        if (pre) {
          await admitVisitor(pre);
          connection.adopt(pre);
        }
        return true;
      })().catch((err) => {
        if (!(err instanceof CloseError)) gateway.log(err, 'admitting a socket failed');
        const [code, reason] = err instanceof CloseError ? [err.code, err.message] : [1011, 'server error'];
        if (socket.readyState === socket.OPEN) socket.close(code, reason);
        return false;
      });
      runSocket(socket, gateway, afterAdmission(connection, admission), () => holdings.releaseAll());
    },
  );
}
