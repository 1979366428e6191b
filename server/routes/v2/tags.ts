/**
 * Tags label conversations (PATCH /conversations/{threadId} sets them). Scopes follow the
 * conversations they label: conversations:read / write, and conversations:delete for DELETE
 * (spec 4.1).
 */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { TagSchema, Text } from './resource-schemas.js';
import { resourceRoutes } from './resource-routes.js';

const fields = {
  name: Text(50, 'Unique within the chatbot, without regard to case'),
  color: Type.Optional(
    Type.Union([
      Type.String({ pattern: '^#(?:[0-9a-fA-F]{3}){1,2}$', description: 'CSS hex colour, e.g. #1f6feb' }),
      Type.Null(),
    ]),
  ),
};
const DUPLICATE = 'A name already used in the chatbot (whatever its case) is 400 VALIDATION_FAILED on `name`.';

export default async function tagRoutes(app: FastifyInstance) {
  await app.register(
    resourceRoutes({
      path: 'tags',
      item: 'tag',
      plural: 'tags',
      idParam: 'tagId',
      scopes: { read: 'conversations:read', write: 'conversations:write', delete: 'conversations:delete' },
      schema: TagSchema,
      create: Type.Object(fields, { additionalProperties: false }),
      patch: Type.Object(
        { name: Type.Optional(fields.name), color: fields.color },
        { additionalProperties: false, minProperties: 1 },
      ),
      list: 'all',
      texts: {
        list: {
          summary: "The chatbot's tags, by name, with how many conversations carry each",
          description: 'Not paginated; at most 200 per chatbot.',
        },
        create: { summary: 'Add a tag', description: `${DUPLICATE} A chatbot holds at most 200 tags.` },
        get: { summary: 'One tag' },
        update: { summary: 'Rename or recolour a tag', description: `Conversations keep it. ${DUPLICATE}` },
        delete: { summary: 'Delete a tag; it is taken off every conversation' },
      },
      service: app.services.resources.tags,
    }),
  );
}
