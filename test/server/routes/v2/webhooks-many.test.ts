/**
 * 1,000 events through the real app to a receiver that fails half of the first attempts: every
 * event arrives, and no event arrives under two different ids. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../../../helpers/app.js';
import { describeOnDialects } from '../../../helpers/dialects.js';
import { makeCertificate, startReceiver, type WebhookReceiver } from '../../../helpers/webhook-receiver.js';

const EVENTS = 1000;

describeOnDialects('1,000 webhook events on %s', (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    const cert = makeCertificate();
    const seen = new Set<string>();
    // Every other new event fails its first attempt with a 500; its retry (1 s later) succeeds.
    receiver = await startReceiver((r) => {
      const id = r.headers['webhook-id'];
      if (seen.has(id)) return 200;
      seen.add(id);
      return seen.size % 2 === 0 ? 500 : 200;
    }, cert);
    t = await buildTestApp({
      dialect,
      env: { ALLOW_PRIVATE_FETCH: '127.0.0.0/8', NODE_EXTRA_CA_CERTS: receiver.caFile, WEBHOOK_POLL_MS: '50' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  test('every event is delivered, none under two ids', async () => {
    const token = (await t.token()).token;
    const chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Busy' })).body.data.chatbot.id;
    await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/webhooks`, token, {
      messagesWebhookUrl: `${receiver.url}/many`,
    });
    const threads: string[] = [];
    for (let i = 0; i < 10; i++) {
      const id = (await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations`, token, {})).body.data.conversation
        .threadId;
      await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${id}/take-over`, token);
      threads.push(id);
    }
    // Ten conversations at once, a hundred team replies each: 1,000 message events.
    await Promise.all(
      threads.map(async (thread, n) => {
        for (let i = 0; i < EVENTS / threads.length; i++) {
          const res = await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${thread}/replies`, token, {
            message: `reply ${n}-${i}`,
          });
          expect(res.status).toBe(201);
        }
      }),
    );

    await expect
      .poll(async () => (await t.app.services.store.webhooks.deliveries.countByStatus(chatbotId)).delivered, {
        timeout: 120_000,
        interval: 200,
      })
      .toBe(EVENTS);

    // Each reply's text reached the receiver, and under exactly one webhook-id.
    const idsByText = new Map<string, Set<string>>();
    for (const r of receiver.received) {
      const text = JSON.parse(r.body).data.answer as string;
      if (!idsByText.has(text)) idsByText.set(text, new Set());
      idsByText.get(text)!.add(r.headers['webhook-id']);
    }
    expect(idsByText.size).toBe(EVENTS);
    for (const ids of idsByText.values()) expect(ids.size).toBe(1);
    const counts = await t.app.services.store.webhooks.deliveries.countByStatus(chatbotId);
    expect(counts).toEqual({ pending: 0, delivered: EVENTS, failed: 0, skipped: 0 });
    // Half the events needed their retry (a retry after a receiver's slow answer would add more, never fewer).
    expect(receiver.received.length).toBeGreaterThanOrEqual(EVENTS + EVENTS / 2);
  }, 180_000);
});
