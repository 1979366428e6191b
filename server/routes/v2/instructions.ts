/** Instructions (v0 prompts): text and temperature for the language model; one is active (`/use`). */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { InstructionSchema, Text } from './resource-schemas.js';
import { resourceRoutes } from './resource-routes.js';

const fields = {
  title: Text(200),
  description: Type.Optional(
    Type.String({ maxLength: 2000, description: 'For people; not sent to the model (default empty)' }),
  ),
  instructions: Text(8000, 'Given to the language model'),
  temperature: Type.Optional(
    Type.Union([Type.Number({ minimum: 0, maximum: 1, multipleOf: 0.01 }), Type.Null()], {
      description:
        'Creativity level: 0 focused to 1 creative, step 0.01. null (the default): the chatbot creativity setting decides',
    }),
  ),
};

/** Bodies of create and change (the legacy v0 routes take the same). */
export const InstructionCreate = Type.Object(fields, { additionalProperties: false });
export const InstructionPatch = Type.Object(
  { ...fields, title: Type.Optional(fields.title), instructions: Type.Optional(fields.instructions) },
  { additionalProperties: false, minProperties: 1 },
);

export default async function instructions(app: FastifyInstance) {
  await app.register(
    resourceRoutes({
      path: 'instructions',
      item: 'instruction',
      plural: 'instructions',
      idParam: 'instructionId',
      scopes: { read: 'instructions:read', write: 'instructions:write', delete: 'instructions:delete' },
      schema: InstructionSchema,
      create: InstructionCreate,
      patch: InstructionPatch,
      list: 'all',
      texts: {
        list: {
          summary: "The chatbot's instructions, newest first",
          description: '`active` marks the one in use (settings.promptId). Not paginated; at most 100 per chatbot.',
        },
        create: {
          summary: 'Add an instruction',
          description:
            'It is not active until POST .../{instructionId}/use. A chatbot holds at most 100 instructions (400 VALIDATION_FAILED beyond).',
        },
        get: { summary: 'One instruction' },
        update: {
          summary: 'Change an instruction',
          description: 'Send only the fields to change. Changes to the active one apply from the next answer.',
        },
        use: {
          summary: 'Make it the active instruction',
          description:
            'Sets the read-only setting `promptId`; the answer engine uses it (and its temperature) from the next answer.',
        },
        delete: { summary: 'Delete an instruction', description: 'Deleting the active one clears settings.promptId.' },
      },
      service: app.services.resources.instructions,
    }),
  );
}
