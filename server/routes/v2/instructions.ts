/** Instructions (v0 prompts): text and temperature for the language model; one is active (`/use`). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { all, CONFIRM_NOTE, InstructionSchema, itemParams, NOT_FOUND_NOTE, one, Text } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery } from './schemas.js';

const fields = {
  title: Text(200),
  description: Type.Optional(Type.String({ maxLength: 2000, description: 'For people; not sent to the model (default empty)' })),
  instructions: Text(8000, 'Given to the language model'),
  temperature: Type.Optional(
    Type.Union([Type.Number({ minimum: 0, maximum: 1, multipleOf: 0.01 }), Type.Null()], {
      description: 'Creativity level: 0 focused to 1 creative, step 0.01. null (the default): the chatbot creativity setting decides',
    }),
  ),
};
const CreateInstruction = Type.Object(fields, { additionalProperties: false });
const PatchInstruction = Type.Object(
  { ...fields, title: Type.Optional(fields.title), instructions: Type.Optional(fields.instructions) },
  { additionalProperties: false, minProperties: 1 },
);
const Params = itemParams('instructionId');

export default async function instructions(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.resources.instructions;
  const tags = ['instructions'];

  app.get('/chatbots/:chatbotId/instructions', {
    schema: { tags, summary: "The chatbot's instructions, newest first", description: '`active` marks the one in use (settings.promptId). Not paginated; at most 100 per chatbot.', params: ChatbotParams },
    config: { access: { scopes: ['instructions:read'] }, response: all('instructions', InstructionSchema) },
  }, async (request) => ({ instructions: await service.list(request.auth, request.params.chatbotId) }));

  app.post('/chatbots/:chatbotId/instructions', {
    schema: {
      tags, summary: 'Add an instruction',
      description: 'It is not active until POST .../{instructionId}/use. A chatbot holds at most 100 instructions (400 VALIDATION_FAILED beyond).',
      params: ChatbotParams, body: CreateInstruction,
    },
    config: { access: { scopes: ['instructions:write'] }, successStatus: 201, response: one('instruction', InstructionSchema) },
  }, async (request, reply) => {
    const instruction = await service.create(request.auth, request.params.chatbotId, request.body);
    reply.code(201);
    return { instruction };
  });

  app.get('/chatbots/:chatbotId/instructions/:instructionId', {
    schema: { tags, summary: 'One instruction', description: NOT_FOUND_NOTE, params: Params },
    config: { access: { scopes: ['instructions:read'] }, response: one('instruction', InstructionSchema) },
  }, async (request) => ({ instruction: await service.get(request.auth, request.params.chatbotId, request.params.instructionId) }));

  app.patch('/chatbots/:chatbotId/instructions/:instructionId', {
    schema: { tags, summary: 'Change an instruction', description: 'Send only the fields to change. Changes to the active one apply from the next answer.', params: Params, body: PatchInstruction },
    config: { access: { scopes: ['instructions:write'] }, response: one('instruction', InstructionSchema) },
  }, async (request) => ({ instruction: await service.update(request.auth, request.params.chatbotId, request.params.instructionId, request.body) }));

  app.post('/chatbots/:chatbotId/instructions/:instructionId/use', {
    schema: { tags, summary: 'Make it the active instruction', description: 'Sets the read-only setting `promptId`; the answer engine uses it (and its temperature) from the next answer.', params: Params },
    config: { access: { scopes: ['instructions:write'] }, response: one('instruction', InstructionSchema) },
  }, async (request) => ({ instruction: await service.use(request.auth, request.params.chatbotId, request.params.instructionId) }));

  app.delete('/chatbots/:chatbotId/instructions/:instructionId', {
    schema: { tags, summary: 'Delete an instruction', description: `${CONFIRM_NOTE} Deleting the active one clears settings.promptId.`, params: Params, querystring: ConfirmQuery },
    config: { access: { scopes: ['instructions:delete'] }, response: one('deletedInstruction', InstructionSchema) },
  }, async (request) => ({
    deletedInstruction: await service.delete(request.auth, request.params.chatbotId, request.params.instructionId, request.query.confirm === true),
  }));
}
