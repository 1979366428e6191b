/** Leads: contact details visitors left in conversations (captured by the conversation service). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { paged } from '../../http/envelope.js';
import { CONFIRM_NOTE, itemParams, LeadSchema, NOT_FOUND_NOTE, one, page } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery, pageQuery } from './schemas.js';
import { endpoint } from '../../http/route.js';

const Instant = (description: string) => Type.Optional(Type.String({ format: 'date-time', description }));
const LeadsQuery = Type.Object(
  {
    ...pageQuery(50, 100).properties,
    from: Instant('Only leads captured at or after this instant (ISO-8601 date-time with offset)'),
    to: Instant('Only leads captured before this instant (ISO-8601 date-time with offset)'),
  },
  { additionalProperties: false },
);
const LeadActions = Type.Object(
  {
    action: Type.Enum(['delete'], { description: 'delete: remove the listed leads (needs `confirm: true`)' }),
    leadIds: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 500 }),
    confirm: Type.Optional(
      Type.Boolean({
        description: 'Must be true for delete; without it 400 CONFIRMATION_REQUIRED and nothing is removed',
      }),
    ),
  },
  { additionalProperties: false },
);
const Params = itemParams('leadId');

/** ISO-8601 with any offset, as stored (UTC, milliseconds), so ranges compare as text. */
const utc = (instant: string | undefined) => (instant ? new Date(instant).toISOString() : undefined);

export default async function leads(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.resources.leads;
  const tags = ['leads'];

  app.get(
    '/chatbots/:chatbotId/leads',
    endpoint({
      access: { scopes: ['leads:read'] },
      data: page('leads', LeadSchema),
      tags,
      summary: "The chatbot's leads, newest first",
      description:
        'Paginated (limit 1 to 100, default 50). `from` (inclusive) and `to` (exclusive) bound the capture time; a cursor works only with the filters it was issued for.',
      params: ChatbotParams,
      querystring: LeadsQuery,
    }),
    async (request) => {
      const q = request.query;
      const result = await service.list(request.auth, request.params.chatbotId, {
        limit: q.limit,
        cursor: q.cursor,
        from: utc(q.from),
        to: utc(q.to),
      });
      return paged('leads', result.leads, q.limit, result.nextCursor);
    },
  );

  app.get(
    '/chatbots/:chatbotId/leads/:leadId',
    endpoint({
      access: { scopes: ['leads:read'] },
      data: one('lead', LeadSchema),
      tags,
      summary: 'One lead',
      description: NOT_FOUND_NOTE,
      params: Params,
    }),
    async (request) => ({ lead: await service.get(request.auth, request.params.chatbotId, request.params.leadId) }),
  );

  app.delete(
    '/chatbots/:chatbotId/leads/:leadId',
    endpoint({
      access: { scopes: ['leads:delete'] },
      data: one('deletedLead', LeadSchema),
      tags,
      summary: 'Delete a lead',
      description: CONFIRM_NOTE,
      params: Params,
      querystring: ConfirmQuery,
    }),
    async (request) => ({
      deletedLead: await service.delete(
        request.auth,
        request.params.chatbotId,
        request.params.leadId,
        request.query.confirm === true,
      ),
    }),
  );

  app.post(
    '/chatbots/:chatbotId/leads/actions',
    endpoint({
      access: { scopes: ['leads:delete'] },
      data: Type.Object({
        action: Type.String(),
        deletedLeads: Type.Array(LeadSchema),
        notFound: Type.Array(Type.String()),
      }),
      tags,
      operationId: 'actOnLeads',
      summary: 'Act on several leads at once',
      description:
        'Actions: `delete` (needs `"confirm": true` in the body; without it 400 CONFIRMATION_REQUIRED and nothing is removed). Ids the chatbot does not hold come back in `notFound`. An unknown action is 400 VALIDATION_FAILED.',
      params: ChatbotParams,
      body: LeadActions,
    }),
    async (request) =>
      service.act(
        request.auth,
        request.params.chatbotId,
        request.body as { action: 'delete'; leadIds: string[]; confirm?: boolean },
      ),
  );
}
