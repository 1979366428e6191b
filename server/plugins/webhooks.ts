/**
 * webhooks: the parts composed (the HTTP sender, an outbound adapter; the outbox rules; the
 * signing secrets; the dispatcher), built inside the services plugin because conversations and
 * settings use them; and this plugin, which runs the dispatcher from onReady to onClose.
 */
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import type { ChatbotsService } from '../domain/chatbots.service.js';
import type { CursorCodec } from '../domain/cursor.js';
import type { Store } from '../domain/ports.js';
import type { SecretBox } from '../domain/secrets.js';
import { WebhookDispatcher } from '../domain/webhooks/dispatcher.js';
import { WebhookOutbox } from '../domain/webhooks/outbox.js';
import { SigningSecrets } from '../domain/webhooks/signing-secrets.js';
import { checkWebhookUrls, WebhooksService } from '../domain/webhooks/webhooks.service.js';
import { addressRangeMatcher } from '../outbound/address-policy.js';
import type { GuardedHttpClient } from '../outbound/guarded-client.js';
import type { Metrics } from '../observability/metrics.js';
import { webhookSender } from '../outbound/webhook-sender.js';
import { countedDeliveries, observedSender } from './observe-services.js';

export function createWebhooks(
  store: Store,
  outbound: GuardedHttpClient,
  box: SecretBox,
  config: Config,
  log?: { error(obj: unknown, msg: string): void },
  metrics?: Metrics,
) {
  const http = webhookSender(outbound, {
    timeoutMs: config.webhooks.timeoutMs,
    guard: {
      allowPrivate: config.allowPrivateFetch,
      ...(config.privateFetchRanges.length ? { isAllowedAddress: addressRangeMatcher(config.privateFetchRanges) } : {}),
    },
  });
  const sender = observedSender(http, metrics);
  const outbox = new WebhookOutbox(box, config.siteUrl);
  const secrets = new SigningSecrets(store, box);
  const dispatcher = new WebhookDispatcher(countedDeliveries(store, metrics), sender, outbox, secrets, {
    concurrency: config.webhooks.concurrency,
    perTarget: config.webhooks.perTarget,
    pollMs: config.webhooks.pollMs,
    // The client's deadline bounds an attempt; the margin covers recording it. Only a process that
    // died loses its claim.
    leaseMs: config.webhooks.timeoutMs + 2_000,
    log,
  });
  return {
    sender,
    outbox,
    dispatcher,
    checkUrls: (fields: Record<string, unknown>, path: (string | number)[] = []) =>
      checkWebhookUrls(sender, fields, path),
    service: (chatbots: ChatbotsService, cursors: CursorCodec) =>
      new WebhooksService(store, chatbots, cursors, outbox, secrets, sender),
  };
}

/** Finished deliveries stay in the log this long (redeliverable meanwhile), then are deleted. */
export const LOG_RETENTION_MS = 30 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface WebhooksOptions {
  /** Deliver (default true; the CLI turns background work off). */
  run?: boolean;
}

/** Starts delivering once the app is ready; on close stops claiming and puts in-flight deliveries back, before the services' parts close. */
export default fp<WebhooksOptions>(
  async (app, options) => {
    const dispatcher: WebhookDispatcher = app.services.webhookDispatcher;
    let pruner: NodeJS.Timeout | null = null;
    if (options.run !== false) {
      app.addHook('onReady', async () => {
        dispatcher.start();
        const prune = () =>
          void dispatcher
            .prune(LOG_RETENTION_MS)
            .catch((err) => app.log.error({ err }, 'pruning the webhook log failed'));
        pruner = setInterval(prune, PRUNE_EVERY_MS);
        pruner.unref();
      });
    }
    // Rows written in a change's transaction are visible once it commits: look then, not at the next poll.
    const unsubscribe = app.services.conversations.changes.onCommit((conversation) =>
      dispatcher.committed(conversation.id),
    );
    app.addHook('onClose', async () => {
      if (pruner) clearInterval(pruner);
      unsubscribe();
      await dispatcher.stop();
    });
  },
  { name: 'webhooks', dependencies: ['services'] },
);
