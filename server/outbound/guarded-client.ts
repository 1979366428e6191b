/**
 * The one way Parley talks to the outside world. Every hop of every request is checked (scheme,
 * literal address before dispatch, resolved addresses inside the socket's lookup), redirects are
 * followed by hand so each target is checked again, and one deadline covers connect, headers and
 * body. `request` buffers a bounded body; `fetch` is a WHATWG fetch for SDKs and streaming.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import type { Agent, request as undiciRequest } from 'undici';
import { boundBody } from './body.js';
import { OutboundError, findOutboundError, type OutboundErrorCode } from './errors.js';
import { loadUndici } from './undici.js';
import {
  assertAddressAllowed,
  createGuardedAgent,
  systemResolver,
  type AddressGuard,
  type Resolver,
} from './guarded-agent.js';

export { OutboundError, type OutboundErrorCode } from './errors.js';
export type { Resolver, ResolvedAddress } from './guarded-agent.js';

export interface OutboundLimits {
  /** Largest body on the wire, in bytes (Content-Length over it is refused before reading). */
  maxBytes?: number;
  /** One deadline for connect + headers + the whole body, redirects included. */
  timeoutMs?: number;
  maxRedirects?: number;
  /** Largest body after gzip/deflate/br decoding; defaults to maxBytes. */
  maxDecompressedBytes?: number;
}

export interface OutboundOptions {
  /** ALLOW_PRIVATE_FETCH=1. Disables only the address check; every limit still applies. */
  allowPrivate: boolean;
  userAgent?: string;
  defaults?: OutboundLimits;
  /** DNS resolution; defaults to the system resolver (dns.lookup, all addresses). */
  lookup?: Resolver;
  /** Addresses for which this returns true count as public: ALLOW_PRIVATE_FETCH=<ranges> (addressRangeMatcher), and tests. */
  isAllowedAddress?: (ip: string) => boolean;
  /** PEM certificates trusted in addition to the system roots (an intranet's own CA). */
  extraCaCertificates?: string[];
}

export interface FetchedResponse {
  /** Final URL after redirects. */
  url: string;
  status: number;
  /** Lower-case names; repeated headers joined with ", ". Content-Encoding/Length dropped when decoded. */
  headers: Record<string, string>;
  contentType: string | null;
  /** Decoded body. */
  body: Buffer;
  /** The URLs that answered with a redirect, in order (the final URL is not among them). */
  redirects: string[];
}

export interface OutboundRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  limits?: OutboundLimits;
  /** Default true. When false a 3xx is returned as it is. */
  followRedirects?: boolean;
  /** Caller's cancellation; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

export const DEFAULT_USER_AGENT = 'Parley/0.1 (+https://github.com/parley-chat/parley)';
export const DEFAULT_LIMITS = { maxBytes: 10 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 5 } as const;

type ResolvedLimits = Required<OutboundLimits>;
type RedirectMode = 'follow' | 'manual' | 'error';

interface Exchange {
  url: string;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Readable;
  decoded: boolean;
  redirects: string[];
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
// Set by the HTTP layer itself; a caller's value would be wrong or dangerous (request smuggling).
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'content-length',
]);
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location'];

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** One deadline plus the caller's signal, merged into the signal every hop and body read uses. */
function deadline(timeoutMs: number, url: string, external?: AbortSignal | null) {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(new OutboundError('TIMEOUT', url, `No complete response from ${url} within ${timeoutMs} ms`)),
    timeoutMs,
  );
  const onAbort = () => controller.abort(external?.reason);
  if (external?.aborted) controller.abort(external.reason);
  else external?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    done() {
      clearTimeout(timer);
      external?.removeEventListener('abort', onAbort);
    },
  };
}

/** Anything thrown while fetching `url` -> an OutboundError (or the caller's own abort reason). */
function toOutboundError(err: unknown, url: string, signal: AbortSignal): unknown {
  const found = findOutboundError(err);
  if (signal.aborted && (found === null || found === signal.reason)) {
    const reason: unknown = signal.reason;
    // TIMEOUT names the hop that was running; the caller's own abort is rethrown as given, like fetch.
    return reason instanceof OutboundError ? new OutboundError(reason.code, url, reason.message) : reason;
  }
  // Errors raised below the URL level (lookup, connector) carry only a host name: name the URL.
  if (found) {
    return found.url.includes('://')
      ? found
      : new OutboundError(found.code, url, found.message, { cause: found.cause, address: found.address });
  }
  const code = (err as { code?: string } | null)?.code ?? '';
  const message = (err as Error | null)?.message ?? String(err);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new OutboundError('TIMEOUT', url, `Timed out fetching ${url}: ${message}`, { cause: err });
  }
  if (code.startsWith('Z_') || code === 'ERR__ERROR_FORMAT_PADDING_1' || code.startsWith('ERR_BROTLI')) {
    return new OutboundError('NETWORK', url, `Could not decompress the response from ${url}: ${message}`, {
      cause: err,
    });
  }
  return new OutboundError('NETWORK', url, `Request to ${url} failed: ${message}`, { cause: err });
}

function fail(code: OutboundErrorCode, url: string, message: string): never {
  throw new OutboundError(code, url, message);
}

export class GuardedHttpClient {
  /** WHATWG fetch with the client's default limits (for SDKs such as openai's `fetch` option). */
  readonly fetch: typeof globalThis.fetch;
  /** Made on the first request (and undici loaded with it). */
  private agent: Promise<{ agent: Agent; request: typeof undiciRequest }> | undefined;
  private readonly agentOptions: { resolver: Resolver; extraCaCertificates?: string[] };
  private readonly guard: AddressGuard;
  private readonly userAgent: string;
  private readonly defaults: OutboundLimits;

  constructor(options: OutboundOptions) {
    this.guard = { allowPrivate: options.allowPrivate, isAllowedAddress: options.isAllowedAddress };
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.defaults = options.defaults ?? {};
    this.agentOptions = {
      resolver: options.lookup ?? systemResolver,
      extraCaCertificates: options.extraCaCertificates,
    };
    this.fetch = this.fetchWith();
  }

  /** Buffered request with every guard; follows redirects itself, re-checking each hop. */
  async request(url: string, init: OutboundRequestInit = {}): Promise<FetchedResponse> {
    const limits = this.resolveLimits(init.limits);
    const { signal, done } = deadline(limits.timeoutMs, url, init.signal);
    const hop = { url };
    try {
      const body = init.body === undefined ? null : Buffer.isBuffer(init.body) ? init.body : Buffer.from(init.body);
      const mode: RedirectMode = init.followRedirects === false ? 'manual' : 'follow';
      const exchange = await this.exchange(
        url,
        init.method ?? 'GET',
        init.headers ?? {},
        body,
        limits,
        signal,
        mode,
        hop,
      );
      const chunks: Buffer[] = [];
      for await (const chunk of exchange.body) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const name of Object.keys(exchange.headers)) {
        const value = headerValue(exchange.headers, name);
        if (value !== undefined) headers[name] = value;
      }
      if (exchange.decoded) {
        delete headers['content-encoding'];
        delete headers['content-length'];
      }
      return {
        url: exchange.url,
        status: exchange.status,
        headers,
        contentType: headers['content-type'] ?? null,
        body: Buffer.concat(chunks),
        redirects: exchange.redirects,
      };
    } catch (err) {
      throw toOutboundError(err, hop.url, signal);
    } finally {
      done();
    }
  }

  /**
   * A fetch function with these limits (e.g. a longer timeout for a language model). The deadline
   * covers the streamed body too; past maxBytes the body stream errors with TOO_LARGE.
   * Request bodies are buffered so a 307/308 can replay them.
   */
  fetchWith(overrides?: OutboundLimits): typeof globalThis.fetch {
    return async (input: RequestInfo | URL, init?: FetchInit): Promise<Response> => {
      // Duck-typed so a Request or URL from another realm (e.g. undici's own classes) still works.
      const href = typeof input === 'string' ? input : 'href' in input ? input.href : input.url;
      this.checkUrl(href);
      // The caller's signal is used directly, not handed to Request: a Request follows it with a
      // listener that stays until garbage collection, so a long-lived signal collects thousands.
      const { signal: callerSignal, ...rest } = init ?? {};
      const withDuplex = rest.body != null ? ({ ...rest, duplex: 'half' } as FetchInit) : rest;
      const req = new Request(input, withDuplex);
      const limits = this.resolveLimits(overrides);
      const external = callerSignal ?? (typeof input === 'object' && 'signal' in input ? input.signal : undefined);
      const { signal, done } = deadline(limits.timeoutMs, req.url, external);
      const hop = { url: req.url };
      let exchange: Exchange;
      try {
        const body = req.body ? Buffer.from(await req.arrayBuffer()) : null;
        const headers = Object.fromEntries(req.headers);
        exchange = await this.exchange(req.url, req.method, headers, body, limits, signal, req.redirect, hop);
      } catch (err) {
        done();
        throw toOutboundError(err, hop.url, signal);
      }
      return this.toResponse(exchange, req.method, signal, done);
    };
  }

  async close(): Promise<void> {
    const opened = this.agent;
    if (opened) await (await opened).agent.close();
  }

  private dispatcher() {
    const { resolver, extraCaCertificates } = this.agentOptions;
    return (this.agent ??= Promise.all([
      createGuardedAgent(this.guard, resolver, { extraCaCertificates }),
      loadUndici(),
    ]).then(([agent, undici]) => ({ agent, request: undici.request })));
  }

  private resolveLimits(overrides?: OutboundLimits): ResolvedLimits {
    const pick = <K extends keyof OutboundLimits>(key: K): number | undefined => overrides?.[key] ?? this.defaults[key];
    const maxBytes = pick('maxBytes') ?? DEFAULT_LIMITS.maxBytes;
    return {
      maxBytes,
      timeoutMs: pick('timeoutMs') ?? DEFAULT_LIMITS.timeoutMs,
      maxRedirects: pick('maxRedirects') ?? DEFAULT_LIMITS.maxRedirects,
      maxDecompressedBytes: pick('maxDecompressedBytes') ?? maxBytes,
    };
  }

  /** Scheme, credentials and literal addresses, judged after WHATWG parsing (2130706433 -> 127.0.0.1). */
  private checkUrl(raw: string, base?: string): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      fail('INVALID_URL', raw, `Not a valid URL: ${raw}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      fail('UNSUPPORTED_PROTOCOL', url.href, `Refused to fetch ${url.href}: only http and https are allowed`);
    }
    if (url.username || url.password) {
      fail(
        'INVALID_URL',
        url.href,
        `Refused to fetch ${url.origin}: URLs with a user name or password are not allowed`,
      );
    }
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (isIP(host) !== 0) assertAddressAllowed(host, this.guard, url.href);
    return url;
  }

  /** Sends the request and follows redirects by hand; returns the final response with a bounded body. */
  private async exchange(
    startUrl: string,
    startMethod: string,
    startHeaders: Record<string, string>,
    startBody: Buffer | null,
    limits: ResolvedLimits,
    signal: AbortSignal,
    mode: RedirectMode,
    /** Updated on every hop so errors name the URL that failed. */
    current: { url: string },
  ): Promise<Exchange> {
    let url = this.checkUrl(startUrl);
    let method = startMethod.toUpperCase();
    let body = startBody;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(startHeaders)) {
      const lower = name.toLowerCase();
      if (!HOP_BY_HOP.has(lower)) headers[lower] = value;
    }
    headers['user-agent'] ??= this.userAgent;
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    headers.accept ??= '*/*';
    const redirects: string[] = [];

    for (;;) {
      const hop = url.href;
      current.url = hop;
      let res: Awaited<ReturnType<typeof undiciRequest>>;
      try {
        const { agent, request } = await this.dispatcher();
        res = await request(url, {
          dispatcher: agent,
          method: method as 'GET',
          headers,
          body,
          signal,
          headersTimeout: limits.timeoutMs,
          bodyTimeout: limits.timeoutMs,
        });
      } catch (err) {
        throw toOutboundError(err, hop, signal);
      }
      const location = headerValue(res.headers, 'location');
      if (mode !== 'manual' && REDIRECT_STATUSES.has(res.statusCode) && location) {
        // Drain a little so the connection can be reused; a large body just closes it.
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        if (mode === 'error') fail('NETWORK', hop, `${hop} redirected, and redirects were refused for this request`);
        if (redirects.length >= limits.maxRedirects) {
          fail('TOO_MANY_REDIRECTS', hop, `${startUrl} redirected more than ${limits.maxRedirects} times`);
        }
        const next = this.checkUrl(location, hop);
        if (
          (res.statusCode === 303 && method !== 'HEAD') ||
          ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')
        ) {
          method = 'GET';
          body = null;
          for (const name of BODY_HEADERS) delete headers[name];
        }
        // Credentials were meant for the origin that asked for them, not for wherever it points.
        if (next.origin !== url.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
        redirects.push(hop);
        url = next;
        continue;
      }

      const declared = Number(headerValue(res.headers, 'content-length'));
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        res.body.destroy();
        fail(
          'TOO_LARGE',
          hop,
          `The response from ${hop} declares ${declared} bytes, over the limit of ${limits.maxBytes}`,
        );
      }
      const bounded = await boundBody(res.body, hop, limits, headerValue(res.headers, 'content-encoding')).catch(
        (err) => {
          throw toOutboundError(err, hop, signal);
        },
      );
      return {
        url: hop,
        status: res.statusCode,
        statusText: res.statusText || STATUS_CODES[res.statusCode] || '',
        headers: res.headers,
        body: bounded.stream,
        decoded: bounded.decoded,
        redirects,
      };
    }
  }

  private toResponse(exchange: Exchange, method: string, signal: AbortSignal, done: () => void): Response {
    const headers = new Headers();
    for (const [name, value] of Object.entries(exchange.headers)) {
      if (exchange.decoded && (name === 'content-encoding' || name === 'content-length')) continue;
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
        try {
          headers.append(name, v);
        } catch {
          // A header value fetch cannot represent is dropped rather than failing the response.
        }
      }
    }
    let body: ReadableStream<Uint8Array> | null = null;
    if (method === 'HEAD' || NULL_BODY_STATUSES.has(exchange.status)) {
      exchange.body.destroy();
      done();
    } else {
      body = toWebStream(exchange.body, done, (err) => toOutboundError(err, exchange.url, signal));
    }
    let response: Response;
    try {
      response = new Response(body, { status: exchange.status, statusText: exchange.statusText, headers });
    } catch (err) {
      exchange.body.destroy();
      done();
      throw new OutboundError(
        'NETWORK',
        exchange.url,
        `Unusable response from ${exchange.url}: ${(err as Error).message}`,
        { cause: err },
      );
    }
    // Response's constructor cannot set these; fetch callers (and SDKs) read them.
    Object.defineProperties(response, {
      url: { value: exchange.url },
      redirected: { value: exchange.redirects.length > 0 },
    });
    return response;
  }
}

type FetchInit = globalThis.RequestInit;

/** Node stream -> web stream, pulled one chunk at a time so backpressure (and the limits) hold. */
function toWebStream(
  source: Readable,
  settle: () => void,
  mapError: (err: unknown) => unknown,
): ReadableStream<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  let settled = false;
  const finish = () => {
    if (!settled) {
      settled = true;
      settle();
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) {
          finish();
          controller.close();
        } else {
          const chunk = next.value as Buffer;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        }
      } catch (err) {
        finish();
        controller.error(mapError(err));
      }
    },
    async cancel() {
      finish();
      await iterator.return?.();
    },
  });
}
