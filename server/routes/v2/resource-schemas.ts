/**
 * Schemas shared by the owner's resource routes (starters, follow-ups, instructions, personas,
 * custom responses, tags, members, leads, knowledge gaps): request pieces and, for the OpenAPI
 * document, the shape of each resource in `data`.
 */
import Type, { type TSchema } from 'typebox';
import { ROLES } from '../../../shared/scopes.js';
import { ChatbotParams, Pagination, Time } from './schemas.js';

const Id = Type.String({ minLength: 1, maxLength: 64 });
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Path parameters: the chatbot and one item of it under `name`. */
export const itemParams = <K extends string>(name: K) =>
  Type.Object({ chatbotId: ChatbotParams.properties.chatbotId, [name]: Id } as { chatbotId: typeof Id } & Record<
    K,
    typeof Id
  >);

/** A string with at least one non-space character; stored trimmed. */
export const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: '\\S', ...(description ? { description } : {}) });

export const Link = nullable(
  Type.String({
    maxLength: 2048,
    pattern: '^https?://[^\\s]+$',
    description: 'An http(s) URL; when set, a click opens it instead of sending the message',
  }),
);

export const Position = Type.Integer({
  minimum: 0,
  maximum: 10_000,
  description: 'Sort order, ascending; default: after the last one',
});

/** `?confirm=true` and the statement of what a refusal leaves. */
export const CONFIRM_NOTE = 'Needs ?confirm=true; without it 400 CONFIRMATION_REQUIRED and nothing is deleted.';
export const NOT_FOUND_NOTE = 'Ids of other chatbots or accounts answer 404 as if they did not exist.';

const base = { id: Id, chatbotId: Id };
const stamps = { createdAt: Time, updatedAt: Time };

export const StarterSchema = Type.Object(
  {
    ...base,
    title: Type.String({ description: 'Button text' }),
    description: Type.String({ description: 'The message sent when a visitor clicks it' }),
    link: nullable(Type.String()),
    position: Type.Integer(),
    ...stamps,
  },
  { title: 'Starter' },
);

export const FollowupSchema = Type.Object(
  {
    ...StarterSchema.properties,
    isEscalationPrompt: Type.Boolean({
      description: 'Clicking it asks for a person; at most one follow-up of a chatbot has it',
    }),
  },
  { title: 'Followup' },
);

export const InstructionSchema = Type.Object(
  {
    ...base,
    title: Type.String(),
    description: Type.String(),
    instructions: Type.String({ description: 'Given to the language model' }),
    temperature: nullable(
      Type.Number({ description: '0 focused to 1 creative; null: the chatbot creativity setting decides' }),
    ),
    active: Type.Boolean({ description: 'It is the active instruction (settings.promptId)' }),
    ...stamps,
  },
  { title: 'Instruction' },
);

export const PersonaSchema = Type.Object(
  {
    ...base,
    title: Type.String(),
    description: Type.String(),
    instructions: Type.String({ description: 'Who the assistant speaks as; given to the language model' }),
    active: Type.Boolean({ description: 'It is the active persona (settings.personaId)' }),
    ...stamps,
  },
  { title: 'Persona' },
);

export const CustomResponseSchema = Type.Object(
  { ...base, question: Type.String(), answer: Type.String(), ...stamps },
  { title: 'CustomResponse' },
);

export const TagSchema = Type.Object(
  {
    ...base,
    name: Type.String(),
    color: nullable(Type.String()),
    conversationCount: Type.Integer({ description: 'Conversations carrying the tag' }),
    ...stamps,
  },
  { title: 'Tag' },
);

export const MemberSchema = Type.Object(
  {
    ...base,
    userId: Id,
    email: Type.String(),
    name: nullable(Type.String()),
    role: Type.Enum([...ROLES], { description: "The user's dashboard role: it bounds what their tokens may do" }),
    invitedById: nullable(Id),
    createdAt: Time,
  },
  { title: 'Member' },
);

export const LeadSchema = Type.Object(
  {
    ...base,
    threadId: nullable(Id),
    chatUserId: nullable(Id),
    name: nullable(Type.String()),
    email: nullable(Type.String()),
    phone: nullable(Type.String()),
    customFields: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), {
      description: 'Values of the chatbot leadFields, by key',
    }),
    source: Type.String(),
    createdAt: Time,
  },
  { title: 'Lead' },
);

export const KnowledgeGapSchema = Type.Object(
  {
    ...base,
    threadId: nullable(Id),
    messageId: nullable(Id),
    question: Type.String(),
    answered: Type.Boolean(),
    answeredAt: nullable(Time),
    customResponseId: nullable(Id),
    createdAt: Time,
  },
  { title: 'KnowledgeGap' },
);

/** `data` of one item under `key`. */
export const one = (key: string, schema: TSchema) => Type.Object({ [key]: schema });
/** `data` of a whole list under `key`. */
export const all = (key: string, schema: TSchema) => Type.Object({ [key]: Type.Array(schema) });
/** `data` of a page of a list under `key`. */
export const page = (key: string, schema: TSchema) =>
  Type.Object({ [key]: Type.Array(schema), pagination: Pagination });
