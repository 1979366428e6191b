import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { paged } from '../../http/envelope.js';
import { pageQuery } from './schemas.js';

export default async function account(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { accounts, billing } = app.services;

  app.get(
    '/account',
    {
      schema: { tags: ['account'], summary: 'The account, its plan and your role' },
      config: { access: { scopes: ['account:read'], whileInactive: true } },
    },
    async (request) => ({ account: accounts.view(request.auth) }),
  );

  app.patch(
    '/account',
    {
      schema: {
        tags: ['account'],
        summary: 'Rename the account',
        description: 'Only `name` can change here; plans are changed by an operator (CLI `plan set`).',
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
      },
      config: { access: { scopes: ['account:write'], whileInactive: true } },
    },
    async (request) => ({ account: await accounts.update(request.auth, request.body) }),
  );

  app.get(
    '/usage',
    {
      schema: { tags: ['account'], summary: 'Chatbots, content pages and messages this period, against the plan' },
      config: { access: { scopes: ['account:read'], whileInactive: true } },
    },
    async (request) => ({ usage: await billing.usage(request.auth) }),
  );

  app.get(
    '/billing/invoices',
    {
      schema: { tags: ['billing'], summary: 'Invoices recorded for the account', querystring: pageQuery(50, 100) },
      config: { access: { scopes: ['billing:read'], whileInactive: true } },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const page = await billing.invoices(request.auth, limit, cursor);
      return paged('billings', page.billings, limit, page.nextCursor);
    },
  );
}
