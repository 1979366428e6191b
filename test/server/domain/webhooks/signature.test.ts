/** Signatures checked by an independent implementation (the openssl command line), rotation overlap included. */
import { describe, expect, test } from 'vitest';
import { generateSecret, signDelivery } from '../../../../server/domain/webhooks/signature.js';
import { verifyWithOpenssl } from '../../../helpers/webhook-receiver.js';

describe('webhook signatures', () => {
  const body = JSON.stringify({ event: 'ADD_MESSAGE', data: { answer: 'Grüße — "quoted" \u2028 emoji 🎉' } });

  test('webhook-signature and X-SERVICE-SIGNATURE verify with openssl over the exact bytes', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const headers = { ...signDelivery('msg_abc', 1_900_000_000, body, [secret]) };
    expect(verifyWithOpenssl(secret, headers, body)).toEqual({ standard: true, service: true });
    // One byte changed, another id or another time: nothing verifies.
    expect(verifyWithOpenssl(secret, headers, body.replace('Grüße', 'Grusse'))).toEqual({
      standard: false,
      service: false,
    });
    expect(verifyWithOpenssl(secret, { ...headers, 'webhook-timestamp': '1900000001' }, body).standard).toBe(false);
    expect(verifyWithOpenssl(secret, { ...headers, 'webhook-id': 'msg_abd' }, body).standard).toBe(false);
    expect(verifyWithOpenssl(generateSecret(), headers, body)).toEqual({ standard: false, service: false });
  });

  test("during a rotation both secrets sign webhook-signature, newest first; X-SERVICE-SIGNATURE stays the spec's single value, of the current secret", () => {
    const [fresh, old] = [generateSecret(), generateSecret()];
    const headers = { ...signDelivery('msg_x', 1_900_000_000, body, [fresh, old]) };
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyWithOpenssl(fresh, headers, body)).toEqual({ standard: true, service: true });
    expect(verifyWithOpenssl(old, headers, body)).toEqual({ standard: true, service: false });
  });
});
