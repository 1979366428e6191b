/**
 * The dispatcher: claims due deliveries from the outbox with a lease, sends them through the
 * sender port, and applies the retry schedule and the disabling rules to the result. A crashed
 * process's leases run out and another (or the restarted) process sends those deliveries again,
 * with the same `webhook-id`: delivery is at least once.
 *
 * Concurrency is bounded overall and per target URL, so a receiver that hangs holds at most
 * `perTarget` slots and the others keep flowing.
 */
import type { Store } from '../ports.js';
import type { WebhookOutbox } from './outbox.js';
import type { ClaimedDelivery, DeliveryOutcome, WebhookSender } from './ports.js';
import { DISABLE_AFTER_FAILED_DELIVERIES, GONE_STATUS, isSuccess, retryDelay } from './schedule.js';
import { signDelivery } from './signature.js';
import type { SigningSecrets } from './signing-secrets.js';
import { configuredUrls } from './targets.js';

export const WEBHOOK_USER_AGENT = 'Parley-Webhooks/0.1 (+https://github.com/parley-chat/parley)';

export interface DispatcherOptions {
  /** Deliveries in flight at once, all targets together. */
  concurrency: number;
  /** Deliveries in flight at once to one target URL. */
  perTarget: number;
  /** How often an idle dispatcher looks for due deliveries (retries, other instances' rows). */
  pollMs: number;
  /** How long a claim lasts: longer than one attempt's timeout, so only a dead process loses it. */
  leaseMs: number;
  /** The time source (a fake clock in tests). */
  clock?: { now(): number };
  log?: { error(obj: unknown, msg: string): void };
}

const iso = (ms: number) => new Date(ms).toISOString();

export class WebhookDispatcher {
  private readonly inFlight = new Map<string, { url: string; done: Promise<void> }>();
  private readonly perUrl = new Map<string, number>();
  private stopping = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private running = false;
  private pumping = false;
  private again = false;
  private readonly clock: { now(): number };

  constructor(
    private readonly store: Store,
    private readonly sender: WebhookSender,
    private readonly outbox: WebhookOutbox,
    private readonly secrets: SigningSecrets,
    private readonly options: DispatcherOptions,
  ) {
    this.clock = options.clock ?? Date;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = new AbortController();
    this.outbox.onEnqueued = () => this.nudge();
    this.schedule(0);
  }

  /** Stops claiming; requests in flight are cancelled and their leases dropped, uncounted, for the next start. */
  async stop(): Promise<void> {
    this.running = false;
    this.outbox.onEnqueued = () => {};
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stopping.abort();
    await this.drain();
  }

  /** New rows were written: look soon rather than at the next poll. */
  nudge(): void {
    this.schedule(2);
  }

  /** A change of this conversation committed: looks soon when it wrote deliveries. */
  committed(conversationId: string): void {
    if (this.outbox.takeEnqueued(conversationId)) this.nudge();
  }

  /** Claims and sends what is due now, and waits for those attempts (tests drive this with a fake clock). */
  async runDue(): Promise<number> {
    const started = await this.claim();
    await this.drain();
    return started;
  }

  /**
   * Deletes finished deliveries older than `retentionMs` (the log keeps them that long), in
   * batches so a large backlog never holds the database for long.
   */
  async prune(retentionMs: number): Promise<number> {
    const before = iso(this.clock.now() - retentionMs);
    let total = 0;
    for (;;) {
      const n = await this.store.webhooks.deliveries.prune(before, 500);
      total += n;
      if (n < 500) return total;
    }
  }

  /** Waits until nothing is in flight. */
  async drain(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    const at = Date.now() + ms;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => void this.pump(), ms);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    this.timer = null;
    this.timerAt = Infinity;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      await this.claim();
    } catch (err) {
      this.options.log?.error({ err }, 'webhook dispatcher could not read the outbox');
    } finally {
      this.pumping = false;
      if (this.again) {
        this.again = false;
        this.schedule(0);
      } else {
        this.schedule(this.options.pollMs);
      }
    }
  }

  /** Leases due rows up to the free slots, skipping targets at their limit; starts each attempt. */
  private async claim(): Promise<number> {
    let free = this.options.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const now = this.clock.now();
    // Targets at their limit are left out of the query, so a backlog to one never hides another's rows.
    const full = [...this.perUrl].filter(([, n]) => n >= this.options.perTarget).map(([url]) => url);
    const rows = await this.store.webhooks.deliveries.due(iso(now), free * 4, full);
    let started = 0;
    for (const row of rows) {
      if (free <= 0) break;
      if (this.inFlight.has(row.id)) continue;
      if ((this.perUrl.get(row.targetUrl) ?? 0) >= this.options.perTarget) continue;
      if (!(await this.store.webhooks.deliveries.lease(row.id, iso(now), iso(now + this.options.leaseMs)))) continue;
      this.perUrl.set(row.targetUrl, (this.perUrl.get(row.targetUrl) ?? 0) + 1);
      const done = this.attempt(row)
        .catch((err) => this.options.log?.error({ err, deliveryId: row.id }, 'webhook attempt could not be recorded'))
        .finally(() => {
          this.inFlight.delete(row.id);
          const n = (this.perUrl.get(row.targetUrl) ?? 1) - 1;
          if (n > 0) this.perUrl.set(row.targetUrl, n);
          else this.perUrl.delete(row.targetUrl);
          // A slot is free: more may be waiting.
          this.schedule(0);
        });
      this.inFlight.set(row.id, { url: row.targetUrl, done });
      free--;
      started++;
    }
    return started;
  }

  /**
   * Why a delivery must not be sent any more, or null. Checked before every attempt, so a webhook
   * the owner deleted (or a plan that lost the add-on) stops receiving at once, retries included.
   * Test sends go to the URL the owner named for them.
   */
  private async noLongerWanted(row: ClaimedDelivery): Promise<string | null> {
    if (row.targetSource === 'test') return null;
    const chatbot = await this.store.chatbots.get(row.chatbotId);
    if (!chatbot) return 'The chatbot no longer exists';
    if ((await this.store.accounts.get(chatbot.accountId))?.plan.webhooks !== true)
      return "The account's plan no longer includes webhooks";
    const thread =
      row.targetSource === 'thread' && row.conversationId
        ? await this.store.conversations.get(row.conversationId)
        : null;
    const urls = row.targetSource === 'thread' ? [thread?.webhookUrl] : configuredUrls(chatbot.settings);
    if (!urls.includes(row.targetUrl)) return 'The webhook URL is no longer configured: nothing more is sent to it';
    return null;
  }

  private async attempt(row: ClaimedDelivery): Promise<void> {
    const deliveries = this.store.webhooks.deliveries;
    const startedAt = iso(this.clock.now());
    const base = {
      attempts: row.attempts,
      lastStatus: row.lastStatus,
      deliveredAt: null,
      lastAttemptAt: row.lastAttemptAt,
    };
    if (row.targetDisabled) {
      await deliveries.finish(
        row.id,
        {
          ...base,
          status: 'skipped',
          nextAttemptAt: null,
          lastError: 'The target is disabled after repeated failures; re-enable it, then redeliver',
        },
        startedAt,
        false,
      );
      return;
    }
    const gone = await this.noLongerWanted(row);
    if (gone) {
      await deliveries.finish(
        row.id,
        { ...base, status: 'skipped', nextAttemptAt: null, lastError: gone },
        startedAt,
        false,
      );
      return;
    }
    let token: string | null;
    try {
      token = this.outbox.openToken(row);
    } catch (err) {
      await deliveries.finish(
        row.id,
        { ...base, status: 'failed', nextAttemptAt: null, lastError: (err as Error).message },
        startedAt,
        false,
      );
      return;
    }
    const secrets = await this.secrets.signing(row.chatbotId, startedAt);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      ...signDelivery(row.id, Math.floor(this.clock.now() / 1000), row.body, secrets),
    };
    if (token) headers['x-webhook-token'] = token;
    const result = await this.sender.send({ url: row.targetUrl, headers, body: row.body }, this.stopping.signal);
    if (this.stopping.signal.aborted) {
      await deliveries.release(row.id);
      return;
    }
    const at = this.clock.now();
    const attempts = row.attempts + 1;
    const outcome: DeliveryOutcome = {
      status: 'pending',
      attempts,
      nextAttemptAt: null,
      lastStatus: result.status,
      lastError:
        result.error ??
        (result.status !== null && !isSuccess(result.status) ? `The receiver answered HTTP ${result.status}` : null),
      lastAttemptAt: iso(at),
      deliveredAt: null,
    };
    const targets = this.store.webhooks.targets;
    if (result.status !== null && isSuccess(result.status)) {
      await deliveries.finish(row.id, { ...outcome, status: 'delivered', deliveredAt: iso(at) }, iso(at), true);
      await targets.succeeded(row.chatbotId, row.targetUrl, iso(at));
      return;
    }
    if (result.status === GONE_STATUS) {
      await deliveries.finish(
        row.id,
        { ...outcome, status: 'failed', lastError: 'The receiver answered 410 Gone: the target is disabled' },
        iso(at),
        true,
      );
      await targets.disable(row.chatbotId, row.targetUrl, 'The receiver answered 410 Gone', iso(at));
      return;
    }
    const delay = retryDelay(row.variant, attempts);
    if (delay !== null) {
      await deliveries.finish(row.id, { ...outcome, nextAttemptAt: iso(at + delay) }, iso(at), true);
      return;
    }
    await deliveries.finish(row.id, { ...outcome, status: 'failed' }, iso(at), true);
    if ((await targets.failed(row.chatbotId, row.targetUrl, iso(at))) >= DISABLE_AFTER_FAILED_DELIVERIES) {
      await targets.disable(
        row.chatbotId,
        row.targetUrl,
        `${DISABLE_AFTER_FAILED_DELIVERIES} deliveries in a row failed every retry`,
        iso(at),
      );
    }
  }
}
