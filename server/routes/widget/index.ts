/**
 * The public, visitor-facing entrance (no API token), one file per door: the widget's
 * configuration (`config.ts`), visitor sessions (`session.ts`), the WebSocket (`socket.ts`), and
 * its fallback for networks that strip the upgrade: the server frames as Server-Sent Events
 * (`sse.ts`) and the client frames by POST (`frames.ts`). Every route is rate-limited per IP and
 * answers only pages of the chatbot's allowed domains (`cors.ts`, and `Origin` on the socket).
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { rateLimitOptions } from '../rate-limit.js';
import config, { CONFIG_URL } from './config.js';
import { allowEveryPage } from './cors.js';
import frames, { FRAMES_URL } from './frames.js';
import session, { SESSION_URL } from './session.js';
import socket from './socket.js';
import sse, { SSE_URL } from './sse.js';

export async function widgetRoutes(app: FastifyInstance) {
  // The fallback's frames count per session and per address. A request runs one limit of each
  // registration, so the per-address one has a registration of its own, in a scope made before
  // the routes' (a scope that inherits `rateLimit` gets the routes' registration instead).
  const { framesPerWindow, rateWindowMs, maxSocketsPerIp } = app.config.realtime;
  let framesPerIp!: ReturnType<FastifyInstance['rateLimit']>;
  await app.register(async (scope) => {
    await scope.register(rateLimit, rateLimitOptions(scope, 'parley:rl:frames-ip:'));
    framesPerIp = scope.rateLimit({ max: framesPerWindow * maxSocketsPerIp, timeWindow: rateWindowMs });
  });
  await app.register(rateLimit, rateLimitOptions(app, 'parley:rl:'));
  allowEveryPage(app, [CONFIG_URL, SESSION_URL, SSE_URL, FRAMES_URL], CONFIG_URL);

  await app.register(config);
  await app.register(session);
  await app.register(socket);
  await app.register(sse);
  await app.register(frames, { framesPerIp });
}
