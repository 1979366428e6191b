/**
 * Tags label conversations (PATCH /conversations/{threadId} sets them). Scopes follow the
 * conversations they label: conversations:read / write, and conversations:delete for DELETE
 * (spec 4.1).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { all, CONFIRM_NOTE, itemParams, NOT_FOUND_NOTE, one, TagSchema, Text } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery } from './schemas.js';

const fields = {
  name: Text(50, 'Unique within the chatbot, without regard to case'),
  color: Type.Optional(Type.Union([Type.String({ pattern: '^#(?:[0-9a-fA-F]{3}){1,2}$', description: 'CSS hex colour, e.g. #1f6feb' }), Type.Null()])),
};
const CreateTag = Type.Object(fields, { additionalProperties: false });
const PatchTag = Type.Object({ name: Type.Optional(fields.name), color: fields.color }, { additionalProperties: false, minProperties: 1 });
const Params = itemParams('tagId');
const DUPLICATE = 'A name already used in the chatbot (whatever its case) is 400 VALIDATION_FAILED on `name`.';

export default async function tagRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.resources.tags;
  const tags = ['tags'];

  app.get('/chatbots/:chatbotId/tags', {
    schema: { tags, summary: "The chatbot's tags, by name, with how many conversations carry each", description: 'Not paginated; at most 200 per chatbot.', params: ChatbotParams },
    config: { access: { scopes: ['conversations:read'] }, response: all('tags', TagSchema) },
  }, async (request) => ({ tags: await service.list(request.auth, request.params.chatbotId) }));

  app.post('/chatbots/:chatbotId/tags', {
    schema: { tags, summary: 'Add a tag', description: `${DUPLICATE} A chatbot holds at most 200 tags.`, params: ChatbotParams, body: CreateTag },
    config: { access: { scopes: ['conversations:write'] }, successStatus: 201, response: one('tag', TagSchema) },
  }, async (request, reply) => {
    const tag = await service.create(request.auth, request.params.chatbotId, request.body);
    reply.code(201);
    return { tag };
  });

  app.get('/chatbots/:chatbotId/tags/:tagId', {
    schema: { tags, summary: 'One tag', description: NOT_FOUND_NOTE, params: Params },
    config: { access: { scopes: ['conversations:read'] }, response: one('tag', TagSchema) },
  }, async (request) => ({ tag: await service.get(request.auth, request.params.chatbotId, request.params.tagId) }));

  app.patch('/chatbots/:chatbotId/tags/:tagId', {
    schema: { tags, summary: 'Rename or recolour a tag', description: `Conversations keep it. ${DUPLICATE}`, params: Params, body: PatchTag },
    config: { access: { scopes: ['conversations:write'] }, response: one('tag', TagSchema) },
  }, async (request) => ({ tag: await service.update(request.auth, request.params.chatbotId, request.params.tagId, request.body) }));

  app.delete('/chatbots/:chatbotId/tags/:tagId', {
    schema: { tags, summary: 'Delete a tag; it is taken off every conversation', description: CONFIRM_NOTE, params: Params, querystring: ConfirmQuery },
    config: { access: { scopes: ['conversations:delete'] }, response: one('deletedTag', TagSchema) },
  }, async (request) => ({
    deletedTag: await service.delete(request.auth, request.params.chatbotId, request.params.tagId, request.query.confirm === true),
  }));
}
