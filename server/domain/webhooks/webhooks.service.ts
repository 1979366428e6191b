/**
 * The owner's side of webhooks: the delivery log, redelivery, test sends, the signing secret and
 * re-enabling a disabled target; and the save-time check of target URLs.
 */
import type { FieldError } from '../../../shared/errors.js';
import type { Scope } from '../../../shared/scopes.js';
import { type AuthContext, requireScopes } from '../auth.js';
import type { ChatbotsService } from '../chatbots.service.js';
import type { CursorCodec } from '../cursor.js';
import { AppError, notFound, validationFailed } from '../errors.js';
import { nowIso } from '../ids.js';
import { requireFeature } from '../plans.js';
import type { Store } from '../ports.js';
import type { WebhookOutbox } from './outbox.js';
import { sampleBody } from './payloads.js';
import type { DeliveryRecord, DeliveryStatus, WebhookEvent, WebhookSender } from './ports.js';
import { RETRY_DELAYS_MS } from './schedule.js';
import type { SigningSecrets } from './signing-secrets.js';
import { configuredUrls, payloadVariant, resolveTarget } from './targets.js';

export interface DeliveryView {
  id: string;
  event: WebhookEvent;
  variant: 'A' | 'B';
  threadId: string | null;
  target: { url: string; source: DeliveryRecord['targetSource'] };
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

/** The scope that reads what an event's body carries. */
const PAYLOAD_SCOPE: Record<WebhookEvent, Scope> = {
  message: 'conversations:read',
  escalation: 'conversations:read',
  lead: 'leads:read',
};

const view = (d: DeliveryRecord): DeliveryView => ({
  id: d.id,
  event: d.event,
  variant: d.variant,
  threadId: d.conversationId,
  target: { url: d.targetUrl, source: d.targetSource },
  status: d.status,
  attempts: d.totalAttempts,
  lastStatus: d.lastStatus,
  lastError: d.lastError,
  lastAttemptAt: d.lastAttemptAt,
  nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt : null,
  deliveredAt: d.deliveredAt,
  createdAt: d.createdAt,
});

/** Default overlap of a rotation: a day for receivers to switch to the new secret. */
export const DEFAULT_OVERLAP_MINUTES = 24 * 60;

export class WebhooksService {
  constructor(
    private readonly store: Store,
    private readonly chatbots: ChatbotsService,
    private readonly cursors: CursorCodec,
    private readonly outbox: WebhookOutbox,
    private readonly secrets: SigningSecrets,
    private readonly sender: WebhookSender,
  ) {}

  /** The state of the chatbot's webhooks: variant, schedule, secret dates, targets and their health, counts. */
  async overview(auth: AuthContext, chatbotId: string) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const variant = payloadVariant(chatbot.settings);
    const secret = await this.store.webhooks.secrets.get(chatbot.id);
    const known = new Map((await this.store.webhooks.targets.list(chatbot.id)).map((t) => [t.url, t]));
    const urls = [...new Set([...configuredUrls(chatbot.settings), ...known.keys()])];
    const now = nowIso();
    return {
      payloadVariant: variant,
      retryDelaysSeconds: RETRY_DELAYS_MS[variant].map((ms) => ms / 1000),
      signingSecret: secret
        ? {
            createdAt: secret.createdAt,
            previousValidUntil: secret.previousUntil && secret.previousUntil > now ? secret.previousUntil : null,
          }
        : null,
      targets: urls.map((url) => {
        const t = known.get(url);
        return {
          url,
          disabled: !!t?.disabledAt,
          disabledAt: t?.disabledAt ?? null,
          disabledReason: t?.disabledReason ?? null,
          consecutiveFailedDeliveries: t?.consecutiveFailures ?? 0,
        };
      }),
      deliveries: await this.store.webhooks.deliveries.countByStatus(chatbot.id),
    };
  }

  async deliveries(
    auth: AuthContext,
    chatbotId: string,
    q: { limit: number; cursor?: string; status?: DeliveryStatus; event?: WebhookEvent },
  ) {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const list = `webhook-deliveries:${q.status ?? ''}:${q.event ?? ''}`;
    const page = await this.store.webhooks.deliveries.page(
      chatbot.id,
      { limit: q.limit, after: this.cursors.decode(list, q.cursor) },
      { status: q.status, event: q.event },
    );
    return { deliveries: page.items.map(view), nextCursor: this.cursors.encode(list, page.next) };
  }

  /**
   * One delivery with the exact body it sends. The body is a conversation's messages or a lead's
   * contact details, so reading it needs the scope that reads those too.
   */
  async delivery(auth: AuthContext, chatbotId: string, id: string) {
    const d = await this.reachDelivery(auth, chatbotId, id);
    requireScopes(auth, ['settings:read', PAYLOAD_SCOPE[d.event]]);
    return { ...view(d), payload: JSON.parse(d.body) as unknown };
  }

  /** Sends the event again from a fresh retry round: same `webhook-id`, same body, same target. */
  async redeliver(auth: AuthContext, chatbotId: string, id: string) {
    requireFeature(auth.account, 'webhooks');
    const d = await this.reachDelivery(auth, chatbotId, id);
    await this.assertEnabled(d.chatbotId, d.targetUrl);
    await this.store.webhooks.deliveries.requeue(d.id, nowIso());
    this.outbox.onEnqueued();
    return view((await this.store.webhooks.deliveries.get(d.chatbotId, d.id))!);
  }

  /** A sample event of `event` to where that event would go outside any thread (or to `url`). */
  async test(
    auth: AuthContext,
    chatbotId: string,
    input: { event: WebhookEvent; url?: string; token?: string | null },
  ) {
    requireFeature(auth.account, 'webhooks');
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const target = input.url
      ? { url: input.url, token: input.token ?? null, source: 'test' as const }
      : resolveTarget(input.event, chatbot.settings, null);
    if (!target) {
      throw validationFailed(
        [{ path: ['event'], message: `no ${input.event} webhook URL and no global webhookUrl is set` }],
        'There is no target to send to',
      );
    }
    if (input.url) await this.checkUrls({ url: input.url });
    await this.assertEnabled(chatbot.id, target.url);
    const at = nowIso();
    const variant = payloadVariant(chatbot.settings);
    const record = await this.outbox.write(
      this.store,
      chatbot.id,
      null,
      input.event,
      variant,
      { ...target, source: 'test' },
      sampleBody(variant, input.event, chatbot, this.outbox.siteUrl, at),
      at,
    );
    this.outbox.onEnqueued();
    return view(record);
  }

  /** A new signing secret, shown only in this answer; the old one signs too until the overlap ends. */
  async rotateSecret(auth: AuthContext, chatbotId: string, input: { overlapMinutes?: number }) {
    requireFeature(auth.account, 'webhooks');
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const overlap = (input.overlapMinutes ?? DEFAULT_OVERLAP_MINUTES) * 60_000;
    const r = await this.secrets.rotate(chatbot.id, nowIso(), overlap);
    return { signingSecret: r.secret, createdAt: r.createdAt, previousValidUntil: r.previousUntil };
  }

  /** The first secret when the webhooks settings are first saved: returned once, or null when one exists. */
  async firstSecret(chatbotId: string): Promise<string | null> {
    return this.secrets.create(chatbotId, nowIso());
  }

  /** Re-enables a target disabled after repeated failures; deliveries skipped meanwhile can be redelivered. */
  async enableTarget(auth: AuthContext, chatbotId: string, url: string) {
    requireFeature(auth.account, 'webhooks');
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const was = await this.store.webhooks.targets.get(chatbot.id, url);
    if (!was) throw notFound('Webhook target');
    await this.store.webhooks.targets.enable(chatbot.id, url, nowIso());
    return { url, disabled: false, wasDisabled: !!was.disabledAt };
  }

  /** See checkWebhookUrls. */
  checkUrls(fields: Record<string, unknown>, path: string[] = []): Promise<void> {
    return checkWebhookUrls(this.sender, fields, path);
  }

  private async reachDelivery(auth: AuthContext, chatbotId: string, id: string): Promise<DeliveryRecord> {
    const chatbot = await this.chatbots.reach(auth, chatbotId);
    const d = await this.store.webhooks.deliveries.get(chatbot.id, id);
    if (!d) throw notFound('Webhook delivery');
    return d;
  }

  private async assertEnabled(chatbotId: string, url: string) {
    const t = await this.store.webhooks.targets.get(chatbotId, url);
    if (t?.disabledAt) {
      throw new AppError(
        'WEBHOOK_TARGET_DISABLED',
        `Deliveries to ${url} are disabled: ${t.disabledReason ?? 'repeated failures'}`,
        {
          hint: 'Fix the receiver, then POST /chatbots/{chatbotId}/webhooks/targets/enable with {"url": …} and send again',
        },
      );
    }
  }
}

/**
 * Refuses target URLs that are not HTTPS or point to internal addresses (unless
 * ALLOW_PRIVATE_FETCH opens them): VALIDATION_FAILED naming each field. Only fields whose name
 * ends in `Url` are checked.
 */
export async function checkWebhookUrls(
  sender: Pick<WebhookSender, 'refuse'>,
  fields: Record<string, unknown>,
  path: (string | number)[] = [],
): Promise<void> {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (!/url$/i.test(key) || typeof value !== 'string' || !value) continue;
    const why = await sender.refuse(value);
    if (why) errors.push({ path: [...path, key], message: why });
  }
  if (errors.length) throw validationFailed(errors, 'A webhook URL cannot be used');
}
