/** Personas: who the assistant speaks as; one is active (`/use`). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { all, CONFIRM_NOTE, itemParams, NOT_FOUND_NOTE, one, PersonaSchema, Text } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery } from './schemas.js';

const fields = {
  title: Text(200),
  description: Type.Optional(Type.String({ maxLength: 2000, description: 'For people; not sent to the model (default empty)' })),
  instructions: Text(8000, 'Who the assistant is and how it speaks; given to the language model'),
};
const CreatePersona = Type.Object(fields, { additionalProperties: false });
const PatchPersona = Type.Object(
  { ...fields, title: Type.Optional(fields.title), instructions: Type.Optional(fields.instructions) },
  { additionalProperties: false, minProperties: 1 },
);
const Params = itemParams('personaId');

export default async function personas(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.resources.personas;
  const tags = ['personas'];

  app.get('/chatbots/:chatbotId/personas', {
    schema: { tags, summary: "The chatbot's personas, newest first", description: '`active` marks the one in use (settings.personaId). Not paginated; at most 100 per chatbot.', params: ChatbotParams },
    config: { access: { scopes: ['personas:read'] }, response: all('personas', PersonaSchema) },
  }, async (request) => ({ personas: await service.list(request.auth, request.params.chatbotId) }));

  app.post('/chatbots/:chatbotId/personas', {
    schema: {
      tags, summary: 'Add a persona',
      description: 'It is not active until POST .../{personaId}/use. A chatbot holds at most 100 personas (400 VALIDATION_FAILED beyond).',
      params: ChatbotParams, body: CreatePersona,
    },
    config: { access: { scopes: ['personas:write'] }, successStatus: 201, response: one('persona', PersonaSchema) },
  }, async (request, reply) => {
    const persona = await service.create(request.auth, request.params.chatbotId, request.body);
    reply.code(201);
    return { persona };
  });

  app.get('/chatbots/:chatbotId/personas/:personaId', {
    schema: { tags, summary: 'One persona', description: NOT_FOUND_NOTE, params: Params },
    config: { access: { scopes: ['personas:read'] }, response: one('persona', PersonaSchema) },
  }, async (request) => ({ persona: await service.get(request.auth, request.params.chatbotId, request.params.personaId) }));

  app.patch('/chatbots/:chatbotId/personas/:personaId', {
    schema: { tags, summary: 'Change a persona', description: 'Send only the fields to change. Changes to the active one apply from the next answer.', params: Params, body: PatchPersona },
    config: { access: { scopes: ['personas:write'] }, response: one('persona', PersonaSchema) },
  }, async (request) => ({ persona: await service.update(request.auth, request.params.chatbotId, request.params.personaId, request.body) }));

  app.post('/chatbots/:chatbotId/personas/:personaId/use', {
    schema: { tags, summary: 'Make it the active persona', description: 'Sets the read-only setting `personaId`; the answer engine speaks as it from the next answer.', params: Params },
    config: { access: { scopes: ['personas:write'] }, response: one('persona', PersonaSchema) },
  }, async (request) => ({ persona: await service.use(request.auth, request.params.chatbotId, request.params.personaId) }));

  app.delete('/chatbots/:chatbotId/personas/:personaId', {
    schema: { tags, summary: 'Delete a persona', description: `${CONFIRM_NOTE} Deleting the active one clears settings.personaId.`, params: Params, querystring: ConfirmQuery },
    config: { access: { scopes: ['personas:delete'] }, response: one('deletedPersona', PersonaSchema) },
  }, async (request) => ({
    deletedPersona: await service.delete(request.auth, request.params.chatbotId, request.params.personaId, request.query.confirm === true),
  }));
}
