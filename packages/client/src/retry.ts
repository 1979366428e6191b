/**
 * The fetch under every call: a 429 or 503 is sent again after the Retry-After the server gave
 * (or a short backoff when it gave none), a bounded number of times; a wait longer than the bound
 * is not waited for, and the caller gets the error with its `retryAfter`. Both statuses mean the
 * request was refused before it did anything, so resending a write is safe; the Idempotency-Key
 * (set before this runs) is the same on every attempt.
 */
import { retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Attempts after the first. Default 2; 0 turns retrying off. */
  retries?: number;
  /** The longest wait accepted, in milliseconds; a longer Retry-After is returned to the caller. Default 30 000. */
  maxDelayMs?: number;
}

export interface RetryInfo {
  method: string;
  url: string;
  status: number;
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
}

const RETRY_STATUSES = new Set([429, 503]);

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

export function retryingFetch(
  send: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
  onRetry?: (info: RetryInfo) => void,
): (request: Request) => Promise<Response> {
  const retries = options.retries ?? 2;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      // The body of a Request can be read once: each attempt but the last sends a copy.
      const response = await send(attempt < retries ? request.clone() : request);
      if (!RETRY_STATUSES.has(response.status) || attempt >= retries) return response;
      const told = retryAfterSeconds(response.headers);
      const delayMs = told !== null ? told * 1000 : 500 * 2 ** attempt;
      if (delayMs > maxDelayMs) return response;
      await response.body?.cancel();
      onRetry?.({ method: request.method, url: request.url, status: response.status, attempt: attempt + 1, delayMs });
      await sleep(delayMs, request.signal);
    }
  };
}
