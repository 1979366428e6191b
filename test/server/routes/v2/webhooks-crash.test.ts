/**
 * Durable delivery: a real server process (`server/main.ts` in a child) is killed with SIGKILL
 * while a retry is in flight to a receiver that hangs, and with another delivery still waiting
 * behind it; the next app on the same database delivers both, with the same `webhook-id` as before.
 * On SQLite and on PostgreSQL (one schema shared by the child and the apps); in CI an unreachable
 * PostgreSQL fails the file.
 */
import { afterEach, beforeEach, expect, test } from 'vitest';
import { crashFixture } from '../../../helpers/crash-fixture.js';
import { waitFor } from '../../../helpers/knowledge-http.js';
import { describeOnDialects } from '../../../helpers/dialects.js';
import { startReceiver, verifyWithOpenssl, type WebhookReceiver } from '../../../helpers/webhook-receiver.js';

describeOnDialects('on %s', (dialect) => {
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });
  const crash = crashFixture(dialect, 'parley-webhook-crash-');
  const build = () => crash.app(env());

  const env = () => ({
    ALLOW_PRIVATE_FETCH: '127.0.0.0/8',
    NODE_EXTRA_CA_CERTS: receiver.caFile,
    // The hung retry must outlive the kill; the lease (deadline + 2 s) then runs out soon after.
    WEBHOOK_TIMEOUT_MS: '3000',
    WEBHOOK_POLL_MS: '50',
    // One slot per target: the hung retry keeps the second delivery waiting, unattempted.
    WEBHOOK_TARGET_CONCURRENCY: '1',
  });

  test('kill -9 in the middle of a retry: after restart the retry and the delivery behind it arrive, with their ids', async () => {
    const setup = await build();
    const token = (await setup.token()).token;
    const chatbotId = (await setup.call('POST', '/api/v2/chatbots', token, { title: 'Shop' })).body.data.chatbot
      .id as string;
    const saved = await setup.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/webhooks`, token, {
      messagesWebhookUrl: `${receiver.url}/crash`,
      messagesWebhookToken: 'crash-token',
    });
    const secret = saved.body.data.signingSecret as string;
    const threadId = (await setup.call('POST', `/api/v2/chatbots/${chatbotId}/conversations`, token, {})).body.data
      .conversation.threadId as string;
    await setup.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${threadId}/take-over`, token);
    await crash.closeApp(setup);

    const { url } = await crash.spawn(env());
    const reply = (message: string) =>
      fetch(`${url}/api/v2/chatbots/${chatbotId}/conversations/${threadId}/replies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message }),
      });

    // The first attempt fails; its retry hangs (the receiver holds it).
    receiver.respond = (r) => (r.n === 1 ? 500 : 'hang');
    expect((await reply('first')).status).toBe(201);
    await receiver.waitFor((all) => all.length === 2);
    expect((await reply('second')).status).toBe(201);
    // The second event is written; with the target's one slot held it is not attempted.
    await crash.kill();
    expect(receiver.received).toHaveLength(2);

    const rows = await crash.withDatabase((db) =>
      db
        .selectFrom('webhook_deliveries')
        .select(['id', 'status', 'attempts', 'lease_until', 'body'])
        .orderBy('created_at')
        .execute(),
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ status: 'pending', attempts: 1 });
    expect(rows[0].lease_until).not.toBeNull(); // the retry was in flight when the process died
    expect(rows[1]).toMatchObject({ status: 'pending', attempts: 0 });

    // Restart on the same database: the receiver answers now.
    receiver.respond = () => 200;
    const next = await build();
    await receiver.waitFor(
      (all) =>
        all.filter((r) => r.headers['webhook-id'] === rows[1].id).length >= 1 &&
        all.filter((r) => r.headers['webhook-id'] === rows[0].id).length >= 3,
      30_000,
    );
    await waitFor(
      async () =>
        (await next.call('GET', `/api/v2/chatbots/${chatbotId}/webhooks/deliveries?status=delivered`, token)).body.data
          .deliveries.length === 2,
      20_000,
      'both delivered',
    );

    const first = receiver.received.filter((r) => r.headers['webhook-id'] === rows[0].id);
    expect(first.map((r) => JSON.parse(r.body).data.answer)).toEqual(['first', 'first', 'first']);
    expect(new Set(first.map((r) => r.body))).toEqual(new Set([rows[0].body]));
    const last = receiver.received.at(-1)!;
    expect(last.headers['x-webhook-token']).toBe('crash-token');
    expect(verifyWithOpenssl(secret, last.headers, last.body)).toEqual({ standard: true, service: true });
    // Every request carried one of the two ids: nothing was sent under a new id.
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(rows.map((r) => r.id)));
  }, 90_000);
});
