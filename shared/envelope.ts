import type { ErrorCode } from './errors.js';

/** The v2 response envelope (spec 2.1): every v2 response, success or error, has this shape. */
export interface Meta {
  requestId: string;
  warnings?: string[];
  nextCursor?: string | null;
}

export interface SuccessEnvelope<T> {
  ok: true;
  data: T;
  meta: Meta;
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  hint?: string;
  details?: unknown;
}

export interface ErrorEnvelope {
  ok: false;
  error: ErrorBody;
  meta: Meta;
}

export type Envelope<T> = SuccessEnvelope<T> | ErrorEnvelope;

/** `data.pagination` of every list endpoint (spec 2.2). */
export interface Pagination {
  limit: number;
  hasNextPage: boolean;
  nextCursor: string | null;
}

/** The legacy v0/v1 success body (spec 2.4): no `ok`, no `meta`; lists are whole arrays. */
export interface LegacySuccess<T> {
  success: true;
  message: string;
  data: T;
}

/** The legacy v0/v1 error body (spec 2.4); `details` lists failing fields ({path, message}) or is null. */
export interface LegacyError {
  success: false;
  message: string;
  data: null;
  error: { code: ErrorCode; message: string; details: { path: (string | number)[]; message: string }[] | null };
}
