import type { FastifyInstance } from 'fastify';
import Type from 'typebox';

export default async function health(app: FastifyInstance) {
  app.get(
    '/health',
    {
      schema: { tags: ['health'], summary: 'Reachability check (no token)' },
      config: {
        access: { public: true },
        response: Type.Object({ status: Type.String(), database: Type.String(), time: Type.String() }),
      },
    },
    async () => {
      // Reachable means able to serve: the database answers too (a failure is a logged 500).
      await app.services.store.ping();
      return { status: 'ok', database: 'ok', time: new Date().toISOString() };
    },
  );
}
