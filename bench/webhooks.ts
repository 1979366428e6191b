/**
 * Webhooks (issue 13, item 7), through the real app (buildTestApp on a fresh SQLite database,
 * LOG_LEVEL=silent) and a local HTTPS receiver (test/helpers/webhook-receiver.ts, answering 200
 * at once):
 *
 * 1. Deliveries per second: BENCH_DELIVERIES (2,000) message events written to the outbox in one
 *    transaction, then the app's own dispatcher (default concurrency: 16 overall, 4 per target)
 *    delivers them to one target -> deliveries/s from the first to the last 2xx. Baseline in the
 *    same run: the same number of signed POSTs of the same bodies sent straight through the same
 *    guarded client with the same concurrency (4) and no database -> requests/s. The ratio is the
 *    outbox's own cost (claim, lease, record).
 * 2. The latency the webhook adds to the API call that emits the event: BENCH_REPLIES (1,000)
 *    team replies (`POST .../replies`, one message event each) on a chatbot with a Messages URL,
 *    alternating one by one with the same call on a chatbot without webhooks, in the same app ->
 *    p50 / p99 of each and their ratio. The deliveries run in the background meanwhile, as in
 *    production.
 *
 * Settings (environment): BENCH_DELIVERIES (2000), BENCH_REPLIES (1000).
 */
import { loadavg } from 'node:os';
import { newId } from '../server/domain/ids.js';
import { signDelivery } from '../server/domain/webhooks/signature.js';
import { addressRangeMatcher } from '../server/outbound/address-policy.js';
import { GuardedHttpClient } from '../server/outbound/guarded-client.js';
import { buildTestApp, type TestApp } from '../test/helpers/app.js';
import { startReceiver, type WebhookReceiver } from '../test/helpers/webhook-receiver.js';

const int = (name: string, fallback: number) => {
  const n = Number(process.env[name] || fallback);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const DELIVERIES = int('BENCH_DELIVERIES', 2000);
const REPLIES = int('BENCH_REPLIES', 1000);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function chatbot(t: TestApp, token: string, webhooks: Record<string, unknown> | null) {
  const id = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Bench' })).body.data.chatbot.id as string;
  if (webhooks) await t.call('PATCH', `/api/v2/chatbots/${id}/settings/webhooks`, token, webhooks);
  return id;
}

async function deliveriesPerSecond(t: TestApp, token: string, receiver: WebhookReceiver) {
  console.log(`\n1. ${DELIVERIES} deliveries to one local HTTPS target [load ${load()}]`);
  const id = await chatbot(t, token, { messagesWebhookUrl: `${receiver.url}/bench` });
  const bodies = Array.from({ length: DELIVERIES }, (_, i) => ({
    event: 'ADD_MESSAGE',
    data: { chatbotId: id, threadId: 'bench', answer: `reply ${i}`, question: null },
  }));
  // Baseline: the same signed POSTs straight through a guarded client, 4 at a time, no database.
  const client = new GuardedHttpClient({
    allowPrivate: false,
    isAllowedAddress: addressRangeMatcher(['127.0.0.0/8']),
    extraCaCertificates: [receiver.ca],
  });
  const post = client.fetchWith({ timeoutMs: 5000, maxBytes: 65536, maxRedirects: 0 });
  const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < bodies.length) {
        const body = JSON.stringify(bodies[next++]);
        const res = await post(`${receiver.url}/baseline`, {
          method: 'POST',
          body,
          redirect: 'manual',
          headers: {
            'content-type': 'application/json',
            ...signDelivery(`msg_${newId()}`, Math.floor(Date.now() / 1000), body, [secret]),
          },
        });
        await res.arrayBuffer();
      }
    }),
  );
  const baseline = DELIVERIES / ((performance.now() - started) / 1000);
  await client.close();

  const outbox = t.app.services.webhookDispatcher;
  const store = t.app.services.store;
  const before = receiver.received.length;
  const at = new Date().toISOString();
  await store.transaction(async (s) => {
    for (const body of bodies)
      await s.webhooks.deliveries.insert({
        id: `msg_${newId()}`,
        chatbotId: id,
        conversationId: null,
        event: 'message',
        variant: 'A',
        targetUrl: `${receiver.url}/bench`,
        targetSource: 'event',
        sealedToken: null,
        body: JSON.stringify(body),
        status: 'pending',
        attempts: 0,
        totalAttempts: 0,
        nextAttemptAt: at,
        leaseUntil: null,
        lastStatus: null,
        lastError: null,
        lastAttemptAt: null,
        deliveredAt: null,
        createdAt: at,
        updatedAt: at,
      });
  });
  const t0 = performance.now();
  outbox.nudge();
  await receiver.waitFor((all) => all.length - before >= DELIVERIES, 600_000);
  const outboxRate = DELIVERIES / ((performance.now() - t0) / 1000);
  while ((await store.webhooks.deliveries.countByStatus(id)).delivered < DELIVERIES)
    await new Promise((r) => setTimeout(r, 20));
  console.log(`target                                   deliveries/s`);
  console.log(`direct signed POSTs (baseline)           ${baseline.toFixed(0).padStart(12)}`);
  console.log(`outbox -> dispatcher -> receiver         ${outboxRate.toFixed(0).padStart(12)}`);
  console.log(`ratio (outbox / direct)                  ${(outboxRate / baseline).toFixed(2).padStart(12)}`);
}

async function addedLatency(t: TestApp, token: string, receiver: WebhookReceiver) {
  console.log(
    `\n2. ${REPLIES} team replies with a Messages webhook, alternating with the same call on a chatbot without webhooks [load ${load()}]`,
  );
  const withHooks = await chatbot(t, token, {
    messagesWebhookUrl: `${receiver.url}/latency`,
    messagesWebhookToken: 'bench-token',
  });
  const without = await chatbot(t, token, null);
  const threads: Record<string, string> = {};
  for (const id of [withHooks, without]) {
    threads[id] = (
      await t.call('POST', `/api/v2/chatbots/${id}/conversations`, token, {})
    ).body.data.conversation.threadId;
    await t.call('POST', `/api/v2/chatbots/${id}/conversations/${threads[id]}/take-over`, token);
  }
  const reply = async (id: string, i: number) => {
    const start = performance.now();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v2/chatbots/${id}/conversations/${threads[id]}/replies`,
      headers: { authorization: `Bearer ${token}` },
      payload: { message: `reply ${i}` },
    });
    if (res.statusCode !== 201) throw new Error(`reply: ${res.statusCode} ${res.body.slice(0, 200)}`);
    return performance.now() - start;
  };
  for (let i = 0; i < 50; i++) {
    await reply(withHooks, i);
    await reply(without, i);
  }
  const on: number[] = [];
  const off: number[] = [];
  for (let i = 0; i < REPLIES; i++) {
    // Alternate which goes first, so neither always follows the other's background delivery.
    if (i % 2) {
      on.push(await reply(withHooks, i));
      off.push(await reply(without, i));
    } else {
      off.push(await reply(without, i));
      on.push(await reply(withHooks, i));
    }
  }
  const row = (name: string, xs: number[]) =>
    `${name.padEnd(40)} ${percentile(xs, 50).toFixed(2).padStart(8)} ${percentile(xs, 99).toFixed(2).padStart(8)}`;
  console.log(`call                                     p50 ms   p99 ms`);
  console.log(row('POST .../replies, webhooks off', off));
  console.log(row('POST .../replies, Messages webhook on', on));
  console.log(
    `ratio (on / off)                         ${(percentile(on, 50) / percentile(off, 50)).toFixed(2).padStart(8)} ${(percentile(on, 99) / percentile(off, 99)).toFixed(2).padStart(8)}`,
  );
}

export async function run() {
  const receiver = await startReceiver(() => 200);
  const t = await buildTestApp({ env: { ALLOW_PRIVATE_FETCH: '127.0.0.0/8', NODE_EXTRA_CA_CERTS: receiver.caFile } });
  try {
    const { token } = await t.token();
    await deliveriesPerSecond(t, token, receiver);
    await addedLatency(t, token, receiver);
  } finally {
    await t.close();
    await receiver.close();
  }
}
