import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { ROLES, SCOPES, TOKEN_ACCESS } from '../../../shared/scopes.js';
import { endpoint } from '../../http/route.js';
import { Time } from './schemas.js';

const Me = Type.Object({
  user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]), role: Type.Enum([...ROLES]) }),
  account: Type.Object({ id: Type.String(), name: Type.String(), plan: Type.String({ description: 'Plan name' }), active: Type.Boolean() }),
  token: Type.Object({
    id: Type.String(),
    name: Type.String(),
    access: Type.Enum([...TOKEN_ACCESS]),
    createdAt: Time,
    lastUsedAt: Type.Union([Time, Type.Null()]),
  }),
  scopes: Type.Array(Type.Enum([...SCOPES]), { description: "Effective scopes: the token's, bounded by its creator's current role" }),
  withheldByRole: Type.Array(Type.Enum([...SCOPES]), { description: "Scopes the token holds but its creator's current role withholds" }),
  chatbotIds: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'The chatbots the token is restricted to; null: every chatbot' }),
});

export default async function me(app: FastifyInstance) {
  app.get('/me', endpoint({
    access: { scopes: [], whileInactive: true }, data: Me,
    tags: ['account'], summary: "The token's user, account, effective scopes and chatbot restriction",
  }), async (request) => app.services.accounts.me(request.auth));
}
