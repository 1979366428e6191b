/**
 * queue: the job queue. Handlers are registered by the services plugin; it starts polling when the
 * app is ready (unless background jobs are off, as in the CLI) and stops, putting running jobs
 * back, when the app closes.
 */
import fp from 'fastify-plugin';
import { EmbeddedQueue } from '../queue/embedded-queue.js';
import { observeJobs } from './observe-services.js';

declare module 'fastify' {
  interface FastifyInstance {
    queue: EmbeddedQueue;
  }
}

export interface QueueOptions {
  /** Poll for jobs (default true). */
  run?: boolean;
}

export default fp<QueueOptions>(
  async (app, options) => {
    const queue = new EmbeddedQueue(app.store.jobs, {
      ...app.config.queue,
      onError: (err, job) => app.log.error({ err, job }, 'background job failed'),
      ...(app.metrics && { onJobEnd: observeJobs(app.metrics) }),
    });
    app.decorate('queue', queue);
    if (options.run !== false) app.addHook('onReady', async () => queue.start());
    app.addHook('onClose', () => queue.stop());
  },
  { name: 'queue', dependencies: ['storage', 'metrics'] },
);
