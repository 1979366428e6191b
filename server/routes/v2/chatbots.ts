import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { settingsPatchSchema } from '../../../shared/settings.js';
import { paged } from '../../http/envelope.js';
import { ChatbotParams, ConfirmQuery, pageQuery } from './schemas.js';

const CreateChatbot = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    settings: Type.Optional(settingsPatchSchema),
  },
  { additionalProperties: false },
);

export default async function chatbots(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { chatbots } = app.services;

  app.post(
    '/chatbots',
    {
      schema: {
        tags: ['chatbots'],
        summary: 'Create a chatbot',
        description: 'Optional `settings` take the same sections as PATCH /chatbots/{chatbotId}/settings. Past the plan limit: 403 CHATBOT_LIMIT_REACHED.',
        body: CreateChatbot,
      },
      config: { access: { scopes: ['chatbots:write'] }, successStatus: 201 },
    },
    async (request, reply) => {
      const chatbot = await chatbots.create(request.auth, request.body);
      reply.code(201);
      return { chatbot };
    },
  );

  app.get(
    '/chatbots',
    {
      schema: {
        tags: ['chatbots'],
        summary: 'Chatbots the caller can access, most recently added first',
        querystring: pageQuery(50, 100),
      },
      config: { access: { scopes: ['chatbots:read'] } },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const page = await chatbots.list(request.auth, limit, cursor);
      return paged('chatbots', page.chatbots, limit, page.nextCursor);
    },
  );

  app.get(
    '/chatbots/:chatbotId',
    {
      schema: { tags: ['chatbots'], summary: 'A chatbot with every settings field', params: ChatbotParams },
      config: { access: { scopes: ['chatbots:read'] } },
    },
    async (request) => ({ chatbot: await chatbots.get(request.auth, request.params.chatbotId) }),
  );

  app.delete(
    '/chatbots/:chatbotId',
    {
      schema: {
        tags: ['chatbots'],
        summary: 'Delete a chatbot and everything in it (needs ?confirm=true)',
        params: ChatbotParams,
        querystring: ConfirmQuery,
      },
      config: { access: { scopes: ['chatbots:delete'] } },
    },
    async (request) => ({
      deletedChatbot: await chatbots.delete(request.auth, request.params.chatbotId, request.query.confirm === true),
    }),
  );
}
