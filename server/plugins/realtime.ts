/**
 * The realtime hub and the visitor gateway, as one plugin: an in-process hub by default, Redis
 * pub/sub when REDIS_URL is set (several instances), and @fastify/websocket with the protocol's
 * payload limit. Closing the app closes the sockets, then the hub.
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { CLOSE, LIMITS, WS_SUBPROTOCOL } from '../../shared/protocol.js';
import { Gateway } from '../realtime/gateway.js';
import { InProcessHub, type RealtimeHub } from '../realtime/hub.js';
import { LocalSlots, type Slots } from '../realtime/slots.js';
import type { TeamConnectionServices } from '../realtime/team-connection.js';
import type { VisitorConnectionServices } from '../realtime/visitor-connection.js';

declare module 'fastify' {
  interface FastifyInstance {
    realtime: Gateway;
    /** What each kind of connection acts through (the transports build connections with them). */
    connections: { visitor: VisitorConnectionServices; team: TeamConnectionServices };
  }
}

/** Socket errors that only say the client went away mid-frame. */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

async function realtime(app: FastifyInstance) {
  const log = (err: unknown, msg: string) => app.log.error({ err }, msg);
  let hub: RealtimeHub;
  let slots: Slots = new LocalSlots();
  if (app.config.redisUrl) {
    // ioredis is loaded only when configured (bench/README.md, startup).
    const [{ RedisHub }, { RedisSlots }] = await Promise.all([
      import('../realtime/redis-hub.js'),
      import('../realtime/redis-slots.js'),
    ]);
    // Rate limits wait for Redis as long as the slots do (a third of the lease, at most 1 s), then let the request through.
    const redis = new RedisHub(
      app.config.redisUrl,
      (err) => log(err, 'realtime hub (Redis) error'),
      undefined,
      Math.min(1000, Math.floor(app.config.realtime.leaseMs / 3)),
    );
    await redis.ready();
    hub = redis;
    slots = new RedisSlots(
      redis.connection,
      app.config.realtime.leaseMs,
      (err) =>
        log(
          err,
          'realtime limits: Redis unreachable, counting answers and sockets on this instance only until it answers',
        ),
      () => app.log.info('realtime limits: Redis answers again, counting across instances'),
    );
  } else {
    hub = new InProcessHub((err) => log(err, 'realtime subscriber failed'));
  }
  const { conversations, widget, visitors, chatbots } = app.services;
  const gateway = new Gateway(
    hub,
    { changes: conversations.changes, reads: conversations.reads, widget, setPresence: visitors.setPresence },
    app.config.realtime,
    log,
    slots,
  );
  await gateway.followChatbotChanges(chatbots);
  app.decorate('realtime', gateway);
  app.decorate('connections', {
    visitor: {
      gateway,
      reads: conversations.reads,
      messages: conversations.visitors,
      accounts: visitors.accounts,
      leads: visitors.leads,
      widget,
    },
    team: { gateway, reads: conversations.reads, chatbots },
  });

  await app.register(websocket, {
    options: {
      maxPayload: LIMITS.maxPayloadBytes,
      // Only our protocol name is ever echoed: a session token offered beside it stays unspoken.
      handleProtocols: (protocols: Set<string>) => (protocols.has(WS_SUBPROTOCOL) ? WS_SUBPROTOCOL : false),
    },
    // A socket's error: ws's own protocol errors (a frame over the payload limit, bad UTF-8, a bad
    // opcode) and a client gone without a close are the client's doing, so warn, not error; ws has
    // already sent the close code (1009, 1007, 1002) before this runs.
    errorHandler(error: Error & { code?: string }, socket, request) {
      const clients =
        typeof error.code === 'string' && (error.code.startsWith('WS_ERR_') || CLIENT_GONE.has(error.code));
      if (clients)
        request.log.warn({ err: { code: error.code, message: error.message } }, `WebSocket closed: ${error.message}`);
      else request.log.error({ err: error }, 'WebSocket failed');
      socket.terminate();
    },
    // Clients see "going away" and resume (on this instance once it is back, or on another).
    preClose(this: FastifyInstance, done: () => void) {
      for (const client of this.websocketServer.clients)
        client.close(CLOSE.goingAway, 'server restarting: reconnect and resume');
      done();
    },
  });

  app.addHook('onClose', async () => {
    gateway.close();
    await slots.close();
    await hub.close();
  });
}

export default fp(realtime, { name: 'realtime', fastify: '5.x' });
