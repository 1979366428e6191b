/**
 * Client frames (widget or team stream -> server), declared once: the server validates each
 * frame against its schema (server/realtime/frames.ts), and the types below are derived from
 * them. The widget imports only the types (through shared/protocol.ts), so TypeBox never
 * reaches its bundle.
 */
import Type, { type Static, type TProperties, type TSchema } from 'typebox';
import { LIMITS } from './protocol.js';

const Id = Type.String({ minLength: 1, maxLength: 64 });
const ClientId = Type.String({ minLength: 1, maxLength: LIMITS.clientIdMax, pattern: '^[A-Za-z0-9_:.-]+$' });
const frame = <T extends string, F extends TProperties = Record<never, never>>(type: T, fields: F = {} as F) =>
  Type.Object({ type: Type.Literal(type), ...fields }, { additionalProperties: false });
const opt = <T extends TSchema>(s: T) => Type.Optional(s);
/** TypeBox drops a Record key's own limits (any key matches): `propertyNames` keeps them. */
const keys = (maxLength: number) => ({ propertyNames: { type: 'string', minLength: 1, maxLength } });
const Email = Type.String({ maxLength: 320, format: 'email' });
const Name = Type.String({ maxLength: 200 });
const Phone = Type.String({ maxLength: 40, pattern: '^[0-9+()\\-. ]{3,40}$' });

const Version = Type.Integer({ minimum: 1, maximum: 1000 });
/** Last seen seq per conversation id. */
const Resume = opt(Type.Record(Id, Type.Integer({ minimum: 0 }), { maxProperties: 100, ...keys(64) }));

/** The SSE fallback's opening body: the socket's hello, its token coming in `Authorization` instead. */
export const SseHello = frame('hello', { v: Version, resume: Resume });

export const HelloFrame = frame('hello', {
  v: Version,
  resume: Resume,
  /** The session token, when it could not be offered as a subprotocol at the upgrade. */
  token: opt(Type.String({ minLength: 1, maxLength: 1024 })),
});
export const SendMessageFrame = frame('message.send', {
  /** A client-made id (1-64 chars): a resend with the same id is stored once and answered once. */
  clientId: ClientId,
  /** Absent: start a new conversation. */
  conversationId: opt(Id),
  text: Type.String({ minLength: 1, maxLength: LIMITS.maxMessageChars, pattern: '\\S' }),
  /** A starter or follow-up the visitor clicked. */
  via: opt(
    Type.Object(
      { kind: Type.Union([Type.Literal('starter'), Type.Literal('followup')]), id: opt(Id) },
      { additionalProperties: false },
    ),
  ),
  /** The address of the page the visitor writes from (http(s), no fragment): shown to the team as the visitor's page. */
  page: opt(Type.String({ maxLength: LIMITS.pageUrlMax, pattern: '^https?://[^\\s#]+$' })),
});
export const TypingFrame = frame('typing', { conversationId: Id, typing: Type.Boolean() });
export const FeedbackFrame = frame('feedback', {
  conversationId: Id,
  messageId: Id,
  feedback: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Null()]),
  comment: opt(Type.String({ maxLength: 2000 })),
});
export const EscalateFrame = frame('escalate', { conversationId: Id, reason: opt(Type.String({ maxLength: 2000 })) });
export const LeadFrame = frame('lead.submit', {
  conversationId: opt(Id),
  email: opt(Email),
  name: opt(Name),
  phone: opt(Phone),
  customFields: opt(
    Type.Record(Type.String({ maxLength: 40 }), Type.Union([Type.String({ maxLength: 2000 }), Type.Number()]), {
      maxProperties: 50,
      ...keys(40),
    }),
  ),
});
export const OtpRequestFrame = frame('otp.request', { email: Email, name: opt(Name), phone: opt(Phone) });
export const OtpVerifyFrame = frame('otp.verify', { email: Email, code: Type.String({ pattern: '^[0-9]{6}$' }) });
export const ListConversationsFrame = frame('conversations.list');
export const OpenConversationFrame = frame('conversation.open', {
  conversationId: Id,
  /** Replay events after this seq (0 or absent: the whole history). */
  after: opt(Type.Integer({ minimum: 0 })),
});
export const LogoutFrame = frame('logout');
export const PingFrame = frame('ping');

export type HelloFrame = Static<typeof HelloFrame>;
export type SendMessageFrame = Static<typeof SendMessageFrame>;
export type TypingFrame = Static<typeof TypingFrame>;
export type FeedbackFrame = Static<typeof FeedbackFrame>;
export type EscalateFrame = Static<typeof EscalateFrame>;
export type LeadFrame = Static<typeof LeadFrame>;
export type OtpRequestFrame = Static<typeof OtpRequestFrame>;
export type OtpVerifyFrame = Static<typeof OtpVerifyFrame>;
export type ListConversationsFrame = Static<typeof ListConversationsFrame>;
export type OpenConversationFrame = Static<typeof OpenConversationFrame>;
export type LogoutFrame = Static<typeof LogoutFrame>;
export type PingFrame = Static<typeof PingFrame>;

export type ClientFrame =
  | HelloFrame
  | SendMessageFrame
  | TypingFrame
  | FeedbackFrame
  | EscalateFrame
  | LeadFrame
  | OtpRequestFrame
  | OtpVerifyFrame
  | ListConversationsFrame
  | OpenConversationFrame
  | LogoutFrame
  | PingFrame;

/** One schema per client frame type (a frame of another type is refused). */
export const CLIENT_FRAMES: { [K in ClientFrame['type']]: TSchema } = {
  hello: HelloFrame,
  'message.send': SendMessageFrame,
  typing: TypingFrame,
  feedback: FeedbackFrame,
  escalate: EscalateFrame,
  'lead.submit': LeadFrame,
  'otp.request': OtpRequestFrame,
  'otp.verify': OtpVerifyFrame,
  'conversations.list': ListConversationsFrame,
  'conversation.open': OpenConversationFrame,
  logout: LogoutFrame,
  ping: PingFrame,
};
