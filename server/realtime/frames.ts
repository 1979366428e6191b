/**
 * Client frames checked against their schemas (shared/client-frames.ts), one per `type`; a frame
 * that is not JSON, has an unknown type or wrong fields is refused with VALIDATION_FAILED and
 * changes nothing.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { CLIENT_FRAMES, type ClientFrame } from '../../shared/client-frames.js';
import type { FieldError } from '../../shared/errors.js';
import { fieldErrors } from '../http/errors.js';
import { MAX_JSON_DEPTH, nestedTooDeep } from '../http/json-body.js';

export { SseHello } from '../../shared/client-frames.js';

let compiled: Map<string, ValidateFunction> | null = null;
function validators(): Map<string, ValidateFunction> {
  if (compiled) return compiled;
  const ajv = new Ajv({ allErrors: true, strict: false });
  // e-mail format without pulling ajv-formats' whole set into the socket path
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
  compiled = new Map(Object.entries(CLIENT_FRAMES).map(([type, schema]) => [type, ajv.compile(schema)]));
  return compiled;
}

export type ParsedFrame =
  { ok: true; frame: ClientFrame } | { ok: false; message: string; details: FieldError[]; type?: string };

/** Parses one frame's text; never throws. */
export function parseClientFrame(raw: string): ParsedFrame {
  // The HTTP bodies' limit (http/json-body.ts), so a frame is refused alike on the socket and the fallback.
  if (nestedTooDeep(raw))
    return {
      ok: false,
      message: `The frame nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep`,
      details: [{ path: [], message: `is nested more than ${MAX_JSON_DEPTH} levels deep` }],
    };
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
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return {
      ok: false,
      message: 'A frame is a JSON object with a "type"',
      details: [{ path: [], message: 'must be an object' }],
    };
  const type = (value as { type?: unknown }).type;
  const validate = typeof type === 'string' ? validators().get(type) : undefined;
  if (!validate) {
    return {
      ok: false,
      message: `Unknown frame type ${JSON.stringify(type)?.slice(0, 60)}`,
      details: [{ path: ['type'], message: `must be one of ${Object.keys(CLIENT_FRAMES).join(', ')}` }],
    };
  }
  if (!validate(value)) {
    return {
      ok: false,
      type: type as string,
      message: `The ${type as string} frame is not valid`,
      details: fieldErrors((validate.errors ?? []) as never, undefined),
    };
  }
  return { ok: true, frame: value as ClientFrame };
}
