/**
 * v0 threads and messages: POST /chatbots/{id}/message (a new thread, or `threadId` for an
 * existing one), PATCH /chatbots/{id}/messages/{messageId}, GET/POST .../threads, GET/PATCH
 * .../threads/{threadId}, POST .../threads/{threadId}/escalate. The conversations service decides
 * everything (conditions, idempotency, answers), exactly as for v2.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { Thread } from '../../../shared/conversations.js';
import type { AuthContext } from '../../domain/auth.js';
import { endpoint } from '../../http/route.js';
import { MessageSchema } from '../v2/conversation-schemas.js';
import {
  CLOSED,
  CreateThread,
  IDEMPOTENCY,
  IdempotencyHeaders,
  MessagePatch,
  MessageText,
  replayAware,
  ThreadParams,
  ThreadPatch,
  Visitor,
} from '../v2/conversations.js';
import { nullable } from '../v2/resource-schemas.js';
import { ChatbotParams } from '../v2/schemas.js';
import { v0, wholeList } from './legacy.js';
import { LegacyThread, ThinThread, thinThread } from './shapes.js';

const MessageParams = Type.Object({
  chatbotId: ChatbotParams.properties.chatbotId,
  messageId: Type.String({ minLength: 1, maxLength: 64 }),
});
const SentMessage = Type.Object({
  threadId: Type.String({ description: 'The thread the message went to (new unless `threadId` was sent)' }),
  message: MessageSchema,
  answer: nullable(MessageSchema),
});

export default async function threads(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { team, visitors } = app.services.conversations;
  const tags = ['threads'];

  /** The v0 Thread: the conversation with every message, oldest first. */
  const withMessages = async (auth: AuthContext, chatbotId: string, conversation: Thread) => {
    const { threadId } = conversation;
    const messages = await wholeList(async (cursor) => {
      const page = await team.messages(auth, chatbotId, threadId, 500, cursor);
      return { items: page.messages, nextCursor: page.nextCursor };
    });
    return { ...thinThread(conversation), messages };
  };

  app.post(
    '/chatbots/:chatbotId/message',
    endpoint({
      ...v0('Message sent', ['conversations:write']),
      status: 201,
      data: SentMessage,
      tags,
      operationId: 'sendMessage',
      summary: 'Send a visitor message: to a new thread, or to `threadId`',
      description:
        'Without `threadId` it starts a thread (v2 POST /chatbots/{chatbotId}/messages), with it it continues that one (v2 POST .../conversations/{threadId}/messages). ' +
        `data.answer is the AI's answer or null (taken over, escalated, HUMAN_ONLY). ${CLOSED}${IDEMPOTENCY}`,
      params: ChatbotParams,
      headers: IdempotencyHeaders,
      body: Type.Object(
        {
          message: MessageText,
          threadId: Type.Optional(
            Type.String({ minLength: 1, maxLength: 64, description: 'An existing thread of the chatbot' }),
          ),
          visitor: Type.Optional(Visitor),
        },
        { additionalProperties: false },
      ),
    }),
    async (request, reply) => {
      const { threadId, ...input } = request.body;
      const clientMessageId = request.headers['idempotency-key'];
      if (threadId) {
        const sent = replayAware(
          reply,
          await visitors.sendVisitorMessage(request.auth, request.params.chatbotId, threadId, {
            ...input,
            clientMessageId,
          }),
        );
        return { threadId, message: sent.message, answer: sent.answer };
      }
      const started = replayAware(
        reply,
        await visitors.start(request.auth, request.params.chatbotId, { ...input, clientMessageId }),
      );
      return { threadId: started.conversation.threadId, message: started.message, answer: started.answer };
    },
  );

  app.patch(
    '/chatbots/:chatbotId/messages/:messageId',
    endpoint({
      ...v0('Message updated', ['conversations:write']),
      data: MessageSchema,
      tags,
      summary: "Rate an answer, or correct the AI's text (v2 PATCH .../conversations/{threadId}/messages/{messageId})",
      description: 'The thread is found from the message; a message of another chatbot is 404.',
      params: MessageParams,
      body: MessagePatch,
    }),
    async (request) =>
      (
        await team.patchMessageById(
          request.auth,
          request.params.chatbotId,
          request.params.messageId,
          request.body as never,
        )
      ).message,
  );

  app.get(
    '/chatbots/:chatbotId/threads',
    endpoint({
      ...v0('Threads fetched', ['conversations:read']),
      data: Type.Array(ThinThread),
      tags,
      summary: 'Every thread of the chatbot, newest first (not paginated; without messages)',
      params: ChatbotParams,
    }),
    async (request) => {
      const all = await wholeList(async (cursor) => {
        const page = await team.list(request.auth, request.params.chatbotId, { limit: 100, cursor });
        return { items: page.conversations, nextCursor: page.nextCursor };
      });
      return all.map((c) => thinThread(c));
    },
  );

  app.post(
    '/chatbots/:chatbotId/threads',
    endpoint({
      ...v0('Thread created', ['conversations:write']),
      status: 201,
      data: LegacyThread,
      tags,
      summary: 'Create an empty thread (v2 POST /chatbots/{chatbotId}/conversations, same body)',
      description: 'Thread-level webhook fields need the webhook add-on (403 WEBHOOKS_NOT_AVAILABLE).',
      params: ChatbotParams,
      body: CreateThread,
    }),
    async (request) => {
      const conversation = await team.create(request.auth, request.params.chatbotId, request.body ?? {});
      return { ...thinThread(conversation), messages: [] };
    },
  );

  app.get(
    '/chatbots/:chatbotId/threads/:threadId',
    endpoint({
      ...v0('Thread fetched', ['conversations:read']),
      data: LegacyThread,
      tags,
      summary: 'A thread with every message',
      params: ThreadParams,
    }),
    async (request) => {
      const { conversation } = await team.get(request.auth, request.params.chatbotId, request.params.threadId);
      return withMessages(request.auth, request.params.chatbotId, conversation);
    },
  );

  app.patch(
    '/chatbots/:chatbotId/threads/:threadId',
    endpoint({
      ...v0('Thread updated', ['conversations:write']),
      data: LegacyThread,
      tags,
      summary:
        'Resolve, reopen, tag, set the thread webhook, add visitor details (v2 PATCH .../conversations/{threadId}, same body)',
      params: ThreadParams,
      body: ThreadPatch,
    }),
    async (request) => {
      const { conversation } = await team.patch(
        request.auth,
        request.params.chatbotId,
        request.params.threadId,
        request.body as never,
      );
      return withMessages(request.auth, request.params.chatbotId, conversation);
    },
  );

  app.post(
    '/chatbots/:chatbotId/threads/:threadId/escalate',
    endpoint({
      ...v0('Thread escalated', ['conversations:write']),
      data: LegacyThread,
      tags,
      summary: 'The visitor asks for a person',
      description: `403 HUMAN_TAKEOVER when taken over and not escalated (success when already escalated). ${CLOSED}`,
      params: ThreadParams,
    }),
    async (request) => {
      const { conversation } = await team.escalate(request.auth, request.params.chatbotId, request.params.threadId);
      return withMessages(request.auth, request.params.chatbotId, conversation);
    },
  );
}
