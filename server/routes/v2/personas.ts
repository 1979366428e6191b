/** Personas: who the assistant speaks as; one is active (`/use`). */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { PersonaSchema, Text } from './resource-schemas.js';
import { resourceRoutes } from './resource-routes.js';

const fields = {
  title: Text(200),
  description: Type.Optional(
    Type.String({ maxLength: 2000, description: 'For people; not sent to the model (default empty)' }),
  ),
  instructions: Text(8000, 'Who the assistant is and how it speaks; given to the language model'),
};

/** Bodies of create and change (the legacy v0 routes take the same). */
export const PersonaCreate = Type.Object(fields, { additionalProperties: false });
export const PersonaPatch = Type.Object(
  { ...fields, title: Type.Optional(fields.title), instructions: Type.Optional(fields.instructions) },
  { additionalProperties: false, minProperties: 1 },
);

export default async function personas(app: FastifyInstance) {
  await app.register(
    resourceRoutes({
      path: 'personas',
      item: 'persona',
      plural: 'personas',
      idParam: 'personaId',
      scopes: { read: 'personas:read', write: 'personas:write', delete: 'personas:delete' },
      schema: PersonaSchema,
      create: PersonaCreate,
      patch: PersonaPatch,
      list: 'all',
      texts: {
        list: {
          summary: "The chatbot's personas, newest first",
          description: '`active` marks the one in use (settings.personaId). Not paginated; at most 100 per chatbot.',
        },
        create: {
          summary: 'Add a persona',
          description:
            'It is not active until POST .../{personaId}/use. A chatbot holds at most 100 personas (400 VALIDATION_FAILED beyond).',
        },
        get: { summary: 'One persona' },
        update: {
          summary: 'Change a persona',
          description: 'Send only the fields to change. Changes to the active one apply from the next answer.',
        },
        use: {
          summary: 'Make it the active persona',
          description: 'Sets the read-only setting `personaId`; the answer engine speaks as it from the next answer.',
        },
        delete: { summary: 'Delete a persona', description: 'Deleting the active one clears settings.personaId.' },
      },
      service: app.services.resources.personas,
    }),
  );
}
