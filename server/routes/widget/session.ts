/** `POST /api/widget/{chatbotId}/session`: a visitor session, new, renewed or of a signed identity. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { LOCALES } from '../../../shared/settings.js';
import { identityNotValid } from '../../domain/visitors/identity.js';
import { endpoint } from '../../http/route.js';
import { ChatbotParams, PUBLIC, Shaped } from './schemas.js';

export const SESSION_URL = '/api/widget/:chatbotId/session';

const SessionBody = Type.Object(
  {
    renew: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          'A previous session token (expired is fine, within 30 days of its issue): same visitor, same history',
      }),
    ),
    identity: Type.Optional(
      Type.Object(
        {
          email: Type.String({ maxLength: 320 }),
          signature: Type.String({ maxLength: 128 }),
          name: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
    ),
    context: Type.Optional(
      Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 500 }), {
        maxProperties: 20,
        description: 'Page context (URL, title, custom fields) shown to the team',
      }),
    ),
    locale: Type.Optional(Type.Enum([...LOCALES])),
  },
  { additionalProperties: false },
);

export default async function session(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const widget = app.services.widget;
  const identity = app.services.visitors.identity;
  app.post(
    SESSION_URL,
    endpoint({
      access: PUBLIC,
      status: 201,
      config: { rateLimit: { max: 20, timeWindow: '1 minute' } },
      data: Shaped('SessionResponse'),
      hide: true,
      tags: ['widget'],
      summary: 'A visitor session',
      description:
        'A signed token (24 h, renewable with "renew" up to 30 days after issue) bound to a visitor of the chatbot. Nothing is stored in the browser by the server before this call.',
      params: ChatbotParams,
      body: SessionBody,
    }),
    async (request) => {
      const chatbot = await widget.chatbot(request.params.chatbotId);
      widget.checkOrigin(chatbot, request.headers.origin);
      const body = request.body ?? {};
      // A refused claim changes nothing: checked before a visitor is made or renewed.
      const signed = body.identity ? await identity.check(chatbot.id, body.identity) : null;
      if (body.identity && !signed) throw identityNotValid();
      const session = await widget.startSession(chatbot, {
        renew: body.renew,
        context: body.context,
        locale: body.locale,
      });
      request.log.info(
        { chatbotId: chatbot.id, renewed: !!body.renew, identity: !!signed },
        `widget session opened${body.renew ? ' (renewed)' : ''}${signed ? ' for a signed identity' : ''}`,
      );
      if (!signed) return session;
      // The host page vouches for its signed-in user: the session continues as that verified visitor,
      // for as long as the secret that signed the claim is the chatbot's.
      const chatUser = await identity.bind(chatbot.id, signed.email, body.identity!.name, session.visitor.id);
      return widget.sessionFor(chatbot, chatUser, signed.secretId);
    },
  );
}
