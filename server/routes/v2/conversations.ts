import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { requireScopes } from '../../domain/auth.js';
import { paged } from '../../http/envelope.js';
import { MessageSchema, ThreadSchema, VisitorMessage } from './conversation-schemas.js';
import { one, page } from './resource-schemas.js';
import { ChatbotParams } from './schemas.js';
import { endpoint } from '../../http/route.js';

export const ThreadParams = Type.Object({
  chatbotId: ChatbotParams.properties.chatbotId,
  threadId: Type.String({ minLength: 1, maxLength: 64 }),
});
const MessageParams = Type.Object({
  ...ThreadParams.properties,
  messageId: Type.String({ minLength: 1, maxLength: 64 }),
});
export const MessageText = Type.String({
  minLength: 1,
  maxLength: 8000,
  description: 'Message text (1 to 8000 characters)',
});
export const Visitor = Type.Object(
  {
    email: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 320 }), Type.Null()])),
    name: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    phone: Type.Optional(Type.Union([Type.String({ maxLength: 40, pattern: '^[0-9+()\\-. ]{3,40}$' }), Type.Null()])),
    customFields: Type.Optional(Type.Record(Type.String({ maxLength: 40 }), Type.Unknown())),
  },
  { additionalProperties: false, description: "The visitor's contact details; an e-mail or phone captures a lead" },
);
const WebhookUrl = Type.Optional(Type.Union([Type.String({ pattern: '^https://', maxLength: 2048 }), Type.Null()]));
const WebhookToken = Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()]));
const TagIds = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 });
/** Bodies the legacy v0 thread routes take too. */
export const CreateThread = Type.Object(
  {
    visitor: Type.Optional(Visitor),
    tagIds: Type.Optional(TagIds),
    webhookUrl: WebhookUrl,
    webhookToken: WebhookToken,
  },
  { additionalProperties: false },
);
export const ThreadPatch = Type.Object(
  {
    status: Type.Optional(Type.Enum(['OPEN', 'RESOLVED'])),
    tagIds: Type.Optional(TagIds),
    webhookUrl: WebhookUrl,
    webhookToken: WebhookToken,
    visitor: Type.Optional(Visitor),
    // The column is a 32-bit integer on PostgreSQL: a larger count was a 500 there.
    totalMessagesRead: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const MessagePatch = Type.Object(
  {
    feedback: Type.Optional(Type.Union([Type.Enum(['up', 'down']), Type.Null()])),
    feedbackComment: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    text: Type.Optional(MessageText),
  },
  { additionalProperties: false, minProperties: 1 },
);
const BulkResult = Type.Object({
  action: Type.String(),
  results: Type.Array(
    Type.Object({
      threadId: Type.String(),
      ok: Type.Boolean(),
      error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
    }),
  ),
});
export const CLOSED = '409 CONVERSATION_CLOSED when the conversation is resolved.';
export const IDEMPOTENCY =
  ' With an `Idempotency-Key` header (1-255 visible characters, unique per chatbot) a retry stores nothing and triggers no second answer: it returns the message stored the first time, its answer when stored, and the header `Idempotent-Replayed: true`; the same key on another conversation is 400 VALIDATION_FAILED.';
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' })),
});
/** The service's result minus `replayed`, which becomes the `Idempotent-Replayed` header. */
export function replayAware<T extends { replayed: boolean }>(reply: FastifyReply, result: T): Omit<T, 'replayed'> {
  const { replayed, ...data } = result;
  if (replayed) reply.header('idempotent-replayed', 'true');
  return data;
}

export default async function conversations(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { team, visitors } = app.services.conversations;
  const read = { access: { scopes: ['conversations:read' as const] } };
  const write = { access: { scopes: ['conversations:write' as const] } };

  app.post(
    '/chatbots/:chatbotId/messages',
    endpoint({
      ...write,
      status: 201,
      data: Type.Object({ conversation: ThreadSchema, ...VisitorMessage.properties }),
      tags: ['conversations'],
      operationId: 'startConversation',
      summary: "Start a conversation with the visitor's first message",
      description: `Returns the new conversation, the visitor message and the answer (null when the AI does not answer: HUMAN_ONLY chat mode).${IDEMPOTENCY}`,
      params: ChatbotParams,
      headers: IdempotencyHeaders,
      body: Type.Object({ message: MessageText, visitor: Type.Optional(Visitor) }, { additionalProperties: false }),
    }),
    async (request, reply) =>
      replayAware(
        reply,
        await visitors.start(request.auth, request.params.chatbotId, {
          ...request.body,
          clientMessageId: request.headers['idempotency-key'],
        }),
      ),
  );

  app.get(
    '/chatbots/:chatbotId/conversations',
    endpoint({
      ...read,
      data: page('conversations', ThreadSchema),
      tags: ['conversations'],
      summary: 'Conversations, newest first',
      params: ChatbotParams,
      querystring: Type.Object(
        {
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
          status: Type.Optional(Type.Enum(['OPEN', 'RESOLVED'])),
          mode: Type.Optional(Type.Enum(['AI', 'AGENT'])),
          escalated: Type.Optional(Type.Boolean()),
          tagId: Type.Optional(Type.String({ maxLength: 64 })),
          from: Type.Optional(Type.String({ format: 'date-time', description: 'Started at or after' })),
          to: Type.Optional(Type.String({ format: 'date-time', description: 'Started before' })),
          q: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 200,
              description:
                "Search: the visitor's name or e-mail, or any message's text, contains it (case-insensitive)",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => {
      const q = request.query;
      const norm = (d?: string) => (d ? new Date(d).toISOString() : undefined);
      const page = await team.list(request.auth, request.params.chatbotId, {
        limit: q.limit,
        cursor: q.cursor,
        status: q.status as never,
        mode: q.mode as never,
        escalated: q.escalated,
        tagId: q.tagId,
        from: norm(q.from),
        to: norm(q.to),
        text: q.q?.trim() || undefined,
      });
      return paged('conversations', page.conversations, q.limit, page.nextCursor);
    },
  );

  app.post(
    '/chatbots/:chatbotId/conversations',
    endpoint({
      ...write,
      status: 201,
      data: one('conversation', ThreadSchema),
      tags: ['conversations'],
      summary: 'Create an empty conversation',
      description: 'Thread-level webhook fields need the webhook add-on (403 WEBHOOKS_NOT_AVAILABLE).',
      params: ChatbotParams,
      body: CreateThread,
    }),
    async (request) => {
      return { conversation: await team.create(request.auth, request.params.chatbotId, request.body ?? {}) };
    },
  );

  app.get(
    '/chatbots/:chatbotId/conversations/:threadId',
    endpoint({
      ...read,
      data: one('conversation', ThreadSchema),
      tags: ['conversations'],
      summary: 'A conversation (Thread) with its visitor and tags',
      params: ThreadParams,
    }),
    async (request) => team.get(request.auth, request.params.chatbotId, request.params.threadId),
  );

  app.patch(
    '/chatbots/:chatbotId/conversations/:threadId',
    endpoint({
      ...write,
      data: one('conversation', ThreadSchema),
      tags: ['conversations'],
      summary: 'Resolve, reopen, tag, set the thread webhook, add visitor details',
      description:
        '`{"status":"RESOLVED"}` resolves, `{"status":"OPEN"}` reopens (AI mode, not escalated). `tagIds` replaces the tags.',
      params: ThreadParams,
      body: ThreadPatch,
    }),
    async (request) =>
      team.patch(request.auth, request.params.chatbotId, request.params.threadId, request.body as never),
  );

  app.post(
    '/chatbots/:chatbotId/conversations/:threadId/messages',
    endpoint({
      ...write,
      status: 201,
      data: VisitorMessage,
      tags: ['conversations'],
      operationId: 'sendVisitorMessage',
      summary: "Send a visitor message (the AI answers when the conversation's condition lets it)",
      description: `data.message is the visitor message; data.answer the AI's answer or null (taken over, escalated, HUMAN_ONLY). ${CLOSED}${IDEMPOTENCY}`,
      params: ThreadParams,
      headers: IdempotencyHeaders,
      body: Type.Object({ message: MessageText, visitor: Type.Optional(Visitor) }, { additionalProperties: false }),
    }),
    async (request, reply) =>
      replayAware(
        reply,
        await visitors.sendVisitorMessage(request.auth, request.params.chatbotId, request.params.threadId, {
          ...request.body,
          clientMessageId: request.headers['idempotency-key'],
        }),
      ),
  );

  app.get(
    '/chatbots/:chatbotId/conversations/:threadId/messages',
    endpoint({
      ...read,
      data: page('messages', MessageSchema),
      tags: ['conversations'],
      summary: 'Messages, oldest first',
      params: ThreadParams,
      querystring: Type.Object(
        {
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => {
      const { limit, cursor } = request.query;
      const page = await team.messages(request.auth, request.params.chatbotId, request.params.threadId, limit, cursor);
      return paged('messages', page.messages, limit, page.nextCursor);
    },
  );

  app.patch(
    '/chatbots/:chatbotId/conversations/:threadId/messages/:messageId',
    endpoint({
      ...write,
      data: one('message', MessageSchema),
      tags: ['conversations'],
      summary: "Rate an answer, or correct the AI's text (the original is kept)",
      params: MessageParams,
      body: MessagePatch,
    }),
    async (request) =>
      team.patchMessage(
        request.auth,
        request.params.chatbotId,
        request.params.threadId,
        request.params.messageId,
        request.body as never,
      ),
  );

  const action = (path: string, summary: string, description: string, run: typeof team.escalate) =>
    app.post(
      `/chatbots/:chatbotId/conversations/:threadId/${path}`,
      endpoint({
        ...write,
        data: one('conversation', ThreadSchema),
        tags: ['conversations'],
        summary,
        description,
        params: ThreadParams,
      }),
      async (request) => run(request.auth, request.params.chatbotId, request.params.threadId),
    );

  action(
    'escalate',
    'The visitor asks for a person',
    `The AI stays silent until the team takes over or hands back. 403 HUMAN_TAKEOVER when taken over and not escalated (success when already escalated). ${CLOSED}`,
    team.escalate,
  );
  action(
    'take-over',
    'A team member takes the conversation over (mode AGENT)',
    `The AI stops answering; the caller becomes the agent. ${CLOSED}`,
    team.takeOver,
  );
  action(
    'switch-to-ai',
    'Hand the conversation back to the AI',
    `Mode AI, escalation cleared; the AI answers the next message. ${CLOSED}`,
    team.switchToAi,
  );

  app.post(
    '/chatbots/:chatbotId/conversations/:threadId/replies',
    endpoint({
      ...write,
      status: 201,
      data: Type.Object({ message: MessageSchema, conversation: ThreadSchema }),
      tags: ['conversations'],
      summary: "Reply to the visitor as the team (the agent is the token's user)",
      description: `A reply in AI mode takes the conversation over first. ${CLOSED}`,
      params: ThreadParams,
      body: Type.Object({ message: MessageText }, { additionalProperties: false }),
    }),
    async (request) => {
      return team.reply(request.auth, request.params.chatbotId, request.params.threadId, request.body);
    },
  );

  app.post(
    '/chatbots/:chatbotId/conversations/bulk',
    endpoint({
      ...write,
      data: BulkResult,
      tags: ['conversations'],
      operationId: 'bulkUpdateConversations',
      summary: 'Resolve, reopen, tag, untag or delete several conversations',
      description:
        '`delete` needs `"confirm": true` in the body (400 CONFIRMATION_REQUIRED otherwise, nothing deleted) and the conversations:delete scope. Each thread gets its own result.',
      params: ChatbotParams,
      body: Type.Object(
        {
          action: Type.Enum(['resolve', 'reopen', 'tag', 'untag', 'delete']),
          threadIds: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 500 }),
          tagIds: Type.Optional(TagIds),
          confirm: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => {
      const auth = request.auth;
      // Deleting needs the delete scope on top of the route's write scope.
      if (request.body.action === 'delete') requireScopes(auth, ['conversations:delete']);
      return team.bulk(auth, request.params.chatbotId, request.body as never);
    },
  );
}
