/** The shapes of conversations in `data` (shared/conversations.ts types them): Thread, ThreadMessage, ChatUser. */
import Type from 'typebox';
import { LAST_MESSAGE_PREVIEW } from '../../../shared/conversations.js';
import { nullable } from './resource-schemas.js';
import { Time } from './schemas.js';

export const ChatUserSchema = Type.Object(
  {
    id: Type.String(),
    email: nullable(Type.String()),
    name: nullable(Type.String()),
    phone: nullable(Type.String()),
    verified: Type.Boolean({ description: 'The e-mail address was verified with a one-time code' }),
    context: Type.Record(Type.String(), Type.String(), {
      description:
        "What the site passed about the visitor's page with the widget's `context` (URL, title, custom fields: 20 keys, values up to 500 characters); {} when none",
    }),
    page: nullable(
      Type.String({
        description:
          'The page the visitor last wrote from, as the widget saw it (an http(s) address without its fragment, up to 2048 characters); null before their first message or from other clients',
      }),
    ),
    createdAt: Time,
  },
  { title: 'ChatUser' },
);

export const ThreadSchema = Type.Object(
  {
    threadId: Type.String(),
    chatbotId: Type.String(),
    chatUserId: nullable(Type.String()),
    chatUser: nullable(ChatUserSchema),
    mode: Type.Enum(['AI', 'AGENT']),
    status: Type.Enum(['OPEN', 'RESOLVED']),
    escalated: Type.Boolean(),
    agentId: nullable(Type.String({ description: 'The team member who took it over (mode AGENT)' })),
    startedAt: Time,
    updatedAt: Time,
    endedAt: nullable(Time),
    webhookUrl: nullable(Type.String()),
    webhookToken: nullable(Type.String()),
    totalMessagesRead: Type.Integer(),
    messageCount: Type.Integer(),
    lastMessageAt: nullable(Time),
    lastMessage: nullable(
      Type.Object(
        {
          id: Type.String(),
          author: Type.Enum(['visitor', 'ai', 'agent', 'system']),
          text: Type.String({ description: `The first ${LAST_MESSAGE_PREVIEW} characters, ending in … when cut` }),
          createdAt: Time,
        },
        { description: 'The latest message, to tell conversations apart in a list' },
      ),
    ),
    tags: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), color: nullable(Type.String()) })),
    seq: Type.Integer({ description: 'The last event number; a client that saw it has seen every change before it' }),
  },
  { title: 'Conversation' },
);

const SourceRef = Type.Object(
  {
    documentId: Type.String(),
    title: Type.String(),
    url: nullable(Type.String()),
    link: nullable(
      Type.String({ description: 'Straight to the place: a #:~:text= fragment, #page=N of a PDF, t=Ns of a video' }),
    ),
    headingPath: Type.Array(Type.String()),
    page: Type.Optional(Type.Integer()),
    startSeconds: Type.Optional(Type.Number()),
  },
  { title: 'SourceRef' },
);

export const MessageSchema = Type.Object(
  {
    id: Type.String(),
    threadId: Type.String(),
    author: Type.Enum(['visitor', 'ai', 'agent', 'system']),
    name: nullable(Type.String({ description: "The author's display name when it was written" })),
    text: Type.String(),
    sources: Type.Array(SourceRef, { description: 'AI answers: the places cited' }),
    followUps: Type.Array(
      Type.Object({
        title: Type.String(),
        description: Type.String(),
        link: nullable(Type.String()),
        isEscalationPrompt: Type.Boolean(),
      }),
      { description: 'AI answers: suggested next questions' },
    ),
    agent: nullable(Type.Object({ id: Type.String(), name: Type.String() })),
    feedback: nullable(Type.Enum(['up', 'down'])),
    feedbackComment: nullable(Type.String()),
    originalText: nullable(
      Type.String({ description: "AI answers corrected by the team keep the AI's own text here" }),
    ),
    unanswered: Type.Boolean(),
    seq: Type.Integer(),
    createdAt: Time,
    updatedAt: Time,
  },
  { title: 'Message' },
);

/** `data` of a visitor message: it, and the AI's answer or null. */
export const VisitorMessage = Type.Object({ message: MessageSchema, answer: nullable(MessageSchema) });
