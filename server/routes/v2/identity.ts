/**
 * The chatbot's identity secret: a host page's server signs its signed-in user's e-mail with it
 * (hex HMAC-SHA256), and the widget's session request carries `{ email, signature }`, so the
 * visitor is that user on every device without an e-mail code. Made and rotated here, shown once.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { endpoint } from '../../http/route.js';
import { CONFIRM_NOTE, one } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery } from './schemas.js';

const Status = {
  configured: Type.Boolean({ description: 'Whether the chatbot has a secret (signed identities are accepted)' }),
  createdAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the current secret was made',
  }),
  algorithm: Type.Literal('HMAC-SHA256'),
};
const StatusSchema = Type.Object(Status, { additionalProperties: false });
const SecretSchema = Type.Object(
  {
    secret: Type.String({
      description:
        'Shown only in this response. Key of hex(HMAC-SHA256(key = this string as UTF-8, message = the e-mail exactly as the widget sends it))',
    }),
    ...Status,
  },
  { additionalProperties: false },
);

export default async function identity(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.visitors.identity;
  const tags = ['identity'];

  app.post(
    '/chatbots/:chatbotId/identity-secret',
    endpoint({
      access: { scopes: ['settings:write'] },
      status: 201,
      tags,
      operationId: 'rotateIdentitySecret',
      summary: 'Make or rotate the identity secret (shown once)',
      description:
        'Answers 201 with a new secret; any earlier secret stops working at once (identities it signed are refused with IDENTITY_NOT_VALID), ' +
        'and the widget sessions its claims opened end, renewed ones included: renewing is refused and open sockets close (4001 SESSION_NOT_VALID). ' +
        "The host page's server signs the signed-in user's e-mail; the widget passes `identity: {email, signature}` when it opens a session. " +
        'The secret is stored encrypted and no route returns it again.',
      params: ChatbotParams,
      data: one('identitySecret', SecretSchema),
    }),
    async (request) => ({ identitySecret: await service.rotate(request.auth, request.params.chatbotId) }),
  );

  app.get(
    '/chatbots/:chatbotId/identity-secret',
    endpoint({
      access: { scopes: ['settings:read'] },
      tags,
      summary: 'Whether the chatbot has an identity secret, and since when (never the secret)',
      params: ChatbotParams,
      data: one('identitySecret', StatusSchema),
    }),
    async (request) => ({ identitySecret: await service.status(request.auth, request.params.chatbotId) }),
  );

  app.delete(
    '/chatbots/:chatbotId/identity-secret',
    endpoint({
      access: { scopes: ['settings:write'] },
      tags,
      summary: 'Delete the identity secret: signed identities are refused until a new one is made',
      description: `${CONFIRM_NOTE} 404 when the chatbot has none.`,
      params: ChatbotParams,
      querystring: ConfirmQuery,
      data: one('identitySecret', StatusSchema),
    }),
    async (request) => ({
      identitySecret: await service.remove(request.auth, request.params.chatbotId, request.query.confirm === true),
    }),
  );
}
