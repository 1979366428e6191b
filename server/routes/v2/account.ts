import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ROLES } from '../../../shared/scopes.js';
import { paged } from '../../http/envelope.js';
import { endpoint } from '../../http/route.js';
import { nullable, one, page } from './resource-schemas.js';
import { pageQuery, Time } from './schemas.js';

const Plan = Type.Object({
  name: Type.String(),
  maxChatbots: Type.Integer(),
  maxPages: Type.Integer(),
  webhooks: Type.Boolean(),
  analytics: Type.Boolean(),
  brandingRemoval: Type.Boolean(),
  active: Type.Boolean({ description: 'An inactive account can only read and fix its account and tokens' }),
});
const Account = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: Plan,
  role: Type.Enum([...ROLES], { description: 'Your role in the account' }),
  createdAt: Time,
  updatedAt: Time,
});
const Meter = Type.Object({ used: Type.Integer(), limit: nullable(Type.Integer({ description: 'null: no limit' })) });
const Usage = Type.Object({
  plan: Type.String(),
  period: Type.Object({ start: Type.String(), end: Type.String() }),
  chatbots: Meter,
  contentPages: Meter,
  messages: Meter,
});
const Invoice = Type.Object({
  id: Type.String(),
  name: Type.String(),
  amount: Type.Number(),
  currency: Type.String({ description: 'ISO 4217' }),
  status: Type.String(),
  periodStart: Type.String(),
  periodEnd: Type.String(),
  url: nullable(Type.String()),
  createdAt: Time,
});

export default async function account(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { accounts, billing } = app.services;

  app.get(
    '/account',
    endpoint({
      access: { scopes: ['account:read'], whileInactive: true },
      data: one('account', Account),
      tags: ['account'],
      summary: 'The account, its plan and your role',
    }),
    async (request) => ({ account: accounts.view(request.auth) }),
  );

  app.patch(
    '/account',
    endpoint({
      access: { scopes: ['account:write'], whileInactive: true },
      data: one('account', Account),
      tags: ['account'],
      summary: 'Rename the account',
      description: 'Only `name` can change here; plans are changed by an operator (CLI `plan set`).',
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
    }),
    async (request) => ({ account: await accounts.update(request.auth, request.body) }),
  );

  app.get(
    '/usage',
    endpoint({
      access: { scopes: ['account:read'], whileInactive: true },
      data: one('usage', Usage),
      tags: ['account'],
      summary: 'Chatbots, content pages and messages this period, against the plan',
    }),
    async (request) => ({ usage: await billing.usage(request.auth) }),
  );

  app.get(
    '/billing/invoices',
    endpoint({
      access: { scopes: ['billing:read'], whileInactive: true },
      data: page('billings', Invoice),
      tags: ['billing'],
      summary: 'Invoices recorded for the account',
      querystring: pageQuery(50, 100),
    }),
    async (request) => {
      const { limit, cursor } = request.query;
      const result = await billing.invoices(request.auth, limit, cursor);
      return paged('billings', result.billings, limit, result.nextCursor);
    },
  );
}
