/** Conversation starters (v0 quick prompts): the buttons shown before the first message. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { endpoint } from '../../http/route.js';
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

  app.get('/chatbots/:chatbotId/starters', endpoint({
    access: { scopes: ['starters:read'] }, data: all('starters', StarterSchema),
    tags, summary: "The chatbot's conversation starters, by position", description: 'Every starter (not paginated; at most 100 per chatbot).', params: ChatbotParams,
  }), async (request) => ({ starters: await service.list(request.auth, request.params.chatbotId) }));

  app.post('/chatbots/:chatbotId/starters', endpoint({
    access: { scopes: ['starters:write'] }, status: 201, data: one('starter', StarterSchema),
    tags, summary: 'Add a conversation starter',
    description: 'Without `position` it goes after the last one. A chatbot holds at most 100 starters (400 VALIDATION_FAILED beyond).',
    params: ChatbotParams, body: CreateStarter,
  }), async (request) => ({ starter: await service.create(request.auth, request.params.chatbotId, request.body) }));

  app.get('/chatbots/:chatbotId/starters/:starterId', endpoint({
    access: { scopes: ['starters:read'] }, data: one('starter', StarterSchema),
    tags, summary: 'One conversation starter', description: NOT_FOUND_NOTE, params: Params,
  }), async (request) => ({ starter: await service.get(request.auth, request.params.chatbotId, request.params.starterId) }));

  app.patch('/chatbots/:chatbotId/starters/:starterId', endpoint({
    access: { scopes: ['starters:write'] }, data: one('starter', StarterSchema),
    tags, summary: 'Change a conversation starter', description: 'Send only the fields to change; `link: null` removes the link.', params: Params, body: PatchStarter,
  }), async (request) => ({ starter: await service.update(request.auth, request.params.chatbotId, request.params.starterId, request.body) }));

  app.delete('/chatbots/:chatbotId/starters/:starterId', endpoint({
    access: { scopes: ['starters:delete'] }, data: one('deletedStarter', StarterSchema),
    tags, summary: 'Delete a conversation starter', description: CONFIRM_NOTE, params: Params, querystring: ConfirmQuery,
  }), async (request) => ({
    deletedStarter: await service.delete(request.auth, request.params.chatbotId, request.params.starterId, request.query.confirm === true),
  }));
}
