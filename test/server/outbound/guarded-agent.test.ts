import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { OutboundError } from '../../../server/outbound/errors.js';
import { guardedLookup, type Resolver } from '../../../server/outbound/guarded-agent.js';

const dual: Resolver = async () => [
  { address: '2606:4700:4700::1111', family: 6 },
  { address: '1.1.1.1', family: 4 },
];

function run(
  lookup: ReturnType<typeof guardedLookup>,
  options: { all?: boolean; family?: number },
): Promise<{ address: string | LookupAddress[]; family?: number }> {
  return new Promise((resolve, reject) =>
    lookup('example.test', options, (err, address, family) => (err ? reject(err) : resolve({ address, family }))),
  );
}

describe('guardedLookup (the socket-level check)', () => {
  it('hands back every checked address when net asks for all (happy eyeballs)', async () => {
    const result = await run(guardedLookup(dual, { allowPrivate: false }), { all: true });
    expect(result.address).toEqual([
      { address: '2606:4700:4700::1111', family: 6 },
      { address: '1.1.1.1', family: 4 },
    ]);
  });

  it('answers a single-address lookup, honouring the family', async () => {
    expect(await run(guardedLookup(dual, { allowPrivate: false }), { family: 4 })).toEqual({
      address: '1.1.1.1',
      family: 4,
    });
    expect(await run(guardedLookup(dual, { allowPrivate: false }), {})).toEqual({
      address: '2606:4700:4700::1111',
      family: 6,
    });
  });

  it('refuses the name when any answer is internal', async () => {
    const mixed: Resolver = async () => [
      { address: '1.1.1.1', family: 4 },
      { address: 'fd00::1', family: 6 },
    ];
    const err = await run(guardedLookup(mixed, { allowPrivate: false }), { all: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).code).toBe('BLOCKED_ADDRESS');
    expect((err as OutboundError).address).toBe('fd00::1');
  });

  it('lets private answers through only with allowPrivate or the test allowlist', async () => {
    const local: Resolver = async () => [{ address: '10.1.2.3', family: 4 }];
    expect((await run(guardedLookup(local, { allowPrivate: true }), {})).address).toBe('10.1.2.3');
    const hook = { allowPrivate: false, isAllowedAddress: (ip: string) => ip === '10.1.2.3' };
    expect((await run(guardedLookup(local, hook), {})).address).toBe('10.1.2.3');
  });

  it('reports a resolver failure as NETWORK', async () => {
    const broken: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nope.test'), { code: 'ENOTFOUND' });
    };
    const err = await run(guardedLookup(broken, { allowPrivate: false }), {}).catch((e: unknown) => e);
    expect((err as OutboundError).code).toBe('NETWORK');
  });
});
