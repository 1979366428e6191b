/**
 * outbound: the guarded HTTP clients. `outbound` for everything a user's input points at (pages,
 * files by URL, webhooks); `models` for the operator's model endpoint, which may be private.
 */
import fp from 'fastify-plugin';
import { addressRangeMatcher } from '../outbound/address-policy.js';
import { GuardedHttpClient } from '../outbound/guarded-client.js';

declare module 'fastify' {
  interface FastifyInstance {
    outbound: GuardedHttpClient;
    /** The client for OPENAI_BASE_URL (the same object as `outbound` when none is configured). */
    models: GuardedHttpClient;
  }
}

export default fp(
  async (app) => {
    const { config } = app;
    const outbound = new GuardedHttpClient({
      allowPrivate: config.allowPrivateFetch,
      ...(config.privateFetchRanges.length ? { isAllowedAddress: addressRangeMatcher(config.privateFetchRanges) } : {}),
      extraCaCertificates: config.extraCaCertificates,
      defaults: { timeoutMs: config.outboundTimeoutMs },
    });
    // The model endpoint (OPENAI_BASE_URL) is the operator's choice, not anyone's input: it may be a
    // model server on the private network. Its requests keep every other limit.
    const models = config.openai
      ? new GuardedHttpClient({ allowPrivate: true, defaults: { timeoutMs: config.outboundTimeoutMs } })
      : outbound;
    app.decorate('outbound', outbound);
    app.decorate('models', models);
    app.addHook('onClose', async () => {
      await outbound.close();
      if (models !== outbound) await models.close();
    });
  },
  { name: 'outbound', decorators: { fastify: ['config'] } },
);
