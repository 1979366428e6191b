/**
 * The legacy API: v0 at /api/v0, the v1 links route at /api/v1, and their OpenAPI document at
 * /openapi.yaml. Thin mappings onto the services v2 uses (README "Legacy API (v0/v1)").
 */
import type { FastifyInstance } from 'fastify';
import { endpoint } from '../../http/route.js';
import v1Links from '../v1/links.js';
import chatbots from './chatbots.js';
import icons from './icons.js';
import knowledge from './knowledge.js';
import prompts from './prompts.js';
import threads from './threads.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The legacy document's generator (a second @fastify/swagger instance, see http/openapi.ts). */
    legacySwagger(opts?: { yaml?: boolean }): unknown;
  }
}

async function v0Routes(app: FastifyInstance) {
  for (const routes of [chatbots, icons, knowledge, threads, prompts]) await app.register(routes);
}

export async function legacyRoutes(app: FastifyInstance) {
  await app.register(v0Routes, { prefix: '/api/v0' });
  await app.register(v1Links, { prefix: '/api/v1' });
  app.get('/openapi.yaml', endpoint({ access: { public: true }, raw: true, hide: true }), async (_request, reply) =>
    reply.type('application/yaml; charset=utf-8').send(app.legacySwagger({ yaml: true })),
  );
  app.get('/openapi.json', endpoint({ access: { public: true }, raw: true, hide: true }), async () =>
    app.legacySwagger(),
  );
}
