import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ChatbotParams } from './schemas.js';

export default async function analytics(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/chatbots/:chatbotId/analytics',
    {
      schema: {
        tags: ['analytics'],
        summary: "A chatbot's figures over a date range (default: the last 30 days, at most 366)",
        description: 'Conversations, messages by author, escalations, take-overs, hand-backs, resolutions, leads, answer feedback and satisfaction, unanswered questions and the 10 most cited sources, all in the range. 403 ANALYTICS_LOCKED when the plan lacks analytics.',
        params: ChatbotParams,
        querystring: Type.Object(
          { from: Type.Optional(Type.String({ format: 'date-time' })), to: Type.Optional(Type.String({ format: 'date-time' })) },
          { additionalProperties: false },
        ),
      },
      config: { access: { scopes: ['chatbots:read'] } },
    },
    async (request) => ({ analytics: await app.services.analytics.get(request.auth, request.params.chatbotId, request.query) }),
  );
}
