export type OutboundErrorCode =
  | 'INVALID_URL'
  | 'BLOCKED_ADDRESS'
  | 'TOO_MANY_REDIRECTS'
  | 'TOO_LARGE'
  | 'TIMEOUT'
  | 'NETWORK'
  | 'UNSUPPORTED_PROTOCOL';

const HINTS: Record<OutboundErrorCode, string> = {
  INVALID_URL: 'Check the address: it must be a full http:// or https:// URL without a user name or password.',
  BLOCKED_ADDRESS:
    'The address is on a private, loopback or otherwise internal network. An operator who means to fetch intranet pages can set ALLOW_PRIVATE_FETCH to the intranet address ranges (or to 1 for every internal address).',
  TOO_MANY_REDIRECTS: 'The page keeps redirecting; use the final address or check the site for a redirect loop.',
  TOO_LARGE: 'The response is larger than the size limit for this kind of request.',
  TIMEOUT: 'The server did not send the whole response in time; try again later.',
  NETWORK: 'The server could not be reached or broke the connection; check the address and try again later.',
  UNSUPPORTED_PROTOCOL: 'Only http:// and https:// addresses can be fetched.',
};

/** Every failure of the guarded client: a stable code, the URL it concerned and a hint for a person. */
export class OutboundError extends Error {
  readonly code: OutboundErrorCode;
  /** The URL of the hop that failed (after redirects, the redirect target). */
  readonly url: string;
  readonly hint: string;
  /** For BLOCKED_ADDRESS: the address that was refused. */
  readonly address?: string;

  constructor(
    code: OutboundErrorCode,
    url: string,
    message: string,
    extra: { cause?: unknown; address?: string } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'OutboundError';
    this.code = code;
    this.url = url;
    this.hint = HINTS[code];
    if (extra.address !== undefined) this.address = extra.address;
  }
}

/** The first OutboundError in an error's cause chain (undici and net wrap what our hooks throw). */
export function findOutboundError(err: unknown): OutboundError | null {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current; depth++) {
    if (current instanceof OutboundError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
