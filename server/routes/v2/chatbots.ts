import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { chatbotSettingsSchema, settingsPatchSchema } from '../../../shared/settings.js';
import { paged } from '../../http/envelope.js';
import { endpoint } from '../../http/route.js';
import { nullable, one, page } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery, pageQuery, Time } from './schemas.js';

export const CreateChatbot = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    settings: Type.Optional(settingsPatchSchema),
  },
  { additionalProperties: false },
);

export const ChatbotSchema = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    description: Type.String(),
    createdById: Type.String(),
    createdByEmail: nullable(Type.String()),
    createdAt: Time,
    updatedAt: Time,
    settings: chatbotSettingsSchema,
  },
  { title: 'Chatbot' },
);

export default async function chatbots(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { chatbots } = app.services;
  const tags = ['chatbots'];

  app.post(
    '/chatbots',
    endpoint({
      access: { scopes: ['chatbots:write'] },
      status: 201,
      data: one('chatbot', ChatbotSchema),
      tags,
      summary: 'Create a chatbot',
      description:
        'Optional `settings` take the same sections as PATCH /chatbots/{chatbotId}/settings. Past the plan limit: 403 CHATBOT_LIMIT_REACHED.',
      body: CreateChatbot,
    }),
    async (request) => ({ chatbot: await chatbots.create(request.auth, request.body) }),
  );

  app.get(
    '/chatbots',
    endpoint({
      access: { scopes: ['chatbots:read'] },
      data: page('chatbots', ChatbotSchema),
      tags,
      summary: 'Chatbots the caller can access, most recently added first',
      querystring: pageQuery(50, 100),
    }),
    async (request) => {
      const { limit, cursor } = request.query;
      const result = await chatbots.list(request.auth, limit, cursor);
      return paged('chatbots', result.chatbots, limit, result.nextCursor);
    },
  );

  app.get(
    '/chatbots/:chatbotId',
    endpoint({
      access: { scopes: ['chatbots:read'] },
      data: one('chatbot', ChatbotSchema),
      tags,
      summary: 'A chatbot with every settings field',
      params: ChatbotParams,
    }),
    async (request) => ({ chatbot: await chatbots.get(request.auth, request.params.chatbotId) }),
  );

  app.delete(
    '/chatbots/:chatbotId',
    endpoint({
      access: { scopes: ['chatbots:delete'] },
      data: one('deletedChatbot', ChatbotSchema),
      tags,
      summary: 'Delete a chatbot and everything in it (needs ?confirm=true)',
      params: ChatbotParams,
      querystring: ConfirmQuery,
    }),
    async (request) => ({
      deletedChatbot: await chatbots.delete(request.auth, request.params.chatbotId, request.query.confirm === true),
    }),
  );
}
