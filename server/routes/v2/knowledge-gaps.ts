/**
 * Knowledge gaps: questions the assistant could not answer. Listing and deleting them is part of
 * working conversations (conversations:read / conversations:delete); answering one writes a
 * custom response, which takes the instructions scope like every custom response.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { paged } from '../../http/envelope.js';
import {
  CONFIRM_NOTE,
  CustomResponseSchema,
  itemParams,
  KnowledgeGapSchema,
  NOT_FOUND_NOTE,
  one,
  page,
  Text,
} from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery, pageQuery } from './schemas.js';
import { endpoint } from '../../http/route.js';

const GapsQuery = Type.Object(
  {
    ...pageQuery(50, 100).properties,
    answered: Type.Optional(
      Type.Boolean({ description: 'true: only answered gaps; false: only open ones; absent: all' }),
    ),
  },
  { additionalProperties: false },
);
const Params = itemParams('gapId');

export default async function knowledgeGaps(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.resources.knowledgeGaps;
  const tags = ['knowledge-gaps'];

  app.get(
    '/chatbots/:chatbotId/knowledge-gaps',
    endpoint({
      access: { scopes: ['conversations:read'] },
      data: page('knowledgeGaps', KnowledgeGapSchema),
      tags,
      summary: 'Questions the assistant could not answer, newest first',
      description:
        'Paginated (limit 1 to 100, default 50); `answered` filters, and a cursor works only with the filter it was issued for.',
      params: ChatbotParams,
      querystring: GapsQuery,
    }),
    async (request) => {
      const q = request.query;
      const result = await service.list(request.auth, request.params.chatbotId, q);
      return paged('knowledgeGaps', result.knowledgeGaps, q.limit, result.nextCursor);
    },
  );

  app.get(
    '/chatbots/:chatbotId/knowledge-gaps/:gapId',
    endpoint({
      access: { scopes: ['conversations:read'] },
      data: one('knowledgeGap', KnowledgeGapSchema),
      tags,
      summary: 'One knowledge gap',
      description: NOT_FOUND_NOTE,
      params: Params,
    }),
    async (request) => ({
      knowledgeGap: await service.get(request.auth, request.params.chatbotId, request.params.gapId),
    }),
  );

  app.post(
    '/chatbots/:chatbotId/knowledge-gaps/:gapId/answer',
    endpoint({
      access: { scopes: ['instructions:write'] },
      data: Type.Object({ knowledgeGap: KnowledgeGapSchema, customResponse: CustomResponseSchema }),
      tags,
      summary: 'Answer a gap: the answer becomes a custom response to its question',
      description:
        'Marks the gap answered. Answering again updates that custom response (or creates a new one if it was deleted). Needs instructions:write, the scope of custom responses.',
      params: Params,
      body: Type.Object(
        { answer: Text(8000, 'Given verbatim to the next visitor who asks the question') },
        { additionalProperties: false },
      ),
    }),
    async (request) =>
      service.answer(request.auth, request.params.chatbotId, request.params.gapId, request.body.answer),
  );

  app.delete(
    '/chatbots/:chatbotId/knowledge-gaps/:gapId',
    endpoint({
      access: { scopes: ['conversations:delete'] },
      data: one('deletedKnowledgeGap', KnowledgeGapSchema),
      tags,
      summary: 'Delete a knowledge gap',
      description: `${CONFIRM_NOTE} A custom response made from it stays.`,
      params: Params,
      querystring: ConfirmQuery,
    }),
    async (request) => ({
      deletedKnowledgeGap: await service.delete(
        request.auth,
        request.params.chatbotId,
        request.params.gapId,
        request.query.confirm === true,
      ),
    }),
  );
}
