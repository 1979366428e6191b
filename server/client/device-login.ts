/**
 * The first-party client of the device flow (RFC 8628), run by `npm run cli -- login`: discover
 * the endpoints (RFC 8414), ask for a device code, show the user where to approve it, poll
 * politely (the server's interval, 5 s more after each slow_down) until a token or a refusal.
 * It talks only to the server the user named, through the guarded client (timeouts, size
 * limits) with private addresses allowed: the user chose this server, often on their intranet.
 */
import { GuardedHttpClient } from '../outbound/guarded-client.js';

export const CLIENT_ID = 'parley-cli';
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export class LoginError extends Error {}

/** The HTTP client of the client commands; `http(...)` before the first request. */
let client: GuardedHttpClient | null = null;
export function http(extraCaCertificates: string[] = []): GuardedHttpClient {
  client ??= new GuardedHttpClient({
    allowPrivate: true,
    extraCaCertificates,
    defaults: { timeoutMs: 30_000, maxBytes: 1024 * 1024 },
  });
  return client;
}

export interface LoginOptions {
  server: string;
  scope?: string;
  chatbots?: string;
  /** Told the URL and code to show the user. */
  show(prompt: {
    verificationUri: string;
    verificationUriComplete?: string;
    userCode: string;
    expiresIn: number;
  }): void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

interface Metadata {
  issuer: string;
  device_authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint?: string;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `https://host[:port][/path]` without a trailing slash; refuses anything else. */
export function serverUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new LoginError(`--server must be a URL such as https://chat.example.com, not "${input}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new LoginError(`--server must start with https:// (or http://), not "${url.protocol}"`);
  if (url.search || url.hash || url.username || url.password)
    throw new LoginError('--server takes the site address only (no query, fragment or credentials)');
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

async function postForm(
  url: string,
  fields: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  let res: Response;
  try {
    res = await http().fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(fields),
      redirect: 'error',
    });
  } catch (err) {
    throw new LoginError(`Cannot reach ${new URL(url).origin}: ${(err as Error).message}`);
  }
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    throw new LoginError(
      `${url} answered ${res.status} with something other than JSON: is --server the Parley site address?`,
    );
  }
}

export async function discover(server: string): Promise<Metadata> {
  const url = `${server}/.well-known/oauth-authorization-server`;
  let res: Response;
  try {
    res = await http().fetch(url, { headers: { accept: 'application/json' }, redirect: 'error' });
  } catch (err) {
    throw new LoginError(`Cannot reach ${server}: ${(err as Error).message}`);
  }
  if (!res.ok) throw new LoginError(`${url} answered ${res.status}: is ${server} a Parley server?`);
  const doc = (await res.json().catch(() => null)) as Metadata | null;
  if (!doc?.device_authorization_endpoint || !doc.token_endpoint)
    throw new LoginError(`${url} names no device authorization endpoint`);
  // RFC 8414 3.3: the issuer must be the server asked, or the document is not its own.
  if (doc.issuer !== server)
    throw new LoginError(`${url} describes issuer ${doc.issuer}, not ${server}: use --server ${doc.issuer}`);
  return doc;
}

const describe = (body: Record<string, unknown>) =>
  `${String(body.error ?? 'error')}${body.error_description ? `: ${String(body.error_description)}` : ''}`;

/** Runs the flow to its end: the token, or a LoginError saying why not. */
export async function deviceLogin(options: LoginOptions): Promise<{ accessToken: string; scope: string }> {
  const sleep = options.sleep ?? delay;
  const now = options.now ?? Date.now;
  const meta = await discover(options.server);
  const start = await postForm(meta.device_authorization_endpoint, {
    client_id: CLIENT_ID,
    ...(options.scope ? { scope: options.scope } : {}),
    ...(options.chatbots ? { chatbots: options.chatbots } : {}),
  });
  if (start.status !== 200) throw new LoginError(`The server refused to start the sign-in (${describe(start.body)})`);
  const b = start.body as {
    device_code: string;
    user_code: string;
    verification_uri: string;
    verification_uri_complete?: string;
    expires_in: number;
    interval?: number;
  };
  options.show({
    verificationUri: b.verification_uri,
    verificationUriComplete: b.verification_uri_complete,
    userCode: b.user_code,
    expiresIn: b.expires_in,
  });

  // RFC 8628 3.5: 5 seconds when the server names no interval.
  let interval = Math.max(1, Number(b.interval) || 5);
  const deadline = now() + b.expires_in * 1000;
  for (;;) {
    await sleep(interval * 1000);
    if (now() >= deadline) throw new LoginError('The code expired before it was approved: run login again');
    const res = await postForm(meta.token_endpoint, {
      grant_type: GRANT,
      client_id: CLIENT_ID,
      device_code: b.device_code,
    });
    if (res.status === 200 && typeof res.body.access_token === 'string') {
      return { accessToken: res.body.access_token, scope: String(res.body.scope ?? '') };
    }
    switch (res.body.error) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        interval += 5;
        continue;
      case 'access_denied':
        throw new LoginError('The request was denied on the verification page');
      case 'expired_token':
        throw new LoginError('The code expired before it was approved: run login again');
      default:
        throw new LoginError(`The server refused the sign-in (${describe(res.body)})`);
    }
  }
}

/** RFC 7009 revocation of `token` at `server`. */
export async function revokeToken(server: string, token: string): Promise<void> {
  const meta = await discover(server);
  const endpoint = meta.revocation_endpoint ?? `${server}/oauth/revoke`;
  const res = await postForm(endpoint, { client_id: CLIENT_ID, token, token_type_hint: 'access_token' });
  if (res.status !== 200) throw new LoginError(`The server did not revoke the token (${describe(res.body)})`);
}

/** GET /api/v2/me with the stored token. */
/** GET /api/v2/me's envelope as the CLI reads it (the schema: server/routes/v2/me.ts). */
export interface MeBody {
  data?: {
    user: { email: string; role: string };
    account: { id: string; name: string };
    token: { id: string };
    scopes: string[];
    chatbotIds: string[] | null;
  };
  error?: { message?: string };
}

export async function whoami(server: string, token: string): Promise<{ status: number; body: MeBody | null }> {
  let res: Response;
  try {
    res = await http().fetch(`${server}/api/v2/me`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      redirect: 'error',
    });
  } catch (err) {
    throw new LoginError(`Cannot reach ${server}: ${(err as Error).message}`);
  }
  return { status: res.status, body: (await res.json().catch(() => null)) as MeBody | null };
}
