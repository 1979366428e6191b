/** Conversation starters (v0 quick prompts): the buttons shown before the first message. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { authOf } from '../../http/access.js';
import { all, CONFIRM_NOTE, itemParams, Link, NOT_FOUND_NOTE, one, Position, StarterSchema, Text } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery } from './schemas.js';

const fields = {
  title: Text(200, 'Button text'),
  description: Text(2000, 'The message sent when a visitor clicks it'),
  link: Type.Optional(Link),
  position: Type.Optional(Position),
};
const CreateStarter = Type.Object(fields, { additionalProperties: false });
const PatchStarter = Type.Object(
  { title: Type.Optional(fields.title), description: Type.Optional(fields.description), link: fields.link, position: fields.position },
  { additionalProperties: false, minProperties: 1 },
);
const Params = itemParams('starterId');

export default async function starters(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.resources.starters;
  const tags = ['starters'];

  app.get('/chatbots/:chatbotId/starters', {
    schema: { tags, summary: "The chatbot's conversation starters, by position", description: 'Every starter (not paginated; at most 100 per chatbot).', params: ChatbotParams },
    config: { access: { scopes: ['starters:read'] }, response: all('starters', StarterSchema) },
  }, async (request) => ({ starters: await service.list(authOf(request), request.params.chatbotId) }));

  app.post('/chatbots/:chatbotId/starters', {
    schema: {
      tags, summary: 'Add a conversation starter',
      description: 'Without `position` it goes after the last one. A chatbot holds at most 100 starters (400 VALIDATION_FAILED beyond).',
      params: ChatbotParams, body: CreateStarter,
    },
    config: { access: { scopes: ['starters:write'] }, successStatus: 201, response: one('starter', StarterSchema) },
  }, async (request, reply) => {
    const starter = await service.create(authOf(request), request.params.chatbotId, request.body);
    reply.code(201);
    return { starter };
  });

  app.get('/chatbots/:chatbotId/starters/:starterId', {
    schema: { tags, summary: 'One conversation starter', description: NOT_FOUND_NOTE, params: Params },
    config: { access: { scopes: ['starters:read'] }, response: one('starter', StarterSchema) },
  }, async (request) => ({ starter: await service.get(authOf(request), request.params.chatbotId, request.params.starterId) }));

  app.patch('/chatbots/:chatbotId/starters/:starterId', {
    schema: { tags, summary: 'Change a conversation starter', description: 'Send only the fields to change; `link: null` removes the link.', params: Params, body: PatchStarter },
    config: { access: { scopes: ['starters:write'] }, response: one('starter', StarterSchema) },
  }, async (request) => ({ starter: await service.update(authOf(request), request.params.chatbotId, request.params.starterId, request.body) }));

  app.delete('/chatbots/:chatbotId/starters/:starterId', {
    schema: { tags, summary: 'Delete a conversation starter', description: CONFIRM_NOTE, params: Params, querystring: ConfirmQuery },
    config: { access: { scopes: ['starters:delete'] }, response: one('deletedStarter', StarterSchema) },
  }, async (request) => ({
    deletedStarter: await service.delete(authOf(request), request.params.chatbotId, request.params.starterId, request.query.confirm === true),
  }));
}
