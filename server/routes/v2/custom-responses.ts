/**
 * Custom responses: a question and the answer given verbatim when a visitor asks it.
 * Scopes: the spec has no custom-responses scope; they steer what the assistant says, like
 * instructions, so they take instructions:read / write / delete.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { paged } from '../../http/envelope.js';
import { CONFIRM_NOTE, CustomResponseSchema, itemParams, NOT_FOUND_NOTE, one, page, Text } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery, pageQuery } from './schemas.js';

const SCOPE_NOTE = 'Custom responses take the instructions scopes (the spec names no scope of their own).';
const fields = {
  question: Text(2000, 'What a visitor asks'),
  answer: Text(8000, 'Given verbatim instead of a generated answer'),
};
const CreateCustomResponse = Type.Object(fields, { additionalProperties: false });
const PatchCustomResponse = Type.Object(
  { question: Type.Optional(fields.question), answer: Type.Optional(fields.answer) },
  { additionalProperties: false, minProperties: 1 },
);
const Params = itemParams('customResponseId');

export default async function customResponses(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.resources.customResponses;
  const tags = ['custom-responses'];

  app.get('/chatbots/:chatbotId/custom-responses', {
    schema: { tags, summary: "The chatbot's custom responses, newest first", description: SCOPE_NOTE, params: ChatbotParams, querystring: pageQuery(50, 100) },
    config: { access: { scopes: ['instructions:read'] }, response: page('customResponses', CustomResponseSchema) },
  }, async (request) => {
    const { limit, cursor } = request.query;
    const result = await service.list(request.auth, request.params.chatbotId, limit, cursor);
    return paged('customResponses', result.customResponses, limit, result.nextCursor);
  });

  app.post('/chatbots/:chatbotId/custom-responses', {
    schema: { tags, summary: 'Add a custom response', description: `When a visitor asks the question, the answer is given verbatim. ${SCOPE_NOTE}`, params: ChatbotParams, body: CreateCustomResponse },
    config: { access: { scopes: ['instructions:write'] }, successStatus: 201, response: one('customResponse', CustomResponseSchema) },
  }, async (request, reply) => {
    const customResponse = await service.create(request.auth, request.params.chatbotId, request.body);
    reply.code(201);
    return { customResponse };
  });

  app.get('/chatbots/:chatbotId/custom-responses/:customResponseId', {
    schema: { tags, summary: 'One custom response', description: `${NOT_FOUND_NOTE} ${SCOPE_NOTE}`, params: Params },
    config: { access: { scopes: ['instructions:read'] }, response: one('customResponse', CustomResponseSchema) },
  }, async (request) => ({ customResponse: await service.get(request.auth, request.params.chatbotId, request.params.customResponseId) }));

  app.patch('/chatbots/:chatbotId/custom-responses/:customResponseId', {
    schema: { tags, summary: 'Change a custom response', description: `Send only the fields to change. ${SCOPE_NOTE}`, params: Params, body: PatchCustomResponse },
    config: { access: { scopes: ['instructions:write'] }, response: one('customResponse', CustomResponseSchema) },
  }, async (request) => ({
    customResponse: await service.update(request.auth, request.params.chatbotId, request.params.customResponseId, request.body),
  }));

  app.delete('/chatbots/:chatbotId/custom-responses/:customResponseId', {
    schema: { tags, summary: 'Delete a custom response', description: `${CONFIRM_NOTE} ${SCOPE_NOTE}`, params: Params, querystring: ConfirmQuery },
    config: { access: { scopes: ['instructions:delete'] }, response: one('deletedCustomResponse', CustomResponseSchema) },
  }, async (request) => ({
    deletedCustomResponse: await service.delete(request.auth, request.params.chatbotId, request.params.customResponseId, request.query.confirm === true),
  }));
}
