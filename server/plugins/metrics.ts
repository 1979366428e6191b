/**
 * metrics: the app's Prometheus instruments (observability/metrics.ts) with METRICS_TOKEN, else
 * null: prom-client is loaded only then (it is a tenth of the CLI's start). Decorated first so
 * every other part can count through it; served at /metrics (http/observe.ts).
 */
import fp from 'fastify-plugin';
import type { Metrics } from '../observability/metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** null without METRICS_TOKEN: nothing is counted. */
    metrics: Metrics | null;
  }
}

export default fp(
  async (app) => {
    if (!app.config.metricsToken) {
      app.decorate('metrics', null);
      return;
    }
    const metrics = new (await import('../observability/metrics.js')).Metrics();
    app.decorate('metrics', metrics);
    app.addHook('onClose', async () => metrics.registry.clear());
  },
  { name: 'metrics', decorators: { fastify: ['config'] } },
);
