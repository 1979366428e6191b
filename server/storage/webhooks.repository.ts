import type { Kysely } from 'kysely';
import type {
  ClaimedDelivery,
  DeliveryRecord,
  DeliveryStatus,
  SecretRecord,
  TargetRecord,
  WebhookStore,
} from '../domain/webhooks/ports.js';
import { keysetPage } from './keyset.js';
import type { Database, WebhookDeliveriesTable } from './tables.js';

type DeliveryRow = {
  [K in keyof WebhookDeliveriesTable]: WebhookDeliveriesTable[K] extends import('kysely').Generated<infer U>
    ? U
    : WebhookDeliveriesTable[K];
};

const toDelivery = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id,
  chatbotId: r.chatbot_id,
  conversationId: r.conversation_id,
  event: r.event as DeliveryRecord['event'],
  variant: r.variant as DeliveryRecord['variant'],
  targetUrl: r.target_url,
  targetSource: r.target_source as DeliveryRecord['targetSource'],
  sealedToken: r.token,
  body: r.body,
  status: r.status as DeliveryStatus,
  attempts: Number(r.attempts),
  totalAttempts: Number(r.total_attempts),
  nextAttemptAt: r.next_attempt_at,
  leaseUntil: r.lease_until,
  lastStatus: r.last_status === null ? null : Number(r.last_status),
  lastError: r.last_error,
  lastAttemptAt: r.last_attempt_at,
  deliveredAt: r.delivered_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toTarget = (
  r: Omit<Database['webhook_targets'], 'consecutive_failures'> & { consecutive_failures: unknown },
): TargetRecord => ({
  chatbotId: r.chatbot_id,
  url: r.url,
  consecutiveFailures: Number(r.consecutive_failures),
  disabledAt: r.disabled_at,
  disabledReason: r.disabled_reason,
  updatedAt: r.updated_at,
});

export function webhooksRepository(db: Kysely<Database>): WebhookStore {
  const upsertTarget = async (chatbotId: string, url: string, at: string) => {
    await db
      .insertInto('webhook_targets')
      .values({
        chatbot_id: chatbotId,
        url,
        consecutive_failures: 0,
        disabled_at: null,
        disabled_reason: null,
        updated_at: at,
      })
      .onConflict((oc) => oc.columns(['chatbot_id', 'url']).doNothing())
      .execute();
  };
  return {
    deliveries: {
      async insert(d) {
        await db
          .insertInto('webhook_deliveries')
          .values({
            id: d.id,
            chatbot_id: d.chatbotId,
            conversation_id: d.conversationId,
            event: d.event,
            variant: d.variant,
            target_url: d.targetUrl,
            target_source: d.targetSource,
            token: d.sealedToken,
            body: d.body,
            status: d.status,
            attempts: d.attempts,
            total_attempts: d.totalAttempts,
            next_attempt_at: d.nextAttemptAt,
            lease_until: d.leaseUntil,
            last_status: d.lastStatus,
            last_error: d.lastError,
            last_attempt_at: d.lastAttemptAt,
            delivered_at: d.deliveredAt,
            created_at: d.createdAt,
            updated_at: d.updatedAt,
          })
          .execute();
      },
      async get(chatbotId, id) {
        const r = await db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('chatbot_id', '=', chatbotId)
          .where('id', '=', id)
          .executeTakeFirst();
        return r ? toDelivery(r as DeliveryRow) : null;
      },
      page(chatbotId, page, filter) {
        let q = db.selectFrom('webhook_deliveries').selectAll().where('chatbot_id', '=', chatbotId);
        if (filter.status) q = q.where('status', '=', filter.status);
        if (filter.event) q = q.where('event', '=', filter.event);
        return keysetPage(q, page, (r) => toDelivery(r as DeliveryRow), 'webhook_deliveries');
      },
      async due(now, limit, skipUrls = []) {
        let q = db
          .selectFrom('webhook_deliveries as d')
          .leftJoin('webhook_targets as t', (j) =>
            j.onRef('t.chatbot_id', '=', 'd.chatbot_id').onRef('t.url', '=', 'd.target_url'),
          )
          .selectAll('d')
          .select('t.disabled_at as target_disabled_at')
          .where('d.status', '=', 'pending')
          .where('d.next_attempt_at', '<=', now)
          .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<=', now)]));
        if (skipUrls.length) q = q.where('d.target_url', 'not in', skipUrls);
        const rows = await q.orderBy('d.next_attempt_at').limit(limit).execute();
        return rows.map((r): ClaimedDelivery => ({
          ...toDelivery(r as DeliveryRow),
          targetDisabled: r.target_disabled_at !== null,
        }));
      },
      async lease(id, now, until) {
        const res = await db
          .updateTable('webhook_deliveries')
          .set({ lease_until: until })
          .where('id', '=', id)
          .where('status', '=', 'pending')
          .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
          .executeTakeFirst();
        return Number(res.numUpdatedRows) === 1;
      },
      async finish(id, o, at, attempted) {
        await db
          .updateTable('webhook_deliveries')
          .set((eb) => ({
            status: o.status,
            attempts: o.attempts,
            total_attempts: eb('total_attempts', '+', attempted ? 1 : 0),
            next_attempt_at: o.nextAttemptAt,
            last_status: o.lastStatus,
            last_error: o.lastError,
            last_attempt_at: o.lastAttemptAt,
            delivered_at: o.deliveredAt,
            lease_until: null,
            updated_at: at,
          }))
          .where('id', '=', id)
          .execute();
      },
      async release(id) {
        await db.updateTable('webhook_deliveries').set({ lease_until: null }).where('id', '=', id).execute();
      },
      async requeue(id, at) {
        await db
          .updateTable('webhook_deliveries')
          .set({ status: 'pending', attempts: 0, next_attempt_at: at, lease_until: null, updated_at: at })
          .where('id', '=', id)
          .execute();
      },
      async prune(before, limit) {
        const ids = db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', 'in', ['delivered', 'failed', 'skipped'])
          .where('updated_at', '<', before)
          .limit(limit);
        const res = await db.deleteFrom('webhook_deliveries').where('id', 'in', ids).executeTakeFirst();
        return Number(res.numDeletedRows);
      },
      async backlog(now) {
        const row = await db
          .selectFrom('webhook_deliveries')
          .select((eb) => [
            eb.fn.countAll<number | string>().as('pending'),
            eb.fn
              .sum<number | string | null>(eb.case().when('next_attempt_at', '<=', now).then(1).else(0).end())
              .as('due'),
            eb.fn
              .min<string | null>(
                eb.case().when('next_attempt_at', '<=', now).then(eb.ref('next_attempt_at')).else(null).end(),
              )
              .as('oldest'),
          ])
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow();
        return { pending: Number(row.pending), due: Number(row.due ?? 0), oldestDue: row.oldest ?? null };
      },
      async countByStatus(chatbotId) {
        let q = db
          .selectFrom('webhook_deliveries')
          .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
          .groupBy('status');
        if (chatbotId) q = q.where('chatbot_id', '=', chatbotId);
        const out: Record<DeliveryStatus, number> = { pending: 0, delivered: 0, failed: 0, skipped: 0 };
        for (const r of await q.execute()) out[r.status as DeliveryStatus] = Number(r.n);
        return out;
      },
    },
    targets: {
      async get(chatbotId, url) {
        const r = await db
          .selectFrom('webhook_targets')
          .selectAll()
          .where('chatbot_id', '=', chatbotId)
          .where('url', '=', url)
          .executeTakeFirst();
        return r ? toTarget(r) : null;
      },
      async list(chatbotId) {
        const rows = await db
          .selectFrom('webhook_targets')
          .selectAll()
          .where('chatbot_id', '=', chatbotId)
          .orderBy('url')
          .execute();
        return rows.map(toTarget);
      },
      async succeeded(chatbotId, url, at) {
        await db
          .updateTable('webhook_targets')
          .set({ consecutive_failures: 0, updated_at: at })
          .where('chatbot_id', '=', chatbotId)
          .where('url', '=', url)
          .where('consecutive_failures', '>', 0)
          .execute();
      },
      async failed(chatbotId, url, at) {
        await upsertTarget(chatbotId, url, at);
        await db
          .updateTable('webhook_targets')
          .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1), updated_at: at }))
          .where('chatbot_id', '=', chatbotId)
          .where('url', '=', url)
          .execute();
        const r = await db
          .selectFrom('webhook_targets')
          .select('consecutive_failures')
          .where('chatbot_id', '=', chatbotId)
          .where('url', '=', url)
          .executeTakeFirst();
        return Number(r?.consecutive_failures ?? 0);
      },
      async disable(chatbotId, url, reason, at) {
        await upsertTarget(chatbotId, url, at);
        await db
          .updateTable('webhook_targets')
          .set({ disabled_at: at, disabled_reason: reason, updated_at: at })
          .where('chatbot_id', '=', chatbotId)
          .where('url', '=', url)
          .where('disabled_at', 'is', null)
          .execute();
      },
      async enable(chatbotId, url, at) {
        const res = await db
          .updateTable('webhook_targets')
          .set({ disabled_at: null, disabled_reason: null, consecutive_failures: 0, updated_at: at })
          .where('chatbot_id', '=', chatbotId)
          .where('url', '=', url)
          .where('disabled_at', 'is not', null)
          .executeTakeFirst();
        return Number(res.numUpdatedRows) === 1;
      },
    },
    secrets: {
      async get(chatbotId) {
        const r = await db
          .selectFrom('webhook_secrets')
          .selectAll()
          .where('chatbot_id', '=', chatbotId)
          .executeTakeFirst();
        return r
          ? {
              chatbotId: r.chatbot_id,
              sealedSecret: r.secret,
              createdAt: r.created_at,
              sealedPrevious: r.previous_secret,
              previousUntil: r.previous_until,
            }
          : null;
      },
      async create(s: SecretRecord) {
        const res = await db
          .insertInto('webhook_secrets')
          .values({
            chatbot_id: s.chatbotId,
            secret: s.sealedSecret,
            created_at: s.createdAt,
            previous_secret: s.sealedPrevious,
            previous_until: s.previousUntil,
          })
          .onConflict((oc) => oc.column('chatbot_id').doNothing())
          .executeTakeFirst();
        return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
      },
      async put(s) {
        await db
          .updateTable('webhook_secrets')
          .set({
            secret: s.sealedSecret,
            created_at: s.createdAt,
            previous_secret: s.sealedPrevious,
            previous_until: s.previousUntil,
          })
          .where('chatbot_id', '=', s.chatbotId)
          .execute();
      },
    },
  };
}
