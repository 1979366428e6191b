/**
 * Traces, with the SDK started as `npm start` starts it (the OTEL_* variables) and exported over
 * real OTLP/HTTP to a local collector stand-in: one server span per request (continuing the
 * caller's W3C traceparent), one span per answer inside it, one per ingest item, one per webhook
 * attempt. Without the variables nothing is registered (config.ts `tracing`).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadConfig } from '../../../server/config.js';
import { startTracing, type Tracing } from '../../../server/observability/tracing.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { startOtlpStandin } from '../../helpers/otlp-standin.js';
import { page, serveSite, type TestSite } from '../../helpers/site.js';
import { makeCertificate, startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

let collector: Awaited<ReturnType<typeof startOtlpStandin>>;
let tracing: Tracing | null;
let t: TestApp;
let site: TestSite;
let receiver: WebhookReceiver;
const saved = { ...process.env };

beforeAll(async () => {
  collector = await startOtlpStandin();
  site = await serveSite({ '/faq': page('FAQ', '<p>Parcels ship from Hamburg within two working days.</p>') });
  receiver = await startReceiver(() => 200, makeCertificate());
  // The exporter and the resource read their own standard variables.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
  process.env.OTEL_SERVICE_NAME = 'parley-under-test';
  tracing = await startTracing(loadConfig({ DATA_DIR: '/tmp', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }));
  t = await buildTestApp({
    env: { ALLOW_PRIVATE_FETCH: '127.0.0.0/8', NODE_EXTRA_CA_CERTS: receiver.caFile, WEBHOOK_POLL_MS: '50' },
  });
});
afterAll(async () => {
  await t?.close();
  await tracing?.shutdown();
  process.env = saved;
  await collector?.close();
  await site?.close();
  await receiver?.close();
});

test('the standard variables decide: off unless an exporter or an endpoint is named', () => {
  expect(loadConfig({ DATA_DIR: '/tmp' }).tracing).toBeNull();
  expect(loadConfig({ DATA_DIR: '/tmp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).tracing).toEqual({
    exporter: 'otlp',
  });
  expect(loadConfig({ DATA_DIR: '/tmp', OTEL_TRACES_EXPORTER: 'console' }).tracing).toEqual({ exporter: 'console' });
  expect(
    loadConfig({ DATA_DIR: '/tmp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).tracing,
  ).toBeNull();
  expect(loadConfig({ DATA_DIR: '/tmp', OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeNull();
  expect(() => loadConfig({ DATA_DIR: '/tmp', OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
});

test('a request, its answer, an ingest item and a webhook attempt each export a span over OTLP', async () => {
  const token = (await t.token()).token;
  const chatbotId = (await t.call('POST', '/api/v2/chatbots', token, { title: 'Traced' })).body.data.chatbot.id;
  await t.call('PATCH', `/api/v2/chatbots/${chatbotId}/settings/webhooks`, token, {
    messagesWebhookUrl: `${receiver.url}/hook`,
  });
  const ingest = await t.call('POST', `/api/v2/chatbots/${chatbotId}/knowledge/links`, token, {
    urls: [`${site.url}/faq`],
  });
  expect(ingest.status).toBe(202);
  await t.app.services.queue.drain(30_000);

  // The caller's trace continues: its trace id, our server span its child.
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parent = '00f067aa0ba902b7';
  const asked = await t.call(
    'POST',
    `/api/v2/chatbots/${chatbotId}/messages`,
    token,
    { message: 'Where do parcels ship from?' },
    {
      traceparent: `00-${traceId}-${parent}-01`,
    },
  );
  expect(asked.status).toBe(201);
  await receiver.waitFor((r) => r.length > 0);
  await expect
    .poll(async () => {
      await tracing!.flush();
      return collector.spans.some((s) => s.name === 'webhook.attempt');
    })
    .toBe(true);

  const spans = collector.spans;
  expect(collector.contentTypes[0]).toMatch(/application\/json/);
  const request = spans.find((s) => s.name === 'POST /api/v2/chatbots/:chatbotId/messages')!;
  expect(request).toMatchObject({
    traceId,
    parentSpanId: parent,
    kind: 2, // SERVER
    attributes: {
      'http.request.method': 'POST',
      'http.route': '/api/v2/chatbots/:chatbotId/messages',
      'http.response.status_code': 201,
    },
    resource: { 'service.name': 'parley-under-test' },
  });
  const answer = spans.find((s) => s.name === 'answer' && s.traceId === traceId)!;
  expect(answer.parentSpanId).toBe(request.spanId);
  expect(answer.attributes).toMatchObject({ 'parley.answerer': 'built-in', 'parley.outcome': 'answered' });

  const item = spans.find((s) => s.name === 'ingest.item')!;
  expect(item.attributes).toMatchObject({ 'parley.item_type': 'link', 'parley.outcome': 'done' });
  const attempt = spans.find((s) => s.name === 'webhook.attempt')!;
  expect(attempt.kind).toBe(3); // CLIENT
  expect(attempt.attributes).toMatchObject({ 'parley.outcome': 'delivered', 'http.response.status_code': 200 });
  // No span names a raw URL with ids: routes are patterns.
  expect(spans.filter((s) => s.kind === 2).every((s) => !s.name.includes(chatbotId))).toBe(true);
});
