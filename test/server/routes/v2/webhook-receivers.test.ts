/**
 * Deliveries checked the way receivers we did not write check them, during a signing-secret
 * rotation: the `standardwebhooks` package (the Standard Webhooks reference library) on
 * `webhook-signature`, and section 6's recipe on `X-SERVICE-SIGNATURE` (one `sha256=<hex>`
 * value compared whole).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { startReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../../helpers/webhook-receiver.js';

let t: TestApp;
let receiver: WebhookReceiver;
let token: string;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await buildTestApp({
    env: { ALLOW_PRIVATE_FETCH: '127.0.0.0/8', NODE_EXTRA_CA_CERTS: receiver.caFile, WEBHOOK_POLL_MS: '20' },
  });
  token = (await t.token()).token;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** Section 6 as a receiver reads it: HMAC-SHA256 of the raw body, hex, prefixed `sha256=`, compared with the header. */
function specReceiverAccepts(secret: string, delivery: ReceivedWebhook): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = Buffer.from('sha256=' + createHmac('sha256', key).update(delivery.body).digest('hex'));
  const header = Buffer.from(delivery.headers['x-service-signature'] ?? '');
  return header.length === expected.length && timingSafeEqual(header, expected);
}

/** The Standard Webhooks library's verification: the parsed body, or the error it throws. */
function standardVerify(secret: string, delivery: ReceivedWebhook): unknown {
  try {
    return new Webhook(secret).verify(delivery.body, delivery.headers);
  } catch (err) {
    return err;
  }
}

async function testSend(chatbotId: string, path: string, n: number): Promise<ReceivedWebhook> {
  expect(
    (await t.call('POST', `/api/v2/chatbots/${chatbotId}/webhooks/test`, token, { event: 'message' })).status,
  ).toBe(202);
  await receiver.waitFor((all) => all.filter((r) => r.path === path).length >= n);
  return receiver.received.filter((r) => r.path === path)[n - 1];
}

test('during a rotation the standardwebhooks library verifies a delivery with the old and the new secret; X-SERVICE-SIGNATURE is one value of the new', async () => {
  const created = await t.call('POST', '/api/v2/chatbots', token, { title: 'Signed' });
  const id = created.body.data.chatbot.id as string;
  const saved = await t.call('PATCH', `/api/v2/chatbots/${id}/settings/webhooks`, token, {
    messagesWebhookUrl: `${receiver.url}/signed`,
  });
  const old = saved.body.data.signingSecret as string;
  expect(old).toMatch(/^whsec_/);
  const rotated = await t.call('POST', `/api/v2/chatbots/${id}/webhooks/signing-secret`, token, { overlapMinutes: 60 });
  const current = rotated.body.data.signingSecret as string;

  const during = await testSend(id, '/signed', 1);
  const body = JSON.parse(during.body);
  expect(standardVerify(current, during)).toEqual(body);
  expect(standardVerify(old, during)).toEqual(body);
  const stranger = standardVerify('whsec_' + Buffer.alloc(32, 7).toString('base64'), during);
  expect(stranger).toBeInstanceOf(WebhookVerificationError);
  expect(during.headers['webhook-signature'].split(' ')).toHaveLength(2);

  // The spec's header: a single value, which its recipe accepts with the current secret.
  expect(during.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  expect(specReceiverAccepts(current, during)).toBe(true);
  expect(specReceiverAccepts(old, during)).toBe(false);

  // The overlap ended: only the new secret verifies.
  await t.call('POST', `/api/v2/chatbots/${id}/webhooks/signing-secret`, token, { overlapMinutes: 0 });
  const third = (await t.call('POST', `/api/v2/chatbots/${id}/webhooks/signing-secret`, token, { overlapMinutes: 0 }))
    .body.data.signingSecret as string;
  const after = await testSend(id, '/signed', 2);
  expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
  expect(standardVerify(third, after)).toEqual(JSON.parse(after.body));
  expect(standardVerify(current, after)).toBeInstanceOf(WebhookVerificationError);
  expect(specReceiverAccepts(third, after)).toBe(true);
});
