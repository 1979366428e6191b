/**
 * Gauges read at scrape time, from what the instance already has: the job queue's depth and lag
 * and the webhook backlog (two small aggregate queries, shared by every instance on the
 * database), the PostgreSQL pool, and the Redis connections.
 */
import type { WebhookStore } from '../domain/webhooks/ports.js';
import type { JobsStore } from '../queue/ports.js';
import type { RealtimeHub } from '../realtime/hub.js';
import type { DatabaseHandle } from '../storage/dialects/index.js';
import type { Metrics } from './metrics.js';

const ageSeconds = (oldest: string | null, now: number) =>
  oldest ? Math.max(0, (now - Date.parse(oldest)) / 1000) : 0;

export function watchRuntime(
  metrics: Metrics,
  parts: {
    jobs: Pick<JobsStore, 'backlog'>;
    webhooks: Pick<WebhookStore['deliveries'], 'backlog'>;
    database: Pick<DatabaseHandle, 'poolState'>;
    hub: Pick<RealtimeHub, 'redis'>;
  },
) {
  // One read per scrape feeds both queue gauges (prom-client collects each gauge in turn).
  let queueRead: Promise<Awaited<ReturnType<JobsStore['backlog']>>> | null = null;
  const queue = () => {
    queueRead ??= parts.jobs.backlog(new Date().toISOString()).finally(() => setImmediate(() => (queueRead = null)));
    return queueRead;
  };
  metrics.gauge(
    'parley_queue_jobs',
    'Background jobs on the database: due (waiting for a worker) and running',
    ['state'],
    async (g) => {
      const b = await queue();
      g.set({ state: 'due' }, b.due);
      g.set({ state: 'running' }, b.running);
    },
  );
  metrics.gauge(
    'parley_queue_lag_seconds',
    'How long the oldest due job has waited for a worker (0: none waits)',
    [],
    async (g) => {
      g.set(ageSeconds((await queue()).oldestDue, Date.now()));
    },
  );

  let webhookRead: Promise<Awaited<ReturnType<WebhookStore['deliveries']['backlog']>>> | null = null;
  const webhooks = () => {
    webhookRead ??= parts.webhooks
      .backlog(new Date().toISOString())
      .finally(() => setImmediate(() => (webhookRead = null)));
    return webhookRead;
  };
  metrics.gauge(
    'parley_webhook_backlog',
    'Webhook deliveries not sent yet: pending (all, retries waiting included) and due (to send now)',
    ['state'],
    async (g) => {
      const b = await webhooks();
      g.set({ state: 'pending' }, b.pending);
      g.set({ state: 'due' }, b.due);
    },
  );
  metrics.gauge('parley_webhook_lag_seconds', 'How long the oldest due webhook delivery has waited', [], async (g) => {
    g.set(ageSeconds((await webhooks()).oldestDue, Date.now()));
  });

  const pool = parts.database.poolState;
  if (pool) {
    metrics.gauge(
      'parley_db_pool_connections',
      'PostgreSQL pool: connections open (total), idle, the maximum, and queries waiting for one',
      ['state'],
      (g) => {
        const p = pool();
        g.set({ state: 'total' }, p.total);
        g.set({ state: 'idle' }, p.idle);
        g.set({ state: 'waiting' }, p.waiting);
        g.set({ state: 'max' }, p.max);
      },
    );
  }
  const redis = parts.hub.redis;
  if (redis) {
    metrics.gauge(
      'parley_redis_up',
      'Redis connections of the realtime hub: 1 when ready, 0 otherwise (connecting, reconnecting, closed)',
      ['connection'],
      (g) => {
        const s = redis.states();
        g.set({ connection: 'command' }, s.command === 'ready' ? 1 : 0);
        g.set({ connection: 'subscriber' }, s.subscriber === 'ready' ? 1 : 0);
      },
    );
  }
}
