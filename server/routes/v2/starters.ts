/** Conversation starters (v0 quick prompts): the buttons shown before the first message. */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { Link, Position, StarterSchema, Text } from './resource-schemas.js';
import { resourceRoutes } from './resource-routes.js';

const fields = {
  title: Text(200, 'Button text'),
  description: Text(2000, 'The message sent when a visitor clicks it'),
  link: Type.Optional(Link),
  position: Type.Optional(Position),
};

/** Bodies of create and change (the legacy v0 routes take the same). */
export const StarterCreate = Type.Object(fields, { additionalProperties: false });
export const StarterPatch = Type.Object(
  {
    title: Type.Optional(fields.title),
    description: Type.Optional(fields.description),
    link: fields.link,
    position: fields.position,
  },
  { additionalProperties: false, minProperties: 1 },
);

export default async function starters(app: FastifyInstance) {
  await app.register(
    resourceRoutes({
      path: 'starters',
      item: 'starter',
      plural: 'starters',
      idParam: 'starterId',
      scopes: { read: 'starters:read', write: 'starters:write', delete: 'starters:delete' },
      schema: StarterSchema,
      create: StarterCreate,
      patch: StarterPatch,
      list: 'all',
      texts: {
        list: {
          summary: "The chatbot's conversation starters, by position",
          description: 'Every starter (not paginated; at most 100 per chatbot).',
        },
        create: {
          summary: 'Add a conversation starter',
          description:
            'Without `position` it goes after the last one. A chatbot holds at most 100 starters (400 VALIDATION_FAILED beyond).',
        },
        get: { summary: 'One conversation starter' },
        update: {
          summary: 'Change a conversation starter',
          description: 'Send only the fields to change; `link: null` removes the link.',
        },
        delete: { summary: 'Delete a conversation starter' },
      },
      service: app.services.resources.starters,
    }),
  );
}
