import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ChatbotParams } from './schemas.js';
import { endpoint } from '../../http/route.js';
import { nullable, one } from './resource-schemas.js';

const Count = Type.Integer();
const Analytics = Type.Object({
  chatbotId: Type.String(),
  range: Type.Object({ from: Type.String(), to: Type.String() }),
  conversations: Count,
  resolvedConversations: Count,
  messages: Type.Object({ total: Count, visitor: Count, ai: Count, agent: Count }),
  escalations: Count,
  takeOvers: Count,
  handBacks: Count,
  resolutions: Count,
  leads: Count,
  feedback: Type.Object({ up: Count, down: Count }),
  unansweredQuestions: Count,
  satisfaction: nullable(
    Type.Number({ description: 'Share of rated answers rated up (0 to 1, three decimals); null when none was rated' }),
  ),
  topSources: Type.Array(
    Type.Object({ documentId: Type.String(), title: Type.String(), url: nullable(Type.String()), citations: Count }),
  ),
});

export default async function analytics(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/chatbots/:chatbotId/analytics',
    endpoint({
      access: { scopes: ['chatbots:read'] },
      data: one('analytics', Analytics),
      tags: ['analytics'],
      summary: "A chatbot's figures over a date range (default: the last 30 days, at most 366)",
      description:
        'Conversations, messages by author, escalations, take-overs, hand-backs, resolutions, leads, answer feedback and satisfaction, unanswered questions and the 10 most cited sources, all in the range. 403 ANALYTICS_LOCKED when the plan lacks analytics.',
      params: ChatbotParams,
      querystring: Type.Object(
        {
          from: Type.Optional(Type.String({ format: 'date-time' })),
          to: Type.Optional(Type.String({ format: 'date-time' })),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => ({
      analytics: await app.services.analytics.get(request.auth, request.params.chatbotId, request.query),
    }),
  );
}
