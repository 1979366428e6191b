import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { endpoint } from '../../http/route.js';

export default async function health(app: FastifyInstance) {
  app.get(
    '/health',
    endpoint({
      access: { public: true },
      data: Type.Object({ status: Type.String(), database: Type.String(), time: Type.String() }),
      tags: ['health'],
      summary: 'Reachability check (no token)',
    }),
    async () => {
      // Reachable means able to serve: the database answers too (a failure is a logged 500).
      await app.store.ping();
      return { status: 'ok', database: 'ok', time: new Date().toISOString() };
    },
  );
}
