/**
 * `POST /api/widget/frames`: one client frame for the Server-Sent Events fallback. Its answer
 * holds the frames meant for this request (ack, errors, lists); conversation events arrive on the
 * stream.
 */
import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import Type from 'typebox';
import { LIMITS, type ServerFrame } from '../../../shared/protocol.js';
import { AppError } from '../../domain/errors.js';
import { endpoint } from '../../http/route.js';
import { checkClientFrame } from '../../realtime/frames.js';
import { VisitorConnection } from '../../realtime/visitor-connection.js';
import { PUBLIC, Shaped } from './schemas.js';
import { bearer, sessionOf } from './visitor-session.js';

export const FRAMES_URL = '/api/widget/frames';

/** `framesPerIp`: the per-address limit, made in a scope of its own (widget/index.ts says why). */
export default async function frames(app: FastifyInstance, opts: { framesPerIp: preValidationHookHandler }) {
  const widget = app.services.widget;
  const { framesPerWindow, rateWindowMs } = app.config.realtime;
  // The socket's frame rate: per session as per connection, and per address as for all the
  // sockets one address may hold. A visitor's frames do not count against others behind the same
  // address (an office whose proxy strips the upgrade is this fallback's typical user).
  app.post(
    FRAMES_URL,
    {
      bodyLimit: LIMITS.maxPayloadBytes,
      preValidation: opts.framesPerIp,
      ...endpoint({
        access: PUBLIC,
        config: {
          rateLimit: {
            max: framesPerWindow,
            timeWindow: rateWindowMs,
            keyGenerator: (request) => widget.tokens.read(bearer(request))?.sid ?? request.ip,
          },
        },
        data: Type.Object({ frames: Type.Array(Shaped('ServerFrame')) }),
        hide: true,
        tags: ['widget'],
        summary: 'A client frame, for the Server-Sent Events fallback',
        description:
          'Any client frame but hello. Answers the frames meant for this request (ack, errors, lists); conversation events arrive on the stream. Authorization: Bearer <session token>.',
      }),
    },
    async (request) => {
      const session = await sessionOf(widget, request);
      const frames: ServerFrame[] = [];
      const connection = new VisitorConnection(
        app.connections.visitor,
        session,
        { ip: request.ip, stateless: true },
        { send: (f) => frames.push(f), close: () => {} },
      );
      const parsed = checkClientFrame(request.body ?? null);
      // A malformed frame is a bad request (400, changing nothing); a well-formed one the protocol refuses is an error frame.
      if (!parsed.ok) throw new AppError('VALIDATION_FAILED', parsed.message, { details: parsed.details });
      if (parsed.frame.type === 'hello')
        throw new AppError('VALIDATION_FAILED', 'hello opens the stream: POST it to /api/widget/sse', {
          details: [{ path: ['type'], message: 'hello is not taken here' }],
        });
      await connection.handle(parsed.frame);
      connection.dispose();
      return { frames };
    },
  );
}
