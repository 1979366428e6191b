/**
 * /metrics as Prometheus reads it: behind METRICS_TOKEN, parsed with a real parser of the text
 * format, and its counters move after real work on a listening app with Redis: requests by route
 * pattern (never the raw URL), a visitor's socket and message, the answer, an ingest job and its
 * pages, a webhook delivery, the queue and the Redis connections. /readyz says Redis answers.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import { scrape, Scrape } from '../../helpers/prometheus.js';
import { REDIS_URL, redisAvailable } from '../../helpers/redis.js';
import { page, serveSite, type TestSite } from '../../helpers/site.js';
import { makeCertificate, startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import {
  chatbotWithKnowledge,
  newSession,
  readEvents,
  startLiveApp,
  visitor,
  type LiveApp,
} from '../../helpers/widget.js';

const TOKEN = 'metrics-token-for-the-test-0123456789';
const hasRedis = await redisAvailable();
let t: LiveApp;
let receiver: WebhookReceiver;
let site: TestSite;
let chatbotId: string;

beforeAll(async () => {
  receiver = await startReceiver(() => 200, makeCertificate());
  site = await serveSite({
    '/guide': page('Setup guide', '<p>Plug the base station in and hold its button for five seconds to pair it.</p>'),
  });
  t = await startLiveApp({
    env: {
      METRICS_TOKEN: TOKEN,
      ALLOW_PRIVATE_FETCH: '127.0.0.0/8',
      NODE_EXTRA_CA_CERTS: receiver.caFile,
      WEBHOOK_POLL_MS: '50',
      QUEUE_POLL_MS: '50',
      // With Redis, connection limits count 127.0.0.1's connects of every test in the minute.
      WS_CONNECTS_PER_MIN: '100000',
      ...(hasRedis && { REDIS_URL }),
    },
  });
  chatbotId = await chatbotWithKnowledge(t);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await site?.close();
});

test('/metrics answers only with the token, in the Prometheus text format', async () => {
  expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
  const wrong = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
  expect(wrong.status).toBe(401);
  expect((await wrong.json()).error.code).toBe('TOKEN_NOT_VALID');

  const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const s = new Scrape(await res.text());
  // Node's own metrics: event-loop lag among them.
  expect(s.family('parley_nodejs_eventloop_lag_seconds').type).toBe('GAUGE');
  expect(s.family('parley_http_request_duration_seconds').type).toBe('HISTOGRAM');
});

test('without METRICS_TOKEN there is no /metrics and nothing is counted', async () => {
  const plain = await buildTestApp();
  try {
    expect(plain.app.metrics).toBeNull();
    expect((await plain.call('GET', '/metrics', TOKEN)).status).toBe(404);
  } finally {
    await plain.close();
  }
});

test('requests count by route pattern and status, never by raw URL', async () => {
  const before = await scrape(t.url, TOKEN);
  const route = { method: 'GET', route: '/api/v2/chatbots/:chatbotId' };
  for (let i = 0; i < 3; i++)
    expect((await t.call('GET', `/api/v2/chatbots/${chatbotId}`, t.ownerToken)).status).toBe(200);
  expect((await t.call('GET', '/api/v2/chatbots/no-such-bot', t.ownerToken)).status).toBe(404);
  expect((await fetch(`${t.url}/no/such/path/4711`)).status).toBe(404);
  const after = await scrape(t.url, TOKEN);

  const moved = (labels: Record<string, string>) =>
    after.value('parley_http_requests_total', labels) - before.value('parley_http_requests_total', labels);
  expect(moved({ ...route, status: '200' })).toBe(3);
  expect(moved({ ...route, status: '404' })).toBe(1);
  expect(moved({ route: 'unmatched', status: '404' })).toBe(1);
  expect(
    after.value('parley_http_request_duration_seconds', route) -
      before.value('parley_http_request_duration_seconds', route),
  ).toBe(4);
  // Ids and unknown paths never become labels (one series per route, whatever the traffic).
  expect(after.text).not.toContain(chatbotId);
  expect(after.text).not.toContain('4711');
});

test('a visitor socket, its message and the answer move the gauges and counters', async () => {
  const before = await scrape(t.url, TOKEN);
  const session = await newSession(t, chatbotId);
  const socket = await visitor(t.url, session.token);
  const open = await scrape(t.url, TOKEN);
  expect(open.value('parley_realtime_connections', { kind: 'visitor_socket' })).toBe(
    before.value('parley_realtime_connections', { kind: 'visitor_socket' }) + 1,
  );

  socket.send({ type: 'message.send', clientId: 'c-1', text: 'How long do refunds take?' });
  await socket.waitFor((f) => f.type === 'answer.done');
  socket.send({ type: 'message.send', clientId: 'c-2', text: 'Do you sell tractors on the moon?' });
  await socket.waitFor(() => socket.of('answer.done').length === 2);
  socket.close();
  await socket.waitClosed();

  await expect
    .poll(async () => (await scrape(t.url, TOKEN)).value('parley_realtime_connections', { kind: 'visitor_socket' }))
    .toBe(before.value('parley_realtime_connections', { kind: 'visitor_socket' }));
  const after = await scrape(t.url, TOKEN);
  const moved = (name: string, labels: Record<string, string>) =>
    after.value(name, labels) - before.value(name, labels);
  expect(moved('parley_messages_total', { direction: 'in', author: 'visitor' })).toBe(2);
  expect(moved('parley_messages_total', { direction: 'out', author: 'ai' })).toBe(2);
  // One answered from the knowledge, one the knowledge has nothing for (a knowledge gap).
  expect(moved('parley_answers_total', { answerer: 'built-in', outcome: 'answered' })).toBe(1);
  expect(moved('parley_answers_total', { answerer: 'built-in', outcome: 'refused' })).toBe(1);
  expect(moved('parley_answer_duration_seconds', { answerer: 'built-in' })).toBe(2);
});

test('an SSE stream counts while it is open', async () => {
  const sse = { kind: 'visitor_sse' };
  const before = (await scrape(t.url, TOKEN)).value('parley_realtime_connections', sse);
  const session = await newSession(t, chatbotId);
  const res = await fetch(`${t.url}/api/widget/sse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'hello', v: 1 }),
  });
  expect(res.status).toBe(200);
  const stream = readEvents(res.body!);
  await expect.poll(() => stream.frames.some((f) => f.type === 'ready')).toBe(true);
  expect((await scrape(t.url, TOKEN)).value('parley_realtime_connections', sse)).toBe(before + 1);
  await stream.cancel();
  await expect.poll(async () => (await scrape(t.url, TOKEN)).value('parley_realtime_connections', sse)).toBe(before);
});

test('an ingest job counts its pages and its outcome; the queue its attempt', async () => {
  const before = await scrape(t.url, TOKEN);
  const res = await t.call('POST', `/api/v2/chatbots/${chatbotId}/knowledge/links`, t.ownerToken, {
    urls: [`${site.url}/guide`, `${site.url}/gone`],
  });
  expect(res.status).toBe(202);
  await t.app.services.queue.drain(30_000);
  const after = await scrape(t.url, TOKEN);
  const moved = (name: string, labels: Record<string, string>) =>
    after.value(name, labels) - before.value(name, labels);
  expect(moved('parley_ingest_items_total', { type: 'link', outcome: 'done' })).toBe(1);
  expect(moved('parley_ingest_items_total', { type: 'link', outcome: 'failed' })).toBe(1);
  expect(moved('parley_ingest_jobs_total', { outcome: 'partially_succeeded' })).toBe(1);
  expect(moved('parley_queue_jobs_total', { name: 'knowledge.ingest', outcome: 'done' })).toBe(1);
  // Nothing waits now: the depth and the lag read the jobs table.
  expect(after.value('parley_queue_jobs', { state: 'due' })).toBe(0);
  expect(after.value('parley_queue_lag_seconds')).toBe(0);
});

test('a webhook delivery counts as delivered and leaves no backlog', async () => {
  const settings = await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/webhooks`, t.ownerToken, {
    messagesWebhookUrl: `${receiver.url}/hook`,
  });
  expect(settings.status).toBe(200);
  const before = await scrape(t.url, TOKEN);
  const thread = (await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations`, t.ownerToken, {})).body.data
    .conversation.threadId;
  await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${thread}/take-over`, t.ownerToken);
  const reply = await t.call('POST', `/api/v2/chatbots/${chatbotId}/conversations/${thread}/replies`, t.ownerToken, {
    message: 'A person answers',
  });
  expect(reply.status).toBe(201);
  await receiver.waitFor((r) => r.some((w) => w.body.includes('A person answers')));
  await expect
    .poll(async () => (await scrape(t.url, TOKEN)).value('parley_webhook_backlog', { state: 'pending' }))
    .toBe(0);
  const after = await scrape(t.url, TOKEN);
  expect(
    after.value('parley_webhook_attempts_total', { outcome: 'delivered' }) -
      before.value('parley_webhook_attempts_total', { outcome: 'delivered' }),
  ).toBeGreaterThanOrEqual(1);
  expect(after.value('parley_webhook_attempts_total', { outcome: 'rejected' })).toBe(0);
  expect(
    after.value('parley_webhook_deliveries_total', { outcome: 'delivered' }) -
      before.value('parley_webhook_deliveries_total', { outcome: 'delivered' }),
  ).toBeGreaterThanOrEqual(1);
  expect(after.value('parley_webhook_deliveries_total', { outcome: 'failed' })).toBe(0);
  expect(after.value('parley_messages_total', { direction: 'out', author: 'agent' })).toBeGreaterThanOrEqual(1);
});

test.runIf(hasRedis)('Redis state is scraped and /readyz checks Redis', async () => {
  const s = await scrape(t.url, TOKEN);
  expect(s.value('parley_redis_up', { connection: 'command' })).toBe(1);
  expect(s.value('parley_redis_up', { connection: 'subscriber' })).toBe(1);
  const ready = await fetch(`${t.url}/readyz`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ status: 'ready', database: 'ok', redis: 'ok', pendingMigrations: [] });
});
