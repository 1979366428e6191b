/**
 * buildApp(config): the whole HTTP application, registered in a visible order. The caller owns
 * listening and closing (server/main.ts, tests with app.inject).
 */
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Config } from './config.js';
import { installAccess } from './http/access.js';
import { acceptedRequestId, BUILT, successEnvelope } from './http/envelope.js';
import { installErrorHandling } from './http/errors.js';
import { ErrorEnvelope, swaggerOptions } from './http/openapi.js';
import { createServices, type Services } from './plugins/services.js';
import { webhooksPlugin } from './plugins/webhooks.js';
import { publicRoutes } from './routes/public/index.js';
import { v2Routes } from './routes/v2/index.js';
import { openDatabase, type DatabaseHandle } from './storage/dialects/index.js';
import { migrateToLatest } from './storage/migrations/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    config: Config;
  }
}

export interface BuildOptions {
  /** An already-open database (tests pass their own); otherwise opened from config. */
  database?: DatabaseHandle;
  logger?: boolean;
  /** Run the job queue and the sync scheduler (default true; the CLI turns them off). */
  backgroundJobs?: boolean;
}

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);
const ROUTER = { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, caseSensitive: true, maxParamLength: 256 };

/** Bodies are validated strictly (no type coercion); query strings and params are coerced. */
function validators() {
  // multipleOfPrecision: 0.29 / 0.01 is 28.999999999999996 in floating point; without it a
  // `multipleOf: 0.01` (temperature) refuses most valid two-decimal values.
  const common = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false, multipleOfPrecision: 9 } as const;
  const body = new Ajv({ ...common, coerceTypes: false });
  const query = new Ajv({ ...common, coerceTypes: 'array' });
  addFormats.default(body);
  addFormats.default(query);
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? body : query).compile(schema);
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const database = options.database ?? openDatabase({ url: config.databaseUrl, sqlitePath: config.sqlitePath });
  const app = Fastify({
    logger: options.logger === false ? false : { level: config.logLevel },
    genReqId: (req) => acceptedRequestId(req.headers['x-request-id']) ?? randomUUID(),
    bodyLimit: config.bodyLimit,
    routerOptions: ROUTER,
    trustProxy: process.env.TRUST_PROXY === '1',
  }).withTypeProvider<TypeBoxTypeProvider>();
  await migrateToLatest(database.db, database.dialect, database.schema, (name) => app.log.info({ migration: name }, `applying migration ${name}`));
  const services = createServices(database, config, { error: (obj, msg) => app.log.error(obj, msg) });
  await services.accounts.bootstrap(process.env.OWNER_EMAIL || 'owner@parley.local');

  app.decorate('services', services);
  app.decorate('config', config);
  app.setValidatorCompiler(validators());
  // The API reads JSON (and multipart where a route registers it); fastify's default text/plain
  // parser would hand a string to a JSON schema and answer 400 instead of 415.
  app.removeContentTypeParser('text/plain');

  // 1. The request id on every response, errors included (so it runs before any check).
  // Callback-style hooks: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // Many clients send `Content-Type: application/json` on every call; a GET or DELETE without
    // a body is not an empty JSON document.
    const h = request.headers;
    if (BODYLESS.has(request.method) && !h['transfer-encoding'] && (h['content-length'] === undefined || h['content-length'] === '0')) {
      delete h['content-type'];
    }
    done();
  });
  // 2. Errors, 404 and 405 in the envelope; the routing mirror must see every route.
  installErrorHandling(app, ROUTER);
  // 3. Every route declares its access; one hook checks token, scopes and account state.
  installAccess(app, services.tokens, config.siteUrl);
  // 4. The envelope around every success.
  app.addHook('preSerialization', (request, _reply, payload, done) => {
    if (request.routeOptions.config?.raw || (payload && typeof payload === 'object' && BUILT in payload)) return done(null, payload);
    done(null, successEnvelope(request, payload));
  });
  // 5. The OpenAPI document, from the route schemas.
  app.addSchema(ErrorEnvelope);
  await app.register(swagger, swaggerOptions(config.siteUrl));

  await app.register(v2Routes, { prefix: '/api/v2' });
  await app.register(publicRoutes);
  await app.register(webhooksPlugin, { dispatcher: services.webhookDispatcher, run: options.backgroundJobs !== false });

  // Background work starts once the app is ready and stops (jobs put back) before it closes.
  let scheduler: NodeJS.Timeout | null = null;
  app.addHook('onReady', async () => {
    if (options.backgroundJobs === false) return;
    services.queue.start();
    scheduler = setInterval(() => void services.knowledge.syncDue().catch((err) => app.log.error({ err }, 'scheduled sync failed')), 60_000);
    scheduler.unref();
  });
  app.addHook('onClose', async () => {
    if (scheduler) clearInterval(scheduler);
    await services.queue.stop();
    await services.outbound.close();
    if (services.models !== services.outbound) await services.models.close();
    if (!options.database) await database.close();
  });
  return app;
}
