import type { FastifyInstance } from 'fastify';

export default async function me(app: FastifyInstance) {
  app.get(
    '/me',
    {
      schema: { tags: ['account'], summary: "The token's user, account, effective scopes and chatbot restriction" },
      config: { access: { scopes: [], whileInactive: true } },
    },
    async (request) => app.services.accounts.me(request.auth),
  );
}
