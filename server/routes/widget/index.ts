/**
 * The public, visitor-facing entrance (no API token): the widget's configuration, visitor
 * sessions, the WebSocket `/api/widget/ws`, and its fallback for networks that strip the upgrade
 * (`POST /api/widget/sse` streams the same server frames as Server-Sent Events, `POST
 * /api/widget/frames` takes client frames). Every route is rate-limited per IP and answers only
 * pages of the chatbot's allowed domains (CORS, and `Origin` on the socket).
 */
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import Type from 'typebox';
import { CLOSE, LIMITS, type ServerFrame, WS_SESSION_PROTOCOL_PREFIX } from '../../../shared/protocol.js';
import { AppError } from '../../domain/errors.js';
import type { ChatbotRecord } from '../../domain/ports.js';
import { LOCALES } from '../../../shared/settings.js';
import { allowedDomainsOf, originAllowed } from '../../domain/widget/origins.js';
import { originNotAllowed, sessionNotValid, type VisitorSession } from '../../domain/widget/widget.service.js';
import { checkClientFrame, SseHello } from '../../realtime/frames.js';
import type { RedisHub } from '../../realtime/redis-hub.js';
import { afterAdmission, Holdings, roomIn, runSocket, socketTransport } from '../../realtime/socket.js';
import { CloseError, VisitorConnection } from '../../realtime/visitor-connection.js';
import { identityNotValid } from '../../domain/visitors/identity.js';
import { endpoint } from '../../http/route.js';
import { teamStream } from './team-stream.js';

const ChatbotParams = Type.Object({ chatbotId: Type.String({ minLength: 1, maxLength: 64 }) });
const SessionBody = Type.Object(
  {
    renew: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          'A previous session token (expired is fine, within 30 days of its issue): same visitor, same history',
      }),
    ),
    identity: Type.Optional(
      Type.Object(
        {
          email: Type.String({ maxLength: 320 }),
          signature: Type.String({ maxLength: 128 }),
          name: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
    ),
    context: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 500 }), {
        maxProperties: 20,
        description: 'Page context (URL, title, custom fields) shown to the team',
      }),
    ),
    locale: Type.Optional(Type.Enum([...LOCALES])),
  },
  { additionalProperties: false },
);

const PUBLIC = { public: true } as const;
/** A value typed in shared/protocol.ts, the wire contract the widget shares, and written as it is. */
const Shaped = (name: string) => Type.Unknown({ description: `${name} (shared/protocol.ts)` });
const CONFIG_URL = '/api/widget/:chatbotId/config';
/**
 * Fresh for a minute (an ETag makes the revalidation cheap); after that a returning visitor's
 * bubble is drawn at once from the cached copy while it is revalidated (stale-while-revalidate):
 * a change shows from the next page view instead of costing every view a round trip first.
 */
const CONFIG_CACHE = 'public, max-age=60, stale-while-revalidate=86400';

/** The session token of `Authorization: Bearer <token>` (the SSE fallback's routes). */
function bearer(request: FastifyRequest): string | null {
  const m = /^Bearer (\S{1,1024})$/i.exec(request.headers.authorization ?? '');
  return m ? m[1] : null;
}

/** The session token offered as a subprotocol (`parley.session.<token>`). */
function protocolToken(request: FastifyRequest): string | null {
  const header = request.headers['sec-websocket-protocol'];
  if (typeof header !== 'string') return null;
  const offered = header
    .split(',')
    .map((p) => p.trim())
    .find((p) => p.startsWith(WS_SESSION_PROTOCOL_PREFIX));
  return offered ? offered.slice(WS_SESSION_PROTOCOL_PREFIX.length) : null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The socket's session (authenticated before the upgrade) or why it is refused. */
    widgetSession?: VisitorSession | CloseError;
  }
}

export async function widgetRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const widget = app.services.widget;
  const gateway = app.realtime;

  // With Redis the counts are shared by the instances (an address gets the limit, not the limit
  // times the instances); should Redis not answer, the request goes through rather than fail.
  const limiter = (nameSpace: string) => ({
    global: false,
    ...(app.config.redisUrl && { redis: (gateway.hub as RedisHub).connection, nameSpace, skipOnError: true }),
    errorResponseBuilder: (_request: FastifyRequest, context: { max: number; after: string; ttl: number }) =>
      new AppError('RATE_LIMITED', `Too many requests: at most ${context.max} per ${context.after}`, {
        hint: `Try again in ${context.after}`,
        headers: { 'retry-after': String(Math.ceil(context.ttl / 1000)) },
      }),
  });
  // The fallback's frames count per session and per address. A request runs one limit of each
  // registration, so the per-address one has a registration of its own, in a scope made before
  // the routes' (a scope that inherits `rateLimit` gets the routes' registration instead).
  const { framesPerWindow, rateWindowMs, maxSocketsPerIp } = app.config.realtime;
  let framesPerIp!: ReturnType<FastifyInstance['rateLimit']>;
  await app.register(async (scope) => {
    await scope.register(rateLimit, limiter('parley:rl:frames-ip:'));
    framesPerIp = scope.rateLimit({ max: framesPerWindow * maxSocketsPerIp, timeWindow: rateWindowMs });
  });
  await app.register(rateLimit, limiter('parley:rl:'));

  // The chatbot a request names, read once per request (the origin check and the config would
  // each read it; on PostgreSQL every read is a round trip before the bubble shows).
  const chatbots = new WeakMap<FastifyRequest, Promise<ChatbotRecord>>();
  const chatbotOf = (request: FastifyRequest, chatbotId: string) => {
    let read = chatbots.get(request);
    if (!read) chatbots.set(request, (read = widget.chatbot(chatbotId)));
    return read;
  };

  // CORS for every page, preflights included: each route checks the page's origin against its
  // chatbot's allowed domains itself and refuses with 403 ORIGIN_NOT_ALLOWED, and these headers
  // let the page read that refusal (the widget tells the site's developer why) instead of a
  // CORS failure. Nothing else is answered to a page outside the allowed domains.
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin) return;
    reply.header('vary', 'Origin');
    reply.header('access-control-allow-origin', origin);
    // widget.js asks for the config with credentials so the request rides the connection
    // widget.js came on (browsers keep uncredentialed requests on other connections: a second TCP
    // and TLS handshake before the bubble). No cookie is read; the answer is the same for all.
    if (request.routeOptions.url === CONFIG_URL) reply.header('access-control-allow-credentials', 'true');
    if (request.method === 'OPTIONS') {
      reply
        .header('access-control-allow-methods', 'GET, POST')
        .header('access-control-allow-headers', 'authorization, content-type, x-request-id')
        .header('access-control-max-age', '600');
      return reply.code(204).send();
    }
  });
  // The preflights the hook above answers.
  for (const url of [CONFIG_URL, '/api/widget/:chatbotId/session', '/api/widget/sse', '/api/widget/frames']) {
    app.options(url, { schema: { hide: true }, config: { access: PUBLIC, raw: true } }, async (_request, reply) =>
      reply.code(204).send(),
    );
  }

  const checkOrigin = async (request: FastifyRequest, chatbotId: string) => {
    const chatbot = await chatbotOf(request, chatbotId);
    widget.checkOrigin(chatbot, request.headers.origin);
    return chatbot;
  };

  app.get(
    CONFIG_URL,
    endpoint({
      access: PUBLIC,
      config: { rateLimit: { max: 120, timeWindow: '1 minute' } },
      data: Shaped('WidgetConfig'),
      hide: true,
      tags: ['widget'],
      summary: "The widget's public configuration",
      description: 'Only what the widget draws with; cacheable (ETag, max-age 60 s, stale-while-revalidate a day).',
      params: ChatbotParams,
    }),
    async (request, reply) => {
      const data = await widget.config(await checkOrigin(request, request.params.chatbotId));
      const etag = `"${createHash('sha256').update(JSON.stringify(data)).digest('base64url').slice(0, 27)}"`;
      reply.header('etag', etag).header('cache-control', CONFIG_CACHE).header('timing-allow-origin', '*');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return data;
    },
  );

  app.post(
    '/api/widget/:chatbotId/session',
    endpoint({
      access: PUBLIC,
      status: 201,
      config: { rateLimit: { max: 20, timeWindow: '1 minute' } },
      data: Shaped('SessionResponse'),
      hide: true,
      tags: ['widget'],
      summary: 'A visitor session',
      description:
        'A signed token (24 h, renewable with "renew" up to 30 days after issue) bound to a visitor of the chatbot. Nothing is stored in the browser by the server before this call.',
      params: ChatbotParams,
      body: SessionBody,
    }),
    async (request) => {
      const chatbot = await checkOrigin(request, request.params.chatbotId);
      const body = request.body ?? {};
      // A refused claim changes nothing: checked before a visitor is made or renewed.
      const identity = app.services.visitors.identity;
      const signed = body.identity ? await identity.check(chatbot.id, body.identity) : null;
      if (body.identity && !signed) throw identityNotValid();
      const session = await widget.startSession(chatbot, {
        renew: body.renew,
        context: body.context,
        locale: body.locale,
      });
      request.log.info(
        { chatbotId: chatbot.id, renewed: !!body.renew, identity: !!signed },
        `widget session opened${body.renew ? ' (renewed)' : ''}${signed ? ' for a signed identity' : ''}`,
      );
      if (!signed) return session;
      // The host page vouches for its signed-in user: the session continues as that verified visitor,
      // for as long as the secret that signed the claim is the chatbot's.
      const chatUser = await identity.bind(chatbot.id, signed.email, body.identity!.name, session.visitor.id);
      return widget.sessionFor(chatbot, chatUser, signed.secretId);
    },
  );

  // ---- WebSocket ------------------------------------------------------------------------------

  app.get(
    '/api/widget/ws',
    {
      websocket: true,
      config: {
        access: PUBLIC,
        raw: true,
        rateLimit: { max: app.config.realtime.connectsPerMinute, timeWindow: '1 minute' },
      },
      // Authenticated before the upgrade when the token comes as a subprotocol; the outcome is kept
      // for the handler, which closes a refused socket with the protocol's code and reason.
      preValidation: async (request) => {
        const token = protocolToken(request);
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

  // The team's live stream shares the rate limit and the socket limits.
  await teamStream(app);

  // ---- Server-Sent Events fallback --------------------------------------------------------------

  const sessionOf = async (request: FastifyRequest) => {
    const token = bearer(request);
    if (!token) throw sessionNotValid('send Authorization: Bearer <session token>');
    const session = await widget.authenticate(token);
    if (!originAllowed(request.headers.origin, allowedDomainsOf(session.chatbot.settings))) throw originNotAllowed();
    return session;
  };

  // Open streams are ended like the sockets when the server closes (1001): its close waits for
  // every response, so one stream left open would hold a restart until the process is killed.
  const streams = new Set<() => void>();
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    for (const goAway of streams) goAway();
  });

  app.post(
    '/api/widget/sse',
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
      config: {
        access: PUBLIC,
        raw: true,
        rateLimit: { max: app.config.realtime.connectsPerMinute, timeWindow: '1 minute' },
      },
    },
    async (request, reply) => {
      const session = await sessionOf(request);
      const releaseIp = await gateway.admit('ip', request.ip);
      if (!releaseIp)
        throw new AppError('RATE_LIMITED', 'Too many streams from this address', {
          hint: 'Close other tabs or try again later',
        });
      const releaseVisitor = await gateway.admit('visitor', session.visitor.id);
      if (!releaseVisitor) {
        releaseIp();
        throw new AppError('RATE_LIMITED', 'Too many streams for this visitor', {
          hint: 'Close other tabs or try again later',
        });
      }
      const res = reply.raw;
      reply.hijack();
      res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
      });
      let ended = false;
      const counted = app.metrics?.connectionOpened('visitor_sse');
      const end = () => {
        if (ended) return;
        ended = true;
        counted?.();
        streams.delete(goAway);
        clearInterval(heartbeat);
        connection.dispose();
        releaseIp();
        releaseVisitor();
        res.end();
      };
      const closeStream = (code: number, reason: string) => {
        if (!ended) res.write(`event: close\ndata: ${JSON.stringify({ code, reason })}\n\n`);
        end();
      };
      const goAway = () => closeStream(CLOSE.goingAway, 'server restarting: reconnect and resume');
      const connection = new VisitorConnection(
        app.connections.visitor,
        session,
        { ip: request.ip, origin: request.headers.origin },
        {
          send(frame: ServerFrame) {
            if (ended) return;
            if (res.writableLength > gateway.limits.bufferLimitBytes) {
              res.write(
                `event: close\ndata: ${JSON.stringify({ code: CLOSE.slowConsumer, reason: 'reader too slow: reconnect and resume' })}\n\n`,
              );
              return end();
            }
            res.write(`data: ${JSON.stringify(frame)}\n\n`);
          },
          close: closeStream,
          room: () =>
            roomIn(
              () => res.writableLength,
              () => !ended,
              gateway,
              () => {
                res.write(
                  `event: close\ndata: ${JSON.stringify({ code: CLOSE.slowConsumer, reason: 'reader too slow: reconnect and resume' })}\n\n`,
                );
                end();
              },
            ),
        },
      );
      // A comment line keeps proxies from timing the stream out.
      const heartbeat = setInterval(() => {
        res.write(': ping\n\n');
        connection.beat();
      }, gateway.limits.heartbeatMs);
      // The response's 'close' tells when the client goes: the request's was emitted once its body was read.
      res.on('close', end);
      // Gone while its slots were counted (they await Redis): 'close' has already been emitted.
      if (request.socket.destroyed) return end();
      if (closing) return goAway();
      streams.add(goAway);
      await connection.handle(request.body as never);
    },
  );

  // The socket's frame rate: per session as per connection, and per address as for all the
  // sockets one address may hold. A visitor's frames do not count against others behind the same
  // address (an office whose proxy strips the upgrade is this fallback's typical user).
  app.post(
    '/api/widget/frames',
    {
      bodyLimit: LIMITS.maxPayloadBytes,
      preValidation: framesPerIp,
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
      const session = await sessionOf(request);
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
