/**
 * Which IP addresses outbound requests may reach. Default-deny for IPv6 (only global unicast
 * 2000::/3 passes) and a table of special-purpose ranges for IPv4; IPv6 forms that carry an
 * IPv4 address (mapped, NAT64, 6to4) are judged by the IPv4 address inside, because that is
 * where the packets end up.
 */
import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

const ALLOWED: AddressVerdict = { allowed: true };
const deny = (reason: string): AddressVerdict => ({ allowed: false, reason });

/** Strict dotted-decimal IPv4 -> unsigned 32-bit number; null when not that form. */
export function parseIPv4(ip: string): number | null {
  if (!isIPv4(ip)) return null;
  const parts = ip.split('.').map(Number);
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

/** IPv6 text (with :: compression or a trailing dotted quad) -> eight 16-bit groups; null otherwise. */
export function parseIPv6(ip: string): number[] | null {
  // Zone ids (fe80::1%eth0) never come out of WHATWG URL parsing; refuse rather than guess.
  if (ip.includes('%') || !isIPv6(ip)) return null;
  let text = ip;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const maybeV4 = text.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    const v4 = parseIPv4(maybeV4);
    if (v4 === null) return null;
    tail.push(v4 >>> 16, v4 & 0xffff);
    // Keep the colon when it is part of '::' (e.g. '::1.2.3.4').
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  let words: number[];
  const gap = text.indexOf('::');
  if (gap === -1) {
    words = [...groups(text), ...tail];
  } else {
    const head = groups(text.slice(0, gap));
    const rest = [...groups(text.slice(gap + 2)), ...tail];
    const zeros = 8 - head.length - rest.length;
    if (zeros < 0) return null;
    words = [...head, ...new Array<number>(zeros).fill(0), ...rest];
  }
  if (words.length !== 8 || words.some((w) => !Number.isInteger(w) || w < 0 || w > 0xffff)) return null;
  return words;
}

const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

// IANA IPv4 special-purpose registry: everything here is not a public internet host.
const V4_BLOCKED: Array<[base: number, prefix: number, reason: string]> = [
  [v4(255, 255, 255, 255), 32, 'broadcast'],
  [v4(0, 0, 0, 0), 8, '"this network" / unspecified'],
  [v4(10, 0, 0, 0), 8, 'private network'],
  [v4(100, 64, 0, 0), 10, 'carrier-grade NAT'],
  [v4(127, 0, 0, 0), 8, 'loopback'],
  [v4(169, 254, 0, 0), 16, 'link-local (cloud metadata lives here)'],
  [v4(172, 16, 0, 0), 12, 'private network'],
  [v4(192, 0, 0, 0), 24, 'IETF protocol assignments'],
  [v4(192, 0, 2, 0), 24, 'documentation'],
  [v4(192, 88, 99, 0), 24, '6to4 relay anycast'],
  [v4(192, 168, 0, 0), 16, 'private network'],
  [v4(198, 18, 0, 0), 15, 'benchmarking'],
  [v4(198, 51, 100, 0), 24, 'documentation'],
  [v4(203, 0, 113, 0), 24, 'documentation'],
  [v4(224, 0, 0, 0), 4, 'multicast'],
  [v4(240, 0, 0, 0), 4, 'reserved'],
];

function inV4(addr: number, base: number, prefix: number): boolean {
  if (prefix === 0) return true;
  const mask = (0xffffffff << (32 - prefix)) >>> 0;
  return (addr & mask) >>> 0 === base;
}

export function checkIPv4(addr: number): AddressVerdict {
  for (const [base, prefix, reason] of V4_BLOCKED) if (inV4(addr, base, prefix)) return deny(reason);
  return ALLOWED;
}

const v4Text = (n: number) => `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

/** Judge an IPv6 address by the IPv4 address it embeds. */
function embedded(kind: string, addr: number): AddressVerdict {
  const inner = checkIPv4(addr);
  return inner.allowed ? ALLOWED : deny(`${kind} of ${v4Text(addr)}: ${inner.reason}`);
}

export function checkIPv6(w: number[]): AddressVerdict {
  const low32 = ((w[6] << 16) | w[7]) >>> 0;
  const zeroPrefix = (n: number) => w.slice(0, n).every((x) => x === 0);
  if (zeroPrefix(5) && w[5] === 0xffff) return embedded('IPv4-mapped IPv6', low32);
  if (zeroPrefix(8)) return deny('unspecified');
  if (zeroPrefix(7) && w[7] === 1) return deny('loopback');
  if (zeroPrefix(6)) return deny(`IPv4-compatible IPv6 (deprecated) of ${v4Text(low32)}`);
  if (w[0] === 0x64 && w[1] === 0xff9b && w[2] === 0 && w[3] === 0 && w[4] === 0 && w[5] === 0) {
    return embedded('NAT64 (64:ff9b::/96)', low32);
  }
  if (w[0] === 0x64 && w[1] === 0xff9b && w[2] === 1) return deny('local-use NAT64');
  if ((w[0] & 0xfe00) === 0xfc00) return deny('unique local (fc00::/7)');
  if ((w[0] & 0xffc0) === 0xfe80) return deny('link-local');
  if ((w[0] & 0xffc0) === 0xfec0) return deny('site-local (deprecated)');
  if ((w[0] & 0xff00) === 0xff00) return deny('multicast');
  if ((w[0] & 0xe000) !== 0x2000) return deny('not global unicast');
  // Inside 2000::/3:
  if (w[0] === 0x2002) return embedded('6to4', ((w[1] << 16) | w[2]) >>> 0);
  // Teredo (2001:0::/32) tunnels to a client whose IPv4 address is stored inverted; no web
  // server lives there, so refuse the whole prefix rather than decode it.
  if (w[0] === 0x2001 && w[1] === 0) return deny('Teredo tunnel');
  if (w[0] === 0x2001 && w[1] === 0x0db8) return deny('documentation');
  if (w[0] === 0x2001 && w[1] < 0x0200) return deny('IETF protocol assignments');
  if (w[0] === 0x3fff && w[1] < 0x1000) return deny('documentation (3fff::/20)');
  return ALLOWED;
}

/** Verdict for an address string (IPv4 dotted, IPv6 with or without brackets). Unparseable -> denied. */
export function checkAddress(ip: string): AddressVerdict {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const a4 = parseIPv4(text);
  if (a4 !== null) return checkIPv4(a4);
  const a6 = parseIPv6(text);
  if (a6 !== null) return checkIPv6(a6);
  return deny('not an IP address');
}

export function isPublicAddress(ip: string): boolean {
  return checkAddress(ip).allowed;
}

/**
 * ALLOW_PRIVATE_FETCH as a list: "10.20.0.0/16, 192.168.5.10, fd00:1::/32". Each entry is an
 * address or an address/prefix; throws on anything else, with the entry named. The ranges an
 * operator opens are the only internal addresses reachable; everything else is judged as usual.
 */
export function parseAddressRanges(text: string): string[] {
  const ranges: string[] = [];
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    const [address, prefix, extra] = entry.split('/');
    const version = isIP(address);
    const max = version === 4 ? 32 : 128;
    const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (!version || extra !== undefined || !(bits >= 0 && bits <= max)) {
      throw new Error(`"${entry}" is not an address or an address/prefix (such as 10.0.0.0/8 or fd00::/8)`);
    }
    ranges.push(`${address}/${bits}`);
  }
  if (!ranges.length) throw new Error('no address range given');
  return ranges;
}

/**
 * ALLOW_PRIVATE_FETCH read once for everyone: off (unset, 0, false), every internal address
 * (1, true), or only the listed ranges. Throws on a malformed list, naming the entry.
 */
export function parsePrivateFetch(raw: string | undefined): { all: boolean; ranges: string[] } {
  const text = (raw ?? '').trim();
  if (text === '' || text === '0' || text === 'false') return { all: false, ranges: [] };
  if (text === '1' || text === 'true') return { all: true, ranges: [] };
  return { all: false, ranges: parseAddressRanges(text) };
}

/** A test for "is this address inside one of the ranges", IPv4-mapped IPv6 judged as its IPv4. */
export function addressRangeMatcher(ranges: string[]): (ip: string) => boolean {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, bits] = range.split('/');
    list.addSubnet(address, Number(bits), isIP(address) === 4 ? 'ipv4' : 'ipv6');
  }
  return (ip) => {
    const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
    if (parseIPv4(text) !== null) return list.check(text, 'ipv4');
    const words = parseIPv6(text);
    if (!words) return false;
    if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) {
      const v4 = [words[6] >> 8, words[6] & 0xff, words[7] >> 8, words[7] & 0xff].join('.');
      return list.check(v4, 'ipv4');
    }
    return list.check(text, 'ipv6');
  };
}
