/**
 * Where a registered client may be sent back to: https anywhere, or http on the machine itself
 * (RFC 8252 7.3: a native app listens on a loopback port it picks at each run). Nothing else, so
 * the authorization endpoint can never redirect a user's code to a plain-http site.
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
export const MAX_REDIRECT_URI_LENGTH = 2000;

const parse = (raw: string) => {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
};

const isLoopback = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);

/** Why `raw` cannot be registered as a redirect URI, or null when it can. */
export function redirectUriProblem(raw: string): string | null {
  if (raw.length > MAX_REDIRECT_URI_LENGTH) return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  const url = parse(raw);
  if (!url) return 'is not an absolute URL';
  if (raw.includes('#')) return 'must not have a fragment (RFC 6749 3.1.2)';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.protocol === 'https:' || isLoopback(url)) return null;
  return 'must be https, or http on a loopback address: 127.0.0.1, [::1] or localhost (RFC 8252 7.3)';
}

/**
 * Whether an authorization request's redirect_uri is the registered one: the same string, or for
 * a loopback address the same but for the port (RFC 8252 7.3).
 */
export function redirectMatches(registered: string, asked: string): boolean {
  if (registered === asked) return true;
  const a = parse(registered);
  const b = parse(asked);
  if (!a || !b || !isLoopback(a) || !isLoopback(b) || asked.includes('#') || b.username || b.password) return false;
  return a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search;
}
