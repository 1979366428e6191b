import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { validationFailed } from '../../domain/errors.js';
import { requireFeature } from '../../domain/plans.js';
import { authOf } from '../../http/access.js';
import { ChatbotParams } from './schemas.js';

const DAY = 86_400_000;

export default async function analytics(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/chatbots/:chatbotId/analytics',
    {
      schema: {
        tags: ['analytics'],
        summary: "A chatbot's figures over a date range (default: the last 30 days)",
        description: '403 ANALYTICS_LOCKED when the plan lacks analytics.',
        params: ChatbotParams,
        querystring: Type.Object(
          { from: Type.Optional(Type.String({ format: 'date-time' })), to: Type.Optional(Type.String({ format: 'date-time' })) },
          { additionalProperties: false },
        ),
      },
      config: { access: { scopes: ['chatbots:read'] } },
    },
    async (request) => {
      const auth = authOf(request);
      const chatbot = await app.services.chatbots.reach(auth, request.params.chatbotId);
      requireFeature(auth.account, 'analytics');
      const to = request.query.to ? new Date(request.query.to) : new Date();
      const from = request.query.from ? new Date(request.query.from) : new Date(to.getTime() - 30 * DAY);
      if (from > to) throw validationFailed([{ path: ['from'], message: 'must not be after `to`' }]);
      return { analytics: { chatbotId: chatbot.id, range: { from: from.toISOString(), to: to.toISOString() } } };
    },
  );
}
