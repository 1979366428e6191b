/**
 * Members: people invited by e-mail to work on a chatbot. The role is the user's dashboard role,
 * which bounds what their tokens may do (see domain/resources/members.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { all, CONFIRM_NOTE, itemParams, MemberSchema, NOT_FOUND_NOTE, one } from './resource-schemas.js';
import { ChatbotParams, ConfirmQuery } from './schemas.js';
import { endpoint } from '../../http/route.js';

const Role = Type.Enum(['admin', 'member'], {
  description:
    'admin: everything but billing and account changes, on every chatbot of the account. member: reads, and works conversations, leads and knowledge, on the chatbots they were added to',
});
const Name = Type.Union([Type.String({ maxLength: 80 }), Type.Null()], {
  description:
    "The person's display name, account-wide: visitors see it on the team's replies and when a conversation is taken over. Without one they see the widget's support-team text, never the e-mail address. Blank is none",
});
const InviteMember = Type.Object(
  {
    email: Type.String({
      minLength: 3,
      maxLength: 254,
      description: "The person's e-mail; a user of the account with it is reused, else created",
    }),
    role: Role,
    name: Type.Optional(Name),
  },
  { additionalProperties: false },
);
const PatchMember = Type.Object(
  { role: Type.Optional(Role), name: Type.Optional(Name) },
  { additionalProperties: false, minProperties: 1 },
);
const Params = itemParams('memberId');
const ROLES_NOTE =
  "A role is the user's dashboard role (it applies account-wide and bounds every token of theirs). The account owner's role cannot change and the owner cannot be removed (400 VALIDATION_FAILED).";

export default async function members(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.resources.members;
  const tags = ['members'];

  app.get(
    '/chatbots/:chatbotId/members',
    endpoint({
      access: { scopes: ['members:read'] },
      data: all('members', MemberSchema),
      tags,
      summary: "The chatbot's members, most recently added first",
      description: ROLES_NOTE,
      params: ChatbotParams,
    }),
    async (request) => ({ members: await service.list(request.auth, request.params.chatbotId) }),
  );

  app.post(
    '/chatbots/:chatbotId/members',
    endpoint({
      access: { scopes: ['members:write'] },
      status: 201,
      data: one('member', MemberSchema),
      tags,
      operationId: 'inviteMember',
      summary: 'Invite a person by e-mail',
      description: `A new e-mail becomes a user of the account with the given role. An existing user keeps their role (meta.warnings says so when it differs; change it with PATCH). Someone already a member is 400 VALIDATION_FAILED. ${ROLES_NOTE}`,
      params: ChatbotParams,
      body: InviteMember,
    }),
    async (request) => {
      const { member, warnings } = await service.invite(
        request.auth,
        request.params.chatbotId,
        request.body as { email: string; role: 'admin' | 'member'; name?: string | null },
      );
      request.warnings.push(...warnings);
      return { member };
    },
  );

  app.get(
    '/chatbots/:chatbotId/members/:memberId',
    endpoint({
      access: { scopes: ['members:read'] },
      data: one('member', MemberSchema),
      tags,
      summary: 'One member',
      description: NOT_FOUND_NOTE,
      params: Params,
    }),
    async (request) => ({ member: await service.get(request.auth, request.params.chatbotId, request.params.memberId) }),
  );

  app.patch(
    '/chatbots/:chatbotId/members/:memberId',
    endpoint({
      access: { scopes: ['members:write'] },
      data: one('member', MemberSchema),
      tags,
      summary: "Change a member's role or display name",
      description: `A role takes effect on their next request; the name is the user's, account-wide (the owner's too). ${ROLES_NOTE}`,
      params: Params,
      body: PatchMember,
    }),
    async (request) => ({
      member: await service.update(
        request.auth,
        request.params.chatbotId,
        request.params.memberId,
        request.body as { role?: 'admin' | 'member'; name?: string | null },
      ),
    }),
  );

  app.delete(
    '/chatbots/:chatbotId/members/:memberId',
    endpoint({
      access: { scopes: ['members:delete'] },
      data: one('deletedMember', MemberSchema),
      tags,
      summary: 'Remove a member from the chatbot',
      description: `${CONFIRM_NOTE} The user stays in the account; with the role member they no longer reach this chatbot. ${ROLES_NOTE}`,
      params: Params,
      querystring: ConfirmQuery,
    }),
    async (request) => ({
      deletedMember: await service.delete(
        request.auth,
        request.params.chatbotId,
        request.params.memberId,
        request.query.confirm === true,
      ),
    }),
  );
}
