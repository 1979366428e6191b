/**
 * Client frames (shared/protocol.ts ClientFrame) checked against one schema per `type`; a frame
 * that is not JSON, has an unknown type or wrong fields is refused with VALIDATION_FAILED and
 * changes nothing.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import Type, { type TSchema } from 'typebox';
import { type ClientFrame, LIMITS } from '../../shared/protocol.js';
import type { FieldError } from '../../shared/errors.js';
import { fieldErrors } from '../http/errors.js';
import { MAX_JSON_DEPTH, nestedTooDeep } from '../http/json-body.js';

const Id = Type.String({ minLength: 1, maxLength: 64 });
const ClientId = Type.String({ minLength: 1, maxLength: LIMITS.clientIdMax, pattern: '^[A-Za-z0-9_:.-]+$' });
const frame = (type: string, fields: Record<string, TSchema> = {}) =>
  Type.Object({ type: Type.Literal(type), ...fields }, { additionalProperties: false });
const opt = <T extends TSchema>(s: T) => Type.Optional(s);
/** TypeBox drops a Record key's own limits (any key matches): `propertyNames` keeps them. */
const keys = (maxLength: number) => ({ propertyNames: { type: 'string', minLength: 1, maxLength } });

const Version = Type.Integer({ minimum: 1, maximum: 1000 });
const Resume = opt(Type.Record(Id, Type.Integer({ minimum: 0 }), { maxProperties: 100, ...keys(64) }));
/** The SSE fallback's opening body: the socket's hello, its token coming in `Authorization` instead. */
export const SseHello = frame('hello', { v: Version, resume: Resume });

const SCHEMAS: Record<ClientFrame['type'], TSchema> = {
  hello: frame('hello', {
    v: Version,
    resume: Resume,
    token: opt(Type.String({ minLength: 1, maxLength: 1024 })),
  }),
  'message.send': frame('message.send', {
    clientId: ClientId,
    conversationId: opt(Id),
    text: Type.String({ minLength: 1, maxLength: LIMITS.maxMessageChars, pattern: '\\S' }),
    via: opt(Type.Object({ kind: Type.Union([Type.Literal('starter'), Type.Literal('followup')]), id: opt(Id) }, { additionalProperties: false })),
  }),
  typing: frame('typing', { conversationId: Id, typing: Type.Boolean() }),
  feedback: frame('feedback', {
    conversationId: Id,
    messageId: Id,
    feedback: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Null()]),
    comment: opt(Type.String({ maxLength: 2000 })),
  }),
  escalate: frame('escalate', { conversationId: Id, reason: opt(Type.String({ maxLength: 2000 })) }),
  'lead.submit': frame('lead.submit', {
    conversationId: opt(Id),
    email: opt(Type.String({ maxLength: 320, format: 'email' })),
    name: opt(Type.String({ maxLength: 200 })),
    phone: opt(Type.String({ maxLength: 40, pattern: '^[0-9+()\\-. ]{3,40}$' })),
    customFields: opt(Type.Record(Type.String({ maxLength: 40 }), Type.Union([Type.String({ maxLength: 2000 }), Type.Number()]), { maxProperties: 50, ...keys(40) })),
  }),
  'otp.request': frame('otp.request', {
    email: Type.String({ maxLength: 320, format: 'email' }),
    name: opt(Type.String({ maxLength: 200 })),
    phone: opt(Type.String({ maxLength: 40, pattern: '^[0-9+()\\-. ]{3,40}$' })),
  }),
  'otp.verify': frame('otp.verify', { email: Type.String({ maxLength: 320, format: 'email' }), code: Type.String({ pattern: '^[0-9]{6}$' }) }),
  'conversations.list': frame('conversations.list'),
  'conversation.open': frame('conversation.open', { conversationId: Id, after: opt(Type.Integer({ minimum: 0 })) }),
  logout: frame('logout'),
  ping: frame('ping'),
};

let compiled: Map<string, ValidateFunction> | null = null;
function validators(): Map<string, ValidateFunction> {
  if (compiled) return compiled;
  const ajv = new Ajv({ allErrors: true, strict: false });
  // e-mail format without pulling ajv-formats' whole set into the socket path
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
  compiled = new Map(Object.entries(SCHEMAS).map(([type, schema]) => [type, ajv.compile(schema)]));
  return compiled;
}

export type ParsedFrame = { ok: true; frame: ClientFrame } | { ok: false; message: string; details: FieldError[]; type?: string };

/** Parses one frame's text; never throws. */
export function parseClientFrame(raw: string): ParsedFrame {
  // The HTTP bodies' limit (http/json-body.ts), so a frame is refused alike on the socket and the fallback.
  if (nestedTooDeep(raw)) return { ok: false, message: `The frame nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep`, details: [{ path: [], message: `is nested more than ${MAX_JSON_DEPTH} levels deep` }] };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, message: 'The frame is not valid JSON', details: [] };
  }
  return checkClientFrame(value);
}

/** Checks a parsed frame (a JSON body, already held to the depth limit); never throws. */
export function checkClientFrame(value: unknown): ParsedFrame {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'A frame is a JSON object with a "type"', details: [{ path: [], message: 'must be an object' }] };
  const type = (value as { type?: unknown }).type;
  const validate = typeof type === 'string' ? validators().get(type) : undefined;
  if (!validate) {
    return { ok: false, message: `Unknown frame type ${JSON.stringify(type)?.slice(0, 60)}`, details: [{ path: ['type'], message: `must be one of ${Object.keys(SCHEMAS).join(', ')}` }] };
  }
  if (!validate(value)) {
    return { ok: false, type: type as string, message: `The ${type as string} frame is not valid`, details: fieldErrors((validate.errors ?? []) as never, undefined) };
  }
  return { ok: true, frame: value as ClientFrame };
}
