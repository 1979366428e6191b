/**
 * The dispatcher against a real local HTTPS receiver, on SQLite and PostgreSQL, with a fake clock:
 * the retry schedules of both variants to the millisecond, what counts as failure (500, 302 not
 * followed, a hang past the deadline, a dropped connection), 410 and repeated failures disabling
 * a target, per-target concurrency, and stop() putting in-flight deliveries back uncounted.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { newId } from '../../../../server/domain/ids.js';
import type { ChatbotRecord, Store } from '../../../../server/domain/ports.js';
import { SecretBox } from '../../../../server/domain/secrets.js';
import { WebhookDispatcher } from '../../../../server/domain/webhooks/dispatcher.js';
import { WebhookOutbox } from '../../../../server/domain/webhooks/outbox.js';
import type { PayloadVariant } from '../../../../server/domain/webhooks/ports.js';
import { RETRY_DELAYS_MS } from '../../../../server/domain/webhooks/schedule.js';
import { configuredUrls } from '../../../../server/domain/webhooks/targets.js';
import { SigningSecrets } from '../../../../server/domain/webhooks/signing-secrets.js';
import { addressRangeMatcher } from '../../../../server/outbound/address-policy.js';
import { GuardedHttpClient } from '../../../../server/outbound/guarded-client.js';
import { webhookSender } from '../../../../server/outbound/webhook-sender.js';
import { openTestDatabase, type TestDatabase } from '../../../helpers/database.js';
import { describeOnDialects } from '../../../helpers/dialects.js';
import { makeCertificate, startReceiver, type WebhookReceiver } from '../../../helpers/webhook-receiver.js';

const START = Date.UTC(2030, 0, 1);

describeOnDialects('webhook dispatcher on %s', (dialect) => {
  let db: TestDatabase;
  let store: Store;
  let receiver: WebhookReceiver;
  let other: WebhookReceiver;
  let client: GuardedHttpClient;
  const cert = makeCertificate();
  const box = new SecretBox(randomBytes(32));
  const outbox = new WebhookOutbox(box, 'https://parley.test');
  const clock = {
    t: START,
    now() {
      return this.t;
    },
  };
  let dispatchers: WebhookDispatcher[] = [];

  beforeAll(async () => {
    db = await openTestDatabase(dialect);
    store = db.store;
    receiver = await startReceiver(() => 200, cert);
    other = await startReceiver(() => 200, cert);
    client = new GuardedHttpClient({
      allowPrivate: false,
      isAllowedAddress: addressRangeMatcher(['127.0.0.0/8']),
      extraCaCertificates: [receiver.ca],
    });
  });
  afterAll(async () => {
    await client.close();
    await receiver.close();
    await other.close();
    await db.close();
  });
  afterEach(async () => {
    for (const d of dispatchers) await d.stop();
    dispatchers = [];
    // Each test starts with an empty outbox: the dispatcher claims across chatbots.
    await db.database.db.deleteFrom('webhook_deliveries').execute();
    receiver.received.length = 0;
    other.received.length = 0;
    receiver.respond = () => 200;
    other.respond = () => 200;
    clock.t = START;
  });

  function dispatcher(options: { timeoutMs?: number; perTarget?: number; concurrency?: number } = {}) {
    const sender = webhookSender(client, {
      timeoutMs: options.timeoutMs ?? 10_000,
      guard: { allowPrivate: false, isAllowedAddress: addressRangeMatcher(['127.0.0.0/8']) },
    });
    const d = new WebhookDispatcher(store, sender, outbox, new SigningSecrets(store, box), {
      concurrency: options.concurrency ?? 8,
      perTarget: options.perTarget ?? 4,
      pollMs: 20,
      leaseMs: 10_000,
      clock,
    });
    dispatchers.push(d);
    return d;
  }

  async function chatbot(): Promise<ChatbotRecord> {
    const accountId = newId();
    const at = new Date(START).toISOString();
    await store.accounts.insert({
      id: accountId,
      name: 'a',
      plan: {
        name: 't',
        maxChatbots: 9,
        maxPages: 9,
        webhooks: true,
        analytics: true,
        brandingRemoval: true,
        active: true,
      },
      createdAt: at,
      updatedAt: at,
    });
    const userId = newId();
    await store.users.insert({
      id: userId,
      accountId,
      email: `${userId.toLowerCase()}@x.test`,
      name: null,
      role: 'owner',
      createdAt: at,
    });
    const bot: ChatbotRecord = {
      id: newId(),
      accountId,
      createdById: userId,
      title: 'Bot',
      description: '',
      settings: {},
      createdAt: at,
      updatedAt: at,
    };
    await store.chatbots.insert(bot);
    return bot;
  }

  /** Deliveries to `url`, which the chatbot's settings name (as when the outbox writes them). */
  async function enqueue(bot: ChatbotRecord, url: string, variant: PayloadVariant = 'A', n = 1) {
    const settings = (await store.chatbots.get(bot.id))!.settings;
    if (!configuredUrls(settings).includes(url)) {
      const free = ['webhookUrl', 'messagesWebhookUrl', 'escalationWebhookUrl', 'leadsWebhookUrl'].find(
        (k) => !settings[k],
      )!;
      await store.chatbots.update(bot.id, { settings: { ...settings, [free]: url } }, new Date(clock.t).toISOString());
    }
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const d = await outbox.write(
        store,
        bot.id,
        null,
        'message',
        variant,
        { url, token: 'tok-1', source: 'event' },
        { event: 'ADD_MESSAGE', data: { i } },
        new Date(clock.t).toISOString(),
      );
      ids.push(d.id);
    }
    return ids;
  }

  const row = (bot: ChatbotRecord, id: string) => store.webhooks.deliveries.get(bot.id, id);

  test("a thread's own webhook, cleared on the thread, gets no further attempt", async () => {
    const bot = await chatbot();
    const url = `${receiver.url}/thread`;
    const at = new Date(clock.t).toISOString();
    const conversation = {
      id: newId(),
      chatbotId: bot.id,
      chatUserId: null,
      status: 'OPEN',
      mode: 'AI',
      escalated: false,
      agentId: null,
      seq: 1,
      webhookUrl: url,
      webhookToken: null,
      totalMessagesRead: 0,
      messageCount: 0,
      lastMessageAt: null,
      createdAt: at,
      updatedAt: at,
      endedAt: null,
    } as const;
    await store.conversations.insert({ ...conversation });
    receiver.respond = () => 500;
    const d = dispatcher();
    const { id } = await outbox.write(
      store,
      bot.id,
      conversation.id,
      'message',
      'A',
      { url, token: null, source: 'thread' },
      { event: 'ADD_MESSAGE', data: {} },
      at,
    );
    await d.runDue();
    expect(receiver.received).toHaveLength(1);
    expect(await store.conversations.cas(conversation.id, 1, 2, { webhookUrl: null })).toBe(true);
    clock.t += RETRY_DELAYS_MS.A[0];
    await d.runDue();
    expect(receiver.received).toHaveLength(1);
    expect(await row(bot, id)).toMatchObject({ status: 'skipped', totalAttempts: 1 });
  });

  test('a webhook the owner removed, or a plan that lost the add-on, gets no further attempt: its pending deliveries are skipped', async () => {
    const bot = await chatbot();
    const url = `${receiver.url}/removed`;
    const at = () => new Date(clock.t).toISOString();
    await store.chatbots.update(bot.id, { settings: { messagesWebhookUrl: url } }, at());
    receiver.respond = () => 500;
    const d = dispatcher();
    const [id] = await enqueue(bot, url);
    await d.runDue();
    expect(receiver.received).toHaveLength(1);
    // The owner deletes the webhook while the delivery waits for its retry.
    await store.chatbots.update(bot.id, { settings: { messagesWebhookUrl: null } }, at());
    clock.t += RETRY_DELAYS_MS.A[0];
    await d.runDue();
    expect(receiver.received).toHaveLength(1);
    expect(await row(bot, id)).toMatchObject({ status: 'skipped', nextAttemptAt: null, totalAttempts: 1 });
    expect((await row(bot, id))!.lastError).toMatch(/no longer/);

    // The same when the account's plan no longer has webhooks.
    await store.chatbots.update(bot.id, { settings: { messagesWebhookUrl: url } }, at());
    const [second] = await enqueue(bot, url);
    const account = (await store.accounts.get(bot.accountId))!;
    await store.accounts.update(bot.accountId, { plan: { ...account.plan, webhooks: false } }, at());
    await d.runDue();
    expect(receiver.received).toHaveLength(1);
    expect(await row(bot, second)).toMatchObject({ status: 'skipped', totalAttempts: 0 });
  });

  test.each(['A', 'B'] as const)('variant %s: retries exactly on its schedule, then fails', async (variant) => {
    const bot = await chatbot();
    receiver.respond = () => 500;
    const d = dispatcher();
    const [id] = await enqueue(bot, `${receiver.url}/hook`, variant);
    expect(await d.runDue()).toBe(1);
    for (const delay of RETRY_DELAYS_MS[variant]) {
      const before = await row(bot, id);
      expect(before!.status).toBe('pending');
      expect(before!.nextAttemptAt).toBe(new Date(clock.t + delay).toISOString());
      clock.t += delay - 1;
      expect(await d.runDue()).toBe(0); // a millisecond early: nothing
      clock.t += 1;
      expect(await d.runDue()).toBe(1);
    }
    const done = await row(bot, id);
    expect(done).toMatchObject({
      status: 'failed',
      nextAttemptAt: null,
      lastStatus: 500,
      totalAttempts: RETRY_DELAYS_MS[variant].length + 1,
    });
    expect(done!.lastError).toContain('500');
    clock.t += 3_600_000;
    expect(await d.runDue()).toBe(0);
    // Every attempt carried the same webhook-id and the same bytes.
    expect(receiver.received).toHaveLength(RETRY_DELAYS_MS[variant].length + 1);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    // The webhook-timestamp is the time of each attempt.
    expect(receiver.received.map((r) => Number(r.headers['webhook-timestamp']))).toEqual(
      receiver.received.map((_, i) =>
        Math.floor((START + RETRY_DELAYS_MS[variant].slice(0, i).reduce((a, b) => a + b, 0)) / 1000),
      ),
    );
  });

  test('a delivery carries the headers of section 6 and of Standard Webhooks', async () => {
    const bot = await chatbot();
    const d = dispatcher();
    const [id] = await enqueue(bot, `${receiver.url}/hook`);
    await d.runDue();
    const h = receiver.received[0].headers;
    expect(h['content-type']).toBe('application/json');
    expect(h['x-webhook-token']).toBe('tok-1');
    expect(h['user-agent']).toMatch(/^Parley-Webhooks\//);
    expect(h['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(h['webhook-id']).toBe(id);
    expect(h['webhook-timestamp']).toBe(String(Math.floor(START / 1000)));
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(receiver.received[0].body)).toEqual({ event: 'ADD_MESSAGE', data: { i: 0 } });
    expect(await row(bot, id)).toMatchObject({ status: 'delivered', lastStatus: 200, totalAttempts: 1 });
  });

  test('a 302 is a failure and is not followed', async () => {
    const bot = await chatbot();
    receiver.respond = (r) =>
      r.path === '/moved' ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } } : 200;
    const d = dispatcher();
    const [id] = await enqueue(bot, `${receiver.url}/moved`);
    await d.runDue();
    expect(receiver.received.map((r) => r.path)).toEqual(['/moved']);
    expect(await row(bot, id)).toMatchObject({ status: 'pending', lastStatus: 302, attempts: 1 });
  });

  test('a receiver that hangs past the deadline, or drops the connection, is a failure with no status', async () => {
    const bot = await chatbot();
    receiver.respond = (r) => (r.path === '/hang' ? 'hang' : 'destroy');
    const d = dispatcher({ timeoutMs: 1_500 });
    const [hung] = await enqueue(bot, `${receiver.url}/hang`);
    const [dropped] = await enqueue(bot, `${receiver.url}/drop`);
    await d.runDue();
    expect(await row(bot, hung)).toMatchObject({ status: 'pending', lastStatus: null, attempts: 1 });
    expect((await row(bot, hung))!.lastError).toMatch(/^TIMEOUT/);
    expect(await row(bot, dropped)).toMatchObject({ status: 'pending', lastStatus: null, attempts: 1 });
    expect((await row(bot, dropped))!.lastError).toMatch(/^NETWORK/);
  });

  test('410 Gone fails the delivery and disables the target; later deliveries to it are skipped unsent', async () => {
    const bot = await chatbot();
    receiver.respond = () => 410;
    const d = dispatcher();
    const [first] = await enqueue(bot, `${receiver.url}/gone`);
    await d.runDue();
    expect(await row(bot, first)).toMatchObject({ status: 'failed', lastStatus: 410 });
    const target = await store.webhooks.targets.get(bot.id, `${receiver.url}/gone`);
    expect(target!.disabledAt).not.toBeNull();
    const [second] = await enqueue(bot, `${receiver.url}/gone`);
    await d.runDue();
    expect(receiver.received).toHaveLength(1);
    expect(await row(bot, second)).toMatchObject({ status: 'skipped', totalAttempts: 0 });
    // Re-enabled, a redelivery goes out again.
    expect(await store.webhooks.targets.enable(bot.id, `${receiver.url}/gone`, new Date(clock.t).toISOString())).toBe(
      true,
    );
    receiver.respond = () => 200;
    await store.webhooks.deliveries.requeue(second, new Date(clock.t).toISOString());
    await d.runDue();
    expect(await row(bot, second)).toMatchObject({ status: 'delivered', totalAttempts: 1 });
  });

  test('5 deliveries in a row that use up their retries disable the target; a success in between resets the count', async () => {
    const bot = await chatbot();
    const url = `${receiver.url}/flaky`;
    receiver.respond = () => 503;
    const d = dispatcher();
    const exhaust = async () => {
      await enqueue(bot, url);
      await d.runDue();
      for (const delay of RETRY_DELAYS_MS.A) {
        clock.t += delay;
        await d.runDue();
      }
    };
    for (let i = 0; i < 4; i++) await exhaust();
    expect((await store.webhooks.targets.get(bot.id, url))!.consecutiveFailures).toBe(4);
    receiver.respond = () => 204;
    await enqueue(bot, url);
    await d.runDue();
    expect(await store.webhooks.targets.get(bot.id, url)).toMatchObject({ consecutiveFailures: 0, disabledAt: null });
    receiver.respond = () => 503;
    for (let i = 0; i < 4; i++) await exhaust();
    expect((await store.webhooks.targets.get(bot.id, url))!.disabledAt).toBeNull();
    await exhaust();
    expect((await store.webhooks.targets.get(bot.id, url))!.disabledAt).not.toBeNull();
  });

  test('a hanging receiver holds only its own slots: another target is delivered meanwhile; stop() puts the hung ones back uncounted', async () => {
    const bot = await chatbot();
    receiver.respond = () => 'hang';
    const d = dispatcher({ timeoutMs: 60_000, perTarget: 2, concurrency: 4 });
    // A backlog to the hung target, due before anything else: it must not hide the other target's rows.
    const slow = await enqueue(bot, `${receiver.url}/slow`, 'A', 60);
    clock.t += 1;
    const fast = await enqueue(bot, `${other.url}/fast`, 'A', 6);
    d.start();
    await other.waitFor((r) => r.length === 6);
    expect(receiver.received.length).toBeLessThanOrEqual(2);
    for (const id of fast) await expect.poll(async () => (await row(bot, id))!.status).toBe('delivered');
    await receiver.waitFor((r) => r.length === 2);
    // Several polls later the hung target still holds only its two slots.
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received).toHaveLength(2);
    await d.stop();
    for (const id of slow)
      expect(await row(bot, id)).toMatchObject({ status: 'pending', attempts: 0, totalAttempts: 0, leaseUntil: null });
  });

  test('a lease held by another worker is respected until it runs out', async () => {
    const bot = await chatbot();
    const [id] = await enqueue(bot, `${receiver.url}/leased`);
    const now = new Date(clock.t).toISOString();
    expect(await store.webhooks.deliveries.lease(id, now, new Date(clock.t + 5_000).toISOString())).toBe(true);
    const d = dispatcher();
    expect(await d.runDue()).toBe(0);
    clock.t += 5_000;
    expect(await d.runDue()).toBe(1);
    expect(await row(bot, id)).toMatchObject({ status: 'delivered' });
  });

  test('the log keeps finished deliveries for the retention time, pending ones always', async () => {
    const bot = await chatbot();
    receiver.respond = (r) => (r.path === '/keep' ? 500 : 200);
    const d = dispatcher();
    const [done] = await enqueue(bot, `${receiver.url}/done`);
    const [waiting] = await enqueue(bot, `${receiver.url}/keep`);
    await d.runDue();
    clock.t += 10 * 86_400_000;
    expect(await d.prune(11 * 86_400_000)).toBe(0);
    expect(await d.prune(9 * 86_400_000)).toBe(1);
    expect(await row(bot, done)).toBeNull();
    expect(await row(bot, waiting)).toMatchObject({ status: 'pending' });
  });
});
