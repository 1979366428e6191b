/**
 * Every refused request becomes one error type: the envelope's `error.code` (stable, match on it),
 * the HTTP status, the request id to quote in a report, and the envelope's hint and details.
 */
import type { components } from './generated/api.js';

/** The API's error codes, from the OpenAPI document (`ErrorEnvelope.error.code`). */
export type ErrorCode = components['schemas']['ErrorEnvelope']['error']['code'];

/** `VALIDATION_FAILED` details: one item per failing field. */
export interface ValidationDetail {
  /** The failing field, one element per level (`['visitor', 'email']`). */
  path: Array<string | number>;
  message: string;
  /** Where the field was: `body`, `query`, `params`, `headers`. */
  in?: string;
}

export class ParleyError extends Error {
  override readonly name = 'ParleyError';
  /** The envelope's code; `UNEXPECTED_RESPONSE` when the answer was not the API's envelope (a proxy's page). */
  readonly code: ErrorCode | 'UNEXPECTED_RESPONSE';
  readonly status: number;
  /** `meta.requestId` (or the X-Request-Id header): quote it when reporting a problem. */
  readonly requestId: string | null;
  /** The suggested next step, when the API gave one. */
  readonly hint: string | undefined;
  /** `VALIDATION_FAILED`: ValidationDetail[]; `TOKEN_SCOPE_NOT_ALLOWED`: {requiredScopes}. */
  readonly details: unknown;
  /** Seconds the server asked to wait before trying again (Retry-After), when it said. */
  readonly retryAfter: number | null;

  constructor(init: {
    code: ParleyError['code'];
    status: number;
    message: string;
    requestId: string | null;
    hint?: string;
    details?: unknown;
    retryAfter?: number | null;
  }) {
    super(init.message);
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.hint = init.hint;
    this.details = init.details;
    this.retryAfter = init.retryAfter ?? null;
  }
}

interface ErrorBody {
  ok?: false;
  error?: { code?: unknown; message?: unknown; hint?: unknown; details?: unknown };
  meta?: { requestId?: unknown };
}

/** The error a non-2xx answer means; `body` is what openapi-fetch parsed (JSON, or the text). */
export function errorFrom(response: Response, body: unknown): ParleyError {
  const parsed = (body && typeof body === 'object' ? body : {}) as ErrorBody;
  const error = parsed.error;
  const requestId =
    typeof parsed.meta?.requestId === 'string' ? parsed.meta.requestId : response.headers.get('x-request-id');
  const retryAfter = retryAfterSeconds(response.headers);
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string') {
    return new ParleyError({
      code: 'UNEXPECTED_RESPONSE',
      status: response.status,
      message: `${response.url} answered ${response.status} ${response.statusText} without the API's error envelope`,
      requestId,
      retryAfter,
    });
  }
  return new ParleyError({
    code: error.code as ErrorCode,
    status: response.status,
    message: error.message,
    requestId,
    hint: typeof error.hint === 'string' ? error.hint : undefined,
    details: error.details,
    retryAfter,
  });
}

/** Retry-After in seconds: a number of seconds or an HTTP date (RFC 9110 10.2.3); null when absent or unreadable. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | null {
  const raw = headers.get('retry-after')?.trim();
  if (!raw) return null;
  if (/^\d+$/.test(raw)) return Number(raw);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
