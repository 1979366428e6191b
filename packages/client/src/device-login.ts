/**
 * Signing in without a browser on this device: the OAuth 2.0 device authorization grant
 * (RFC 8628). Discover the endpoints (RFC 8414 metadata, whose issuer must be the server asked),
 * ask for a code, show the user where to approve it, then poll at the server's interval, 5 s
 * slower after each slow_down (and never sooner than a Retry-After), until the token, a refusal
 * or the code's expiry.
 */
import type { components } from './generated/api.js';

type Schemas = components['schemas'];
/** The OAuth error codes the endpoints answer (RFC 6749 5.2, RFC 8628 3.5). */
export type OAuthErrorCode = Schemas['OAuthError']['error'];

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export class DeviceLoginError extends Error {
  override readonly name = 'DeviceLoginError';
  constructor(
    /** The OAuth error (`access_denied`, `expired_token`…), or `unexpected_response` when the server did not speak OAuth. */
    readonly code: OAuthErrorCode | 'unexpected_response',
    message: string,
  ) {
    super(message);
  }
}

export interface DeviceLoginOptions {
  /** The site's address, e.g. `https://chat.example.com`. */
  server: string;
  /** The scopes to ask for (default: the server's standard set); the token never exceeds the approving user's role. */
  scopes?: string[];
  /** Restrict the token to these chatbots. */
  chatbots?: string[];
  /** The public client id; default `parley-cli`. */
  clientId?: string;
  /** Stops the polling (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
  fetch?: typeof globalThis.fetch;
}

/** What to show the user. */
export interface DevicePrompt {
  userCode: string;
  verificationUri: string;
  /** The address with the code filled in (for a link or a QR code). */
  verificationUriComplete: string;
  /** Seconds the code stays valid. */
  expiresIn: number;
}

export interface DeviceToken {
  accessToken: string;
  tokenType: 'Bearer';
  /** The scopes the token really has (the approving user's role may have narrowed them). */
  scopes: string[];
}

export interface DeviceAuthorization extends DevicePrompt {
  /** Seconds between polls, as the server set it. */
  interval: number;
  /** Polls until the user approves (the token) or denies, or the code expires (DeviceLoginError). */
  poll(): Promise<DeviceToken>;
}

interface Metadata {
  issuer: string;
  device_authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint?: string;
}

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });

async function readJson(response: Response): Promise<Record<string, unknown>> {
  const body: unknown = await response.json().catch(() => null);
  if (!body || typeof body !== 'object')
    throw new DeviceLoginError(
      'unexpected_response',
      `${response.url} answered ${response.status} without JSON: is this a Parley server?`,
    );
  return body as Record<string, unknown>;
}

const oauthError = (body: Record<string, unknown>, status: number) =>
  new DeviceLoginError(
    typeof body.error === 'string' ? (body.error as OAuthErrorCode) : 'unexpected_response',
    `${String(body.error ?? `HTTP ${status}`)}${body.error_description ? `: ${String(body.error_description)}` : ''}`,
  );

const form = (fetch: typeof globalThis.fetch, url: string, fields: Record<string, string>, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(fields),
    signal,
  });

/** The server's authorization server metadata (RFC 8414). */
async function discover(server: string, fetch: typeof globalThis.fetch, signal?: AbortSignal): Promise<Metadata> {
  const found = await fetch(`${server}/.well-known/oauth-authorization-server`, {
    headers: { accept: 'application/json' },
    signal,
  });
  const meta = (await readJson(found)) as unknown as Metadata;
  if (!found.ok || !meta.device_authorization_endpoint || !meta.token_endpoint)
    throw new DeviceLoginError('unexpected_response', `${server} publishes no device authorization endpoint`);
  // RFC 8414 3.3: metadata naming another issuer is not this server's.
  if (meta.issuer !== server)
    throw new DeviceLoginError('unexpected_response', `${server} describes issuer ${meta.issuer}: use that address`);
  return meta;
}

/** Asks for a device code; show the user `verificationUri` and `userCode`, then call `poll()`. */
export async function startDeviceLogin(options: DeviceLoginOptions): Promise<DeviceAuthorization> {
  const server = options.server.replace(/\/+$/, '');
  const fetch = options.fetch ?? globalThis.fetch;
  const clientId = options.clientId ?? 'parley-cli';
  const post = (url: string, fields: Record<string, string>) => form(fetch, url, fields, options.signal);
  const meta = await discover(server, fetch, options.signal);

  const started = await post(meta.device_authorization_endpoint, {
    client_id: clientId,
    ...(options.scopes?.length ? { scope: options.scopes.join(' ') } : {}),
    ...(options.chatbots?.length ? { chatbots: options.chatbots.join(' ') } : {}),
  });
  const body = await readJson(started);
  if (!started.ok) throw oauthError(body, started.status);
  const code = body as unknown as Schemas['DeviceAuthorization'];
  const startedAt = Date.now();

  return {
    userCode: code.user_code,
    verificationUri: code.verification_uri,
    verificationUriComplete: code.verification_uri_complete,
    expiresIn: code.expires_in,
    interval: code.interval,
    async poll() {
      // RFC 8628 3.5: 5 seconds when the server names no interval.
      let interval = Math.max(1, code.interval || 5);
      let next = interval;
      for (;;) {
        await wait(next * 1000, options.signal);
        if (Date.now() - startedAt >= code.expires_in * 1000)
          throw new DeviceLoginError('expired_token', 'The code expired before it was approved');
        const res = await post(meta.token_endpoint, {
          grant_type: GRANT,
          client_id: clientId,
          device_code: code.device_code,
        });
        const answer = await readJson(res);
        if (res.ok && typeof answer.access_token === 'string') {
          const token = answer as unknown as Schemas['OAuthToken'];
          return {
            accessToken: token.access_token,
            tokenType: token.token_type,
            scopes: token.scope.split(' ').filter(Boolean),
          };
        }
        const error = answer.error;
        if (error === 'slow_down') interval += 5;
        else if (error !== 'authorization_pending') throw oauthError(answer, res.status);
        const retryAfter = Number(res.headers.get('retry-after'));
        next = Number.isFinite(retryAfter) && retryAfter > interval ? retryAfter : interval;
      }
    },
  };
}

/** The whole flow: start, `prompt` the user with where to approve, poll until the token. */
export async function deviceLogin(
  options: DeviceLoginOptions & { prompt(prompt: DevicePrompt): void | Promise<void> },
): Promise<DeviceToken> {
  const started = await startDeviceLogin(options);
  await options.prompt({
    userCode: started.userCode,
    verificationUri: started.verificationUri,
    verificationUriComplete: started.verificationUriComplete,
    expiresIn: started.expiresIn,
  });
  return started.poll();
}

/** Revokes a token the device flow issued (RFC 7009), e.g. on sign-out; it stops working at once. */
export async function revokeToken(
  options: Pick<DeviceLoginOptions, 'server' | 'clientId' | 'fetch' | 'signal'> & { token: string },
): Promise<void> {
  const server = options.server.replace(/\/+$/, '');
  const fetch = options.fetch ?? globalThis.fetch;
  const meta = await discover(server, fetch, options.signal);
  const res = await form(
    fetch,
    meta.revocation_endpoint ?? `${server}/oauth/revoke`,
    { client_id: options.clientId ?? 'parley-cli', token: options.token, token_type_hint: 'access_token' },
    options.signal,
  );
  if (!res.ok) throw oauthError(await readJson(res), res.status);
}
