/** Webhooks: the delivery log, redelivery, test sends, the signing secret, disabled targets (scoped like settings). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { paged } from '../../http/envelope.js';
import { endpoint } from '../../http/route.js';
import { one, page } from './resource-schemas.js';
import { ChatbotParams, pageQuery } from './schemas.js';

const nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Instant = nullable(Type.String({ format: 'date-time' }));
const EVENTS = ['message', 'escalation', 'lead'];
const STATUSES = ['pending', 'delivered', 'failed', 'skipped'];

const DeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'The stable `webhook-id` header: the same on every attempt and redelivery' }),
    event: Type.Enum(EVENTS),
    variant: Type.Enum(['A', 'B']),
    threadId: Type.Union([Type.String(), Type.Null()]),
    target: Type.Object({
      url: Type.String(),
      source: Type.Enum(['thread', 'event', 'global', 'test'], {
        description:
          "thread: the conversation's own pair; event: the event's URL; global: webhookUrl; test: a test send",
      }),
    }),
    status: Type.Enum(STATUSES, {
      description:
        'pending (first or next attempt waiting), delivered (2xx), failed (retries used up, or 410), skipped (target disabled)',
    }),
    attempts: Type.Integer({ description: 'HTTP attempts made, redeliveries included' }),
    lastStatus: Type.Union([Type.Integer(), Type.Null()], {
      description: 'HTTP status of the last attempt; null when it got none (timeout, refused, network)',
    }),
    lastError: Type.Union([Type.String(), Type.Null()]),
    lastAttemptAt: Instant,
    nextAttemptAt: { ...Instant, description: 'When a pending delivery is tried next' },
    deliveredAt: Instant,
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'WebhookDelivery' },
);
const DeliveryWithPayload = Type.Object({
  ...DeliverySchema.properties,
  payload: Type.Unknown({ description: 'The exact JSON body sent' }),
});
const TargetSchema = Type.Object({
  url: Type.String(),
  disabled: Type.Boolean(),
  disabledAt: Instant,
  disabledReason: Type.Union([Type.String(), Type.Null()]),
  consecutiveFailedDeliveries: Type.Integer(),
});
const Counts = Type.Object(Object.fromEntries(STATUSES.map((s) => [s, Type.Integer()])));
const DeliveryParams = Type.Object({
  chatbotId: Type.String({ minLength: 1, maxLength: 64 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 64 }),
});
const DeliveriesQuery = Type.Object(
  {
    ...pageQuery(50, 100).properties,
    status: Type.Optional(Type.Enum(STATUSES)),
    event: Type.Optional(Type.Enum(EVENTS)),
  },
  { additionalProperties: false },
);
const HttpsUrl = Type.String({ pattern: '^https://', maxLength: 2048 });

export default async function webhooks(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const service = app.services.webhooks;
  const tags = ['webhooks'];
  const read = { scopes: ['settings:read' as const] };
  const write = { scopes: ['settings:write' as const] };

  app.get(
    '/chatbots/:chatbotId/webhooks',
    endpoint({
      access: read,
      data: one(
        'webhooks',
        Type.Object({
          payloadVariant: Type.Enum(['A', 'B']),
          retryDelaysSeconds: Type.Array(Type.Number()),
          signingSecret: Type.Union([
            Type.Object({ createdAt: Type.String({ format: 'date-time' }), previousValidUntil: Instant }),
            Type.Null(),
          ]),
          targets: Type.Array(TargetSchema),
          deliveries: Counts,
        }),
      ),
      tags,
      operationId: 'getWebhookState',
      summary: "The chatbot's webhook state",
      description:
        'Payload variant and its retry schedule, when the signing secret was made (never the secret), each target URL with whether repeated failures disabled it, and delivery counts by status.',
      params: ChatbotParams,
    }),
    async (request) => ({ webhooks: await service.overview(request.auth, request.params.chatbotId) }),
  );

  app.get(
    '/chatbots/:chatbotId/webhooks/deliveries',
    endpoint({
      access: read,
      data: page('deliveries', DeliverySchema),
      tags,
      summary: 'The delivery log, newest first',
      description:
        'One entry per event and target: attempts, last status and error, next try. Paginated (limit 1 to 100, default 50); `status` and `event` filter.',
      params: ChatbotParams,
      querystring: DeliveriesQuery,
    }),
    async (request) => {
      const q = request.query as { limit: number; cursor?: string; status?: 'pending'; event?: 'message' };
      const r = await service.deliveries(request.auth, request.params.chatbotId, q);
      return paged('deliveries', r.deliveries, q.limit, r.nextCursor);
    },
  );

  app.get(
    '/chatbots/:chatbotId/webhooks/deliveries/:deliveryId',
    endpoint({
      access: read,
      data: one('delivery', DeliveryWithPayload),
      tags,
      summary: 'One delivery, with the exact body it sends',
      params: DeliveryParams,
      description:
        'The body carries what the event is about, so this also needs conversations:read (message, escalation) or leads:read (lead).',
    }),
    async (request) => ({
      delivery: await service.delivery(request.auth, request.params.chatbotId, request.params.deliveryId),
    }),
  );

  app.post(
    '/chatbots/:chatbotId/webhooks/deliveries/:deliveryId/redeliver',
    endpoint({
      access: write,
      status: 202,
      data: one('delivery', DeliverySchema),
      tags,
      summary: 'Send an event again',
      description:
        'Same `webhook-id`, same body, same target, with a fresh retry schedule; sent in the background (202). A disabled target answers 409 WEBHOOK_TARGET_DISABLED. Needs the webhook add-on.',
      params: DeliveryParams,
    }),
    async (request) => ({
      delivery: await service.redeliver(request.auth, request.params.chatbotId, request.params.deliveryId),
    }),
  );

  app.post(
    '/chatbots/:chatbotId/webhooks/test',
    endpoint({
      access: write,
      status: 202,
      data: one('delivery', DeliverySchema),
      tags,
      operationId: 'sendTestWebhook',
      summary: 'Send a test event',
      description:
        "A sample body of `event` in the chatbot's payload variant (ids start with `test_`), to where that event goes outside a thread (the event's URL, else the global one), or to `url` with `token`. Sent in the background (202): follow it in the delivery log. Needs the webhook add-on.",
      params: ChatbotParams,
      body: Type.Object(
        {
          event: Type.Enum(EVENTS),
          url: Type.Optional(HttpsUrl),
          token: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
        },
        { additionalProperties: false },
      ),
    }),
    async (request) => ({
      delivery: await service.test(
        request.auth,
        request.params.chatbotId,
        request.body as { event: 'message'; url?: string; token?: string | null },
      ),
    }),
  );

  app.post(
    '/chatbots/:chatbotId/webhooks/signing-secret',
    endpoint({
      access: write,
      data: Type.Object({
        signingSecret: Type.String(),
        createdAt: Type.String({ format: 'date-time' }),
        previousValidUntil: Instant,
      }),
      tags,
      operationId: 'rotateWebhookSigningSecret',
      summary: 'Rotate the signing secret',
      description:
        'A new secret (`whsec_…`), shown only in this answer. The previous one keeps signing beside it for `overlapMinutes` (default 1440, 0 ends it now): `webhook-signature` then carries both signatures space-separated, newest first; `X-SERVICE-SIGNATURE` stays one `sha256=<hex>` value of the new secret. Needs the webhook add-on.',
      params: ChatbotParams,
      body: Type.Optional(
        Type.Object(
          { overlapMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_080 })) },
          { additionalProperties: false },
        ),
      ),
    }),
    async (request) =>
      service.rotateSecret(request.auth, request.params.chatbotId, (request.body ?? {}) as { overlapMinutes?: number }),
  );

  app.post(
    '/chatbots/:chatbotId/webhooks/targets/enable',
    endpoint({
      access: write,
      data: one('target', Type.Object({ url: Type.String(), disabled: Type.Boolean(), wasDisabled: Type.Boolean() })),
      tags,
      summary: 'Re-enable a disabled target',
      description:
        'Targets are disabled after 5 deliveries in a row used up their retries, or at once on 410 Gone. Deliveries skipped meanwhile stay in the log; redeliver the ones you need. Needs the webhook add-on.',
      params: ChatbotParams,
      body: Type.Object({ url: HttpsUrl }, { additionalProperties: false }),
    }),
    async (request) => ({
      target: await service.enableTarget(request.auth, request.params.chatbotId, (request.body as { url: string }).url),
    }),
  );
}
