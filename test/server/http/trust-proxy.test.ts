/**
 * Behind a reverse proxy (TRUST_PROXY=1) the client address is the one that proxy appended to
 * X-Forwarded-For (the last entry), not what the client wrote before it: otherwise a client
 * names a new address on every request and no per-address limit holds.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { TRUST_PROXY: '1' } });
});
afterAll(() => t.close());

const authorize = (forwardedFor: string) =>
  t.app.inject({
    method: 'POST',
    url: '/oauth/device_authorization',
    remoteAddress: '10.0.0.2', // the proxy
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor },
    payload: 'client_id=parley-cli',
  });

test('a client that writes its own X-Forwarded-For is still limited by the address the proxy saw', async () => {
  // device_authorization allows 30 a minute per address.
  const statuses: number[] = [];
  for (let i = 0; i < 31; i++) statuses.push((await authorize(`198.51.100.${i}, 203.0.113.7`)).statusCode);
  expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
  expect(statuses[30]).toBe(429);
  // Another client behind the same proxy has its own allowance.
  expect((await authorize('203.0.113.8')).statusCode).toBe(200);
});
