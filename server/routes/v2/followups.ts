/** Follow-ups (v0 follow-up prompts): suggestions after an answer; one may be the escalation prompt. */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { FollowupSchema, Link, Position, Text } from './resource-schemas.js';
import { resourceRoutes } from './resource-routes.js';

const ESCALATION =
  'At most one follow-up of a chatbot is the escalation prompt: setting `isEscalationPrompt: true` on one sets it to false on the one that had it.';
const fields = {
  title: Text(200, 'Button text'),
  description: Text(2000, 'The message sent when a visitor clicks it'),
  link: Type.Optional(Link),
  isEscalationPrompt: Type.Optional(Type.Boolean({ description: 'Clicking it asks for a person (default false)' })),
  position: Type.Optional(Position),
};

/** Bodies of create and change (the legacy v0 routes take the same). */
export const FollowupCreate = Type.Object(fields, { additionalProperties: false });
export const FollowupPatch = Type.Object(
  { ...fields, title: Type.Optional(fields.title), description: Type.Optional(fields.description) },
  { additionalProperties: false, minProperties: 1 },
);

export default async function followups(app: FastifyInstance) {
  await app.register(
    resourceRoutes({
      path: 'followups',
      item: 'followup',
      plural: 'followups',
      idParam: 'followupId',
      scopes: { read: 'followups:read', write: 'followups:write', delete: 'followups:delete' },
      schema: FollowupSchema,
      create: FollowupCreate,
      patch: FollowupPatch,
      list: 'all',
      texts: {
        list: {
          summary: "The chatbot's follow-ups, by position",
          description: 'Every follow-up (not paginated; at most 100 per chatbot).',
        },
        create: {
          summary: 'Add a follow-up',
          description: `Without \`position\` it goes after the last one. ${ESCALATION} A chatbot holds at most 100 follow-ups (400 VALIDATION_FAILED beyond).`,
        },
        get: { summary: 'One follow-up' },
        update: {
          summary: 'Change a follow-up',
          description: `Send only the fields to change; \`link: null\` removes the link. ${ESCALATION}`,
        },
        delete: { summary: 'Delete a follow-up' },
      },
      service: app.services.resources.followups,
    }),
  );
}
