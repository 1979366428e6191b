import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { SCOPES, TOKEN_ACCESS } from '../../../shared/scopes.js';
import { paged } from '../../http/envelope.js';
import { endpoint } from '../../http/route.js';
import { nullable, one, page } from './resource-schemas.js';
import { pageQuery, Time } from './schemas.js';

const CreateToken = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100 })),
    access: Type.Enum([...TOKEN_ACCESS], {
      description:
        'full: every scope; standard: every read and write scope except billing:write, tokens:write, account:write, members:write, and no delete scope; custom: exactly `scopes`',
    }),
    scopes: Type.Optional(Type.Array(Type.Enum([...SCOPES]), { maxItems: SCOPES.length, uniqueItems: true })),
    chatbotIds: Type.Optional(
      Type.Union([Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000 }), Type.Null()], {
        description: 'Restrict the token to these chatbots; null or absent: every chatbot',
      }),
    ),
  },
  { additionalProperties: false },
);

const tokenFields = {
  id: Type.String(),
  name: Type.String(),
  access: Type.Enum([...TOKEN_ACCESS]),
  scopes: Type.Array(Type.Enum([...SCOPES])),
  chatbotIds: nullable(Type.Array(Type.String())),
  createdById: Type.String(),
  createdAt: Time,
  lastUsedAt: nullable(Time),
  revokedAt: nullable(Time),
};
const TokenSchema = Type.Object(tokenFields, { title: 'Token' });
const CreatedToken = Type.Object({
  token: Type.String({ description: 'The secret; shown in this response only' }),
  ...tokenFields,
});

export default async function tokens(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.tokens;
  const tags = ['tokens'];

  app.get(
    '/tokens',
    endpoint({
      access: { scopes: ['tokens:read'], whileInactive: true },
      data: page('tokens', TokenSchema),
      tags,
      summary: "The account's API tokens (never their values)",
      description: "Members and tokens restricted to chosen chatbots see only their own user's tokens",
      querystring: pageQuery(50, 100),
    }),
    async (request) => {
      const { limit, cursor } = request.query;
      const result = await service.list(request.auth, limit, cursor);
      return paged('tokens', result.tokens, limit, result.nextCursor);
    },
  );

  app.post(
    '/tokens',
    endpoint({
      access: { scopes: ['tokens:write'], whileInactive: true },
      status: 201,
      data: CreatedToken,
      tags,
      summary: 'Create a token; its value is in the response once and never again',
      description:
        'A token cannot create a token with scopes it does not hold, nor reach chatbots outside its own restriction.',
      body: CreateToken,
    }),
    async (request) => {
      const created = await service.create(request.auth.user, request.body, request.auth);
      return { token: created.token, ...created.record };
    },
  );

  app.delete(
    '/tokens/:tokenId',
    endpoint({
      access: { scopes: ['tokens:write'], whileInactive: true },
      data: one('revokedToken', TokenSchema),
      tags,
      operationId: 'revokeToken',
      summary: 'Revoke a token; it stops working on its next request',
      description:
        "Members and tokens restricted to chosen chatbots revoke only their own user's tokens (others: 404); only the owner revokes the owner's (403 TOKEN_SCOPE_NOT_ALLOWED).",
      params: Type.Object({ tokenId: Type.String({ maxLength: 64 }) }),
    }),
    async (request) => ({ revokedToken: await service.revoke(request.auth, request.params.tokenId) }),
  );
}
