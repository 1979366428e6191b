/**
 * CORS for every page, preflights included: each route checks the page's origin against its
 * chatbot's allowed domains itself and refuses with 403 ORIGIN_NOT_ALLOWED, and these headers
 * let the page read that refusal (the widget tells the site's developer why) instead of a CORS
 * failure. Nothing else is answered to a page outside the allowed domains.
 *
 * Not @fastify/cors: it registers a catch-all `OPTIONS *` route, which would answer preflights of
 * paths that do not exist and turn their 404 into 405, and declares no access for the access hook.
 */
import type { FastifyInstance } from 'fastify';
import { PUBLIC } from './schemas.js';

/**
 * Adds the hook to `app` (the widget's scope) and answers the preflights of `urls`; `credentialed`
 * is the one route a page asks with credentials.
 */
export function allowEveryPage(app: FastifyInstance, urls: string[], credentialed: string) {
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin) return;
    reply.header('vary', 'Origin');
    reply.header('access-control-allow-origin', origin);
    // widget.js asks for the config with credentials so the request rides the connection
    // widget.js came on (browsers keep uncredentialed requests on other connections: a second TCP
    // and TLS handshake before the bubble). No cookie is read; the answer is the same for all.
    if (request.routeOptions.url === credentialed) reply.header('access-control-allow-credentials', 'true');
    if (request.method === 'OPTIONS') {
      reply
        .header('access-control-allow-methods', 'GET, POST')
        .header('access-control-allow-headers', 'authorization, content-type, x-request-id')
        .header('access-control-max-age', '600');
      return reply.code(204).send();
    }
  });
  // The preflights the hook above answers.
  for (const url of urls) {
    app.options(url, { schema: { hide: true }, config: { access: PUBLIC, raw: true } }, async (_request, reply) =>
      reply.code(204).send(),
    );
  }
}
