/**
 * The public v2 API, as the signed-in user: the session cookie is the credential (no token in
 * the page), every change carries the session's CSRF token. Answers come unwrapped from the
 * envelope; failures throw ApiError with the API's code, message and hint.
 */
import { signal } from '@preact/signals';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly details?: unknown,
    /** Seconds to wait before trying again (Retry-After), when the API said. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** The CSRF token of this browser's session (GET /session hands it out; sign-in renews it). */
let csrfToken = '';
export const setCsrfToken = (token: string) => (csrfToken = token);

/** Set when a call finds the session over (signed out elsewhere, expired): the shell shows sign-in. */
export const sessionEnded = signal(false);

export interface CallOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  signal?: AbortSignal;
  /** Do not treat a 401 as the session's end (the sign-in form's own calls). */
  quiet401?: boolean;
}

const SAFE = new Set(['GET', 'HEAD']);

/** `method` on `/api/v2${path}`; `body` is sent as JSON, or as is when it is FormData (uploads). */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  options: CallOptions = {},
): Promise<T> {
  const url = new URL(`/api/v2${path}`, location.origin);
  for (const [k, v] of Object.entries(options.query ?? {}))
    if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  const send = () => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (!SAFE.has(method)) headers['x-csrf-token'] = csrfToken;
    const form = typeof FormData !== 'undefined' && body instanceof FormData;
    if (body !== undefined && !form) headers['content-type'] = 'application/json';
    return fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      signal: options.signal,
      ...(body !== undefined ? { body: form ? (body as FormData) : JSON.stringify(body) } : {}),
    });
  };
  let res = await send();
  let envelope = await res.json().catch(() => null);
  if (res.status === 403 && envelope?.error?.code === 'CSRF_TOKEN_NOT_VALID') {
    // The secret cookie was lost (cleared, or another tab signed in again): fetch a fresh token, once.
    const session = await fetch('/api/v2/session', { credentials: 'same-origin' }).then((r) => r.json());
    if (session?.data?.csrfToken) csrfToken = session.data.csrfToken;
    res = await send();
    envelope = await res.json().catch(() => null);
  }
  if (res.ok && envelope?.ok) return envelope.data as T;
  const error = envelope?.error;
  if (res.status === 401 && !options.quiet401) sessionEnded.value = true;
  throw new ApiError(
    res.status,
    error?.code ?? 'INTERNAL_SERVER_ERROR',
    error?.message ?? `The server answered ${res.status}`,
    error?.hint,
    error?.details,
    Number(res.headers.get('retry-after')) || undefined,
  );
}

export const get = <T = unknown>(path: string, options?: CallOptions) => api<T>('GET', path, undefined, options);
export const post = <T = unknown>(path: string, body?: unknown, options?: CallOptions) =>
  api<T>('POST', path, body ?? {}, options);
export const patch = <T = unknown>(path: string, body: unknown, options?: CallOptions) =>
  api<T>('PATCH', path, body, options);
export const del = <T = unknown>(path: string, options?: CallOptions) => api<T>('DELETE', path, undefined, options);

/** Every item of a paginated list (`data[key]`, following `meta.nextCursor`), up to `max` items. */
export async function listAll<T>(path: string, key: string, max = 500, options: CallOptions = {}): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null | undefined;
  do {
    const data = await get<Record<string, unknown> & { pagination?: { nextCursor: string | null } }>(path, {
      ...options,
      query: { ...options.query, limit: 100, ...(cursor ? { cursor } : {}) },
    });
    items.push(...((data[key] as T[]) ?? []));
    cursor = data.pagination?.nextCursor;
  } while (cursor && items.length < max);
  return items;
}
