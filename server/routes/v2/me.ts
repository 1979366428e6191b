import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { ROLES, SCOPES, TOKEN_ACCESS } from '../../../shared/scopes.js';
import { endpoint } from '../../http/route.js';
import { Time } from './schemas.js';

const Me = Type.Object({
  user: Type.Object({
    id: Type.String(),
    email: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    role: Type.Enum([...ROLES]),
  }),
  account: Type.Object({
    id: Type.String(),
    name: Type.String(),
    plan: Type.String({ description: 'Plan name' }),
    active: Type.Boolean(),
  }),
  token: Type.Object({
    id: Type.String(),
    name: Type.String(),
    access: Type.Enum([...TOKEN_ACCESS]),
    createdAt: Time,
    lastUsedAt: Type.Union([Time, Type.Null()]),
  }),
  scopes: Type.Array(Type.Enum([...SCOPES]), {
    description: "Effective scopes: the token's, bounded by its creator's current role",
  }),
  withheldByRole: Type.Array(Type.Enum([...SCOPES]), {
    description: "Scopes the token holds but its creator's current role withholds",
  }),
  chatbotIds: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'The chatbots the token is restricted to; null: every chatbot',
  }),
});

const Rename = Type.Object(
  {
    name: Type.Union([Type.String({ maxLength: 80 }), Type.Null()], {
      description:
        "Your display name, account-wide: visitors see it on your replies and when you take a conversation over (without one, the widget's support-team text, never the e-mail). Blank is none",
    }),
  },
  { additionalProperties: false },
);

export default async function me(app: FastifyInstance) {
  app.get(
    '/me',
    endpoint({
      access: { scopes: [], whileInactive: true },
      data: Me,
      tags: ['account'],
      summary: "The token's user, account, effective scopes and chatbot restriction",
    }),
    async (request) => app.services.accounts.me(request.auth),
  );
  app.patch(
    '/me',
    endpoint({
      access: { scopes: ['conversations:write'] },
      data: Me,
      body: Rename,
      tags: ['account'],
      summary: 'Set your display name',
      description:
        "The token's user's name, as `PATCH /chatbots/{id}/members/{memberId}` sets it for others; the scope is the one an agent replies with.",
    }),
    async (request) => app.services.accounts.rename(request.auth, (request.body as { name: string | null }).name),
  );
}
