/**
 * Custom responses: a question and the answer given verbatim when a visitor asks it.
 * Scopes: the spec has no custom-responses scope; they steer what the assistant says, like
 * instructions, so they take instructions:read / write / delete.
 */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { CustomResponseSchema, Text } from './resource-schemas.js';
import { resourceRoutes } from './resource-routes.js';

const SCOPE_NOTE = 'Custom responses take the instructions scopes (the spec names no scope of their own).';
const fields = {
  question: Text(2000, 'What a visitor asks'),
  answer: Text(8000, 'Given verbatim instead of a generated answer'),
};

export default async function customResponses(app: FastifyInstance) {
  await app.register(
    resourceRoutes({
      path: 'custom-responses',
      item: 'customResponse',
      plural: 'customResponses',
      idParam: 'customResponseId',
      scopes: { read: 'instructions:read', write: 'instructions:write', delete: 'instructions:delete' },
      schema: CustomResponseSchema,
      create: Type.Object(fields, { additionalProperties: false }),
      patch: Type.Object(
        { question: Type.Optional(fields.question), answer: Type.Optional(fields.answer) },
        { additionalProperties: false, minProperties: 1 },
      ),
      list: 'page',
      texts: {
        list: { summary: "The chatbot's custom responses, newest first", description: SCOPE_NOTE },
        create: {
          summary: 'Add a custom response',
          description: `When a visitor asks the question, the answer is given verbatim. ${SCOPE_NOTE}`,
        },
        get: { summary: 'One custom response', description: SCOPE_NOTE },
        update: { summary: 'Change a custom response', description: `Send only the fields to change. ${SCOPE_NOTE}` },
        delete: { summary: 'Delete a custom response', description: SCOPE_NOTE },
      },
      service: app.services.resources.customResponses,
    }),
  );
}
