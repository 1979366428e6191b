/**
 * metrics: the app's Prometheus instruments (observability/metrics.ts), decorated first so every
 * other part can count through them. Served at /metrics only with METRICS_TOKEN (http/observe.ts).
 */
import fp from 'fastify-plugin';
import { Metrics } from '../observability/metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

export default fp(
  async (app) => {
    const metrics = new Metrics();
    app.decorate('metrics', metrics);
    app.addHook('onClose', async () => metrics.registry.clear());
  },
  { name: 'metrics' },
);
