import { describe, expect, it } from 'vitest';
import {
  addressRangeMatcher,
  checkAddress,
  isPublicAddress,
  parseAddressRanges,
  parseIPv6,
} from '../../../server/outbound/address-policy.js';

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:10.1.2.3', 'private'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:a00:1::1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'not global unicast'],
    ['[::1]', 'loopback'],
    ['fe80::1%eth0', 'not an IP address'],
    ['example.com', 'not an IP address'],
    ['0177.0.0.1', 'not an IP address'],
  ])('refuses %s (%s)', (ip, reason) => {
    const verdict = checkAddress(ip);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toContain(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows public %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it('parses IPv6 forms', () => {
    expect(parseIPv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIPv6('1:2:3:4:5:6:7.8.9.10')).toEqual([1, 2, 3, 4, 5, 6, 0x0708, 0x090a]);
    expect(parseIPv6('2001:db8:0:0:1:0:0:1')).toEqual([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1]);
    expect(parseIPv6('not-an-ip')).toBeNull();
  });
});

describe('ALLOW_PRIVATE_FETCH address ranges', () => {
  it('parses addresses and address/prefix entries, separated by commas or spaces', () => {
    expect(parseAddressRanges('10.20.0.0/16, 192.168.5.10  fd00:1::/32')).toEqual([
      '10.20.0.0/16',
      '192.168.5.10/32',
      'fd00:1::/32',
    ]);
  });

  it.each(['10.0.0.0/33', 'fd00::/129', '10.0.0/8', 'intranet.local', '10.0.0.0/8/1', '10.0.0.0/x'])(
    'refuses %j, naming it',
    (text) => {
      expect(() => parseAddressRanges(`10.1.0.0/16, ${text}`)).toThrow(
        `"${text}" is not an address or an address/prefix`,
      );
    },
  );

  it('refuses an empty list', () => {
    expect(() => parseAddressRanges(' , ')).toThrow(/no address range/);
  });

  it('matches only inside the ranges; IPv4-mapped IPv6 is judged as its IPv4 address', () => {
    const inside = addressRangeMatcher(parseAddressRanges('10.20.0.0/16, fd00:1::/32, 127.0.0.1'));
    expect(inside('10.20.3.4')).toBe(true);
    expect(inside('10.21.0.1')).toBe(false);
    expect(inside('169.254.169.254')).toBe(false);
    expect(inside('127.0.0.1')).toBe(true);
    expect(inside('127.0.0.2')).toBe(false);
    expect(inside('::ffff:7f00:1')).toBe(true);
    expect(inside('[::ffff:10.20.0.9]')).toBe(true);
    expect(inside('fd00:1:ffff::1')).toBe(true);
    expect(inside('fd00:2::1')).toBe(false);
    expect(inside('::1')).toBe(false);
    expect(inside('not an address')).toBe(false);
  });
});
