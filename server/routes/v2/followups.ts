/** Follow-ups (v0 follow-up prompts): suggestions after an answer; one may be the escalation prompt. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { all, CONFIRM_NOTE, FollowupSchema, itemParams, Link, NOT_FOUND_NOTE, one, Position, Text } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery } from './schemas.js';

const ESCALATION = 'At most one follow-up of a chatbot is the escalation prompt: setting `isEscalationPrompt: true` on one sets it to false on the one that had it.';
const fields = {
  title: Text(200, 'Button text'),
  description: Text(2000, 'The message sent when a visitor clicks it'),
  link: Type.Optional(Link),
  isEscalationPrompt: Type.Optional(Type.Boolean({ description: 'Clicking it asks for a person (default false)' })),
  position: Type.Optional(Position),
};
const CreateFollowup = Type.Object(fields, { additionalProperties: false });
const PatchFollowup = Type.Object(
  { ...fields, title: Type.Optional(fields.title), description: Type.Optional(fields.description) },
  { additionalProperties: false, minProperties: 1 },
);
const Params = itemParams('followupId');

export default async function followups(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.resources.followups;
  const tags = ['followups'];

  app.get('/chatbots/:chatbotId/followups', {
    schema: { tags, summary: "The chatbot's follow-ups, by position", description: 'Every follow-up (not paginated; at most 100 per chatbot).', params: ChatbotParams },
    config: { access: { scopes: ['followups:read'] }, response: all('followups', FollowupSchema) },
  }, async (request) => ({ followups: await service.list(request.auth, request.params.chatbotId) }));

  app.post('/chatbots/:chatbotId/followups', {
    schema: {
      tags, summary: 'Add a follow-up',
      description: `Without \`position\` it goes after the last one. ${ESCALATION} A chatbot holds at most 100 follow-ups (400 VALIDATION_FAILED beyond).`,
      params: ChatbotParams, body: CreateFollowup,
    },
    config: { access: { scopes: ['followups:write'] }, successStatus: 201, response: one('followup', FollowupSchema) },
  }, async (request, reply) => {
    const followup = await service.create(request.auth, request.params.chatbotId, request.body);
    reply.code(201);
    return { followup };
  });

  app.get('/chatbots/:chatbotId/followups/:followupId', {
    schema: { tags, summary: 'One follow-up', description: NOT_FOUND_NOTE, params: Params },
    config: { access: { scopes: ['followups:read'] }, response: one('followup', FollowupSchema) },
  }, async (request) => ({ followup: await service.get(request.auth, request.params.chatbotId, request.params.followupId) }));

  app.patch('/chatbots/:chatbotId/followups/:followupId', {
    schema: { tags, summary: 'Change a follow-up', description: `Send only the fields to change; \`link: null\` removes the link. ${ESCALATION}`, params: Params, body: PatchFollowup },
    config: { access: { scopes: ['followups:write'] }, response: one('followup', FollowupSchema) },
  }, async (request) => ({ followup: await service.update(request.auth, request.params.chatbotId, request.params.followupId, request.body) }));

  app.delete('/chatbots/:chatbotId/followups/:followupId', {
    schema: { tags, summary: 'Delete a follow-up', description: CONFIRM_NOTE, params: Params, querystring: ConfirmQuery },
    config: { access: { scopes: ['followups:delete'] }, response: one('deletedFollowup', FollowupSchema) },
  }, async (request) => ({
    deletedFollowup: await service.delete(request.auth, request.params.chatbotId, request.params.followupId, request.query.confirm === true),
  }));
}
