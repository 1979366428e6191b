/**
 * The undici Agent whose sockets can only reach checked addresses. DNS is resolved once, inside
 * the socket's own `lookup`, every returned address is checked, and the socket connects to those
 * very addresses: nothing resolves the name a second time, so a rebinding DNS server cannot swap
 * in a private address between the check and the connect. Host header and TLS SNI keep the name.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { Agent, buildConnector } from 'undici';
import { checkAddress, type AddressVerdict } from './address-policy.js';
import { OutboundError } from './errors.js';
import { loadUndici } from './undici.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}
/** Name -> addresses. Injectable so tests can point a "public" name at a loopback server. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface AddressGuard {
  /** ALLOW_PRIVATE_FETCH=1: skip the address check (never the other limits). */
  allowPrivate: boolean;
  /** Extra allowlist (tests): true treats the address as public; false falls through to the policy. */
  isAllowedAddress?: (ip: string) => boolean;
}

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export function addressVerdict(ip: string, guard: AddressGuard): AddressVerdict {
  if (guard.allowPrivate || guard.isAllowedAddress?.(ip)) return { allowed: true };
  return checkAddress(ip);
}

/**
 * Why a refused address is refused, naming only what the caller wrote: a name's addresses are not
 * told back (that would map an internal network for the caller); a literal address may be.
 */
export function blockedName(ip: string, hostname?: string): string {
  return `${hostname && hostname !== ip ? hostname : ip} is a private or reserved address`;
}

/** Throws BLOCKED_ADDRESS when `ip` may not be reached; `where` names the URL or host for the message. */
export function assertAddressAllowed(ip: string, guard: AddressGuard, where: string, hostname?: string): void {
  const verdict = addressVerdict(ip, guard);
  if (verdict.allowed) return;
  // `address` stays on the error for the server's logs.
  throw new OutboundError('BLOCKED_ADDRESS', where, `Refused to fetch ${where}: ${blockedName(ip, hostname)}`, {
    address: ip,
  });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net.connect/tls.connect: resolve, check every address, hand back only checked ones. */
export function guardedLookup(resolver: Resolver, guard: AddressGuard) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const resolveChecked = async (): Promise<LookupAddress[]> => {
      let found: ResolvedAddress[];
      try {
        found = await resolver(hostname);
      } catch (err) {
        throw new OutboundError('NETWORK', hostname, `Could not resolve ${hostname}: ${(err as Error).message}`, {
          cause: err,
        });
      }
      // Every address must pass: a name that mixes public and private answers is refused whole.
      for (const entry of found) assertAddressAllowed(entry.address, guard, hostname, hostname);
      const family = options.family === 4 || options.family === 6 ? options.family : 0;
      const usable = found
        .filter((e) => isIP(e.address) !== 0 && (family === 0 || isIP(e.address) === family))
        .map((e) => ({ address: e.address, family: isIP(e.address) }));
      if (usable.length === 0) throw new OutboundError('NETWORK', hostname, `No usable address for ${hostname}`);
      return usable;
    };
    resolveChecked().then(
      (list) => (options.all ? callback(null, list) : callback(null, list[0].address, list[0].family)),
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

export interface AgentOptions {
  connectTimeoutMs?: number;
  /** PEM certificates trusted in addition to Node's root store (an intranet's own CA). */
  extraCaCertificates?: string[];
}

export async function createGuardedAgent(
  guard: AddressGuard,
  resolver: Resolver,
  options: AgentOptions = {},
): Promise<Agent> {
  const { Agent, buildConnector } = await loadUndici();
  const extra = options.extraCaCertificates ?? [];
  const base = buildConnector({
    lookup: guardedLookup(resolver, guard),
    timeout: options.connectTimeoutMs ?? 10_000,
    ...(extra.length > 0 ? { ca: [...rootCertificates, ...extra] } : {}),
  } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (opts, callback) => {
    // A literal IP skips `lookup` inside net.connect, so it is checked here (the client checks
    // it before dispatch too; this keeps the Agent safe on its own).
    if (isIP(opts.hostname) !== 0) {
      const verdict = addressVerdict(opts.hostname, guard);
      if (!verdict.allowed) {
        callback(
          new OutboundError(
            'BLOCKED_ADDRESS',
            opts.hostname,
            `Refused to connect to ${opts.hostname}: ${verdict.reason}`,
            {
              address: opts.hostname,
            },
          ),
          null,
        );
        return;
      }
    }
    return base(opts, callback);
  };
  return new Agent({ connect });
}
