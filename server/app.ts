/**
 * buildApp(config): the whole HTTP application, registered in a visible order. It never listens,
 * migrates or creates accounts: the caller prepares the database first (server/prepare.ts) and owns
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
import { clientErrorHandler, frameworkErrors } from './http/client-errors.js';
import { acceptedRequestId, installEnvelope } from './http/envelope.js';
import { installErrorHandling } from './http/errors.js';
import { installJsonBody } from './http/json-body.js';
import sessionCookies, { installSessionCsrf, SESSION_COOKIE } from './http/session.js';
import { lazySchemas } from './http/lazy-schemas.js';
import { RequestLog } from './http/request-log.js';
import { ErrorEnvelope, LegacyErrorBody, legacySwaggerOptions, swaggerOptions } from './http/openapi.js';
import { installObservability } from './http/observe.js';
import { watchRuntime } from './observability/runtime-gauges.js';
import metricsPlugin from './plugins/metrics.js';
import outboundPlugin from './plugins/outbound.js';
import queuePlugin from './plugins/queue.js';
import realtimePlugin from './plugins/realtime.js';
import servicesPlugin from './plugins/services.js';
import storagePlugin from './plugins/storage.js';
import webhooksPlugin from './plugins/webhooks.js';
import { mcpRoutes } from './routes/mcp.js';
import { oauthRoutes } from './routes/oauth/index.js';
import { assetRoutes } from './routes/assets/index.js';
import { rootRoutes } from './routes/root.js';
import { legacyRoutes } from './routes/v0/index.js';
import { v2Routes } from './routes/v2/index.js';
import { widgetRoutes } from './routes/widget/index.js';
import type { DatabaseHandle } from './storage/dialects/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    /** Compiles every route schema not compiled yet (they compile on first use); returns how many. */
    compileRouteSchemas(): number;
  }
}

export interface BuildOptions {
  /** An open, migrated database (main.ts, the CLI, tests); otherwise opened from config, unmigrated. */
  database?: DatabaseHandle;
  logger?: boolean;
  /** Where log lines go instead of stdout (tests that read the log). */
  logStream?: { write(line: string): void };
  /** Run the job queue and the sync scheduler (default true; the CLI turns them off). */
  backgroundJobs?: boolean;
}

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);
const ROUTER = { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, caseSensitive: true, maxParamLength: 256 };

/** Bodies are validated strictly (no type coercion); query strings and params are coerced. */
function validators() {
  // multipleOfPrecision: 0.29 / 0.01 is 28.999999999999996 in floating point; without it a
  // `multipleOf: 0.01` (temperature) refuses most valid two-decimal values.
  const common = {
    allErrors: true,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    multipleOfPrecision: 9,
  } as const;
  const body = new Ajv({ ...common, coerceTypes: false });
  const query = new Ajv({ ...common, coerceTypes: 'array' });
  addFormats.default(body);
  addFormats.default(query);
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? body : query).compile(schema);
}

/**
 * The parts every entry point shares, as plugins in dependency order: metrics -> storage ->
 * outbound -> queue -> services. The CLI registers only these; buildApp adds the HTTP layer on top.
 */
export async function registerCore(app: FastifyInstance, config: Config, options: BuildOptions = {}) {
  app.decorate('config', config);
  await app.register(metricsPlugin);
  await app.register(storagePlugin, { database: options.database });
  await app.register(outboundPlugin);
  await app.register(queuePlugin, { run: options.backgroundJobs !== false });
  await app.register(servicesPlugin, { schedule: options.backgroundJobs !== false });
  await app.register(webhooksPlugin, { run: options.backgroundJobs !== false });
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const schemas = lazySchemas();
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : { level: config.logLevel, ...(options.logStream && { stream: options.logStream }) },
    // One line per request instead of fastify's two.
    logController: new RequestLog(),
    genReqId: (req) => acceptedRequestId(req.headers['x-request-id']) ?? randomUUID(),
    bodyLimit: config.bodyLimit,
    routerOptions: ROUTER,
    // One proxy: the client is the address it appended to X-Forwarded-For, not what the client wrote before it.
    trustProxy: config.trustProxy ? (_address: string, hop: number) => hop === 0 : false,
    // Slow-drip bodies end: the whole request within REQUEST_TIMEOUT_MS (checked often enough to matter).
    requestTimeout: config.http.requestTimeoutMs,
    connectionTimeout: config.http.connectionTimeoutMs,
    // Node reads these only when the server is created (setting requestTimeout later checks nothing).
    http: {
      requestTimeout: config.http.requestTimeoutMs,
      headersTimeout: Math.min(60_000, config.http.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(config.http.requestTimeoutMs / 4))),
    },
    clientErrorHandler,
    frameworkErrors,
    schemaController: { compilersFactory: { buildSerializer: schemas.buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorate('compileRouteSchemas', () => schemas.compileAll());

  // 0. The shared parts: storage, outbound clients, queue, services (closed in reverse order).
  await registerCore(app, config, options);

  app.setValidatorCompiler(schemas.validators(validators()));
  // The API reads JSON (and multipart where a route registers it); fastify's default text/plain
  // parser would hand a string to a JSON schema and answer 400 instead of 415.
  app.removeContentTypeParser('text/plain');
  installJsonBody(app);

  // 1. The request id on every response, errors included (so it runs before any check).
  // Callback-style hooks: no promise per request on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // No response is ever content-sniffed into something else (icons, errors, JSON).
    reply.header('x-content-type-options', 'nosniff');
    // Many clients send `Content-Type: application/json` on every call; a GET or DELETE without
    // a body is not an empty JSON document.
    const h = request.headers;
    if (
      BODYLESS.has(request.method) &&
      !h['transfer-encoding'] &&
      (h['content-length'] === undefined || h['content-length'] === '0')
    ) {
      delete h['content-type'];
    }
    done();
  });
  // 1b. A span per request (with tracing), its count and latency and GET /metrics (with METRICS_TOKEN).
  installObservability(app, app.metrics, config.metricsToken);
  // 2. Errors, 404 and 405 in the envelope; the routing mirror must see every route.
  installErrorHandling(app, ROUTER);
  // 3. Every route declares its access; one hook checks token, scopes and account state.
  // The session cookie (the console) is a credential too; its changes need the CSRF token.
  await app.register(sessionCookies);
  installAccess(app, app.services.tokens, config.siteUrl, (request) => {
    const cookie = request.cookies[SESSION_COOKIE];
    return cookie ? app.services.signIn.authenticate(cookie) : null;
  });
  installSessionCsrf(app);
  // 4. The envelope around every success, and each route's success status.
  installEnvelope(app);
  // 5. The OpenAPI document, from the route schemas (the same ones that serialise responses).
  app.addSchema(ErrorEnvelope);
  app.addSchema(LegacyErrorBody);
  await app.register(swagger, swaggerOptions(config.siteUrl));
  // The legacy v0/v1 document (/openapi.yaml), from the same route schemas.
  await app.register(swagger, legacySwaggerOptions(config.siteUrl));

  // 6. The realtime hub and the visitor gateway's sockets (closed before the services they use).
  await app.register(realtimePlugin);
  if (app.metrics) {
    watchRuntime(app.metrics, {
      jobs: app.store.jobs,
      webhooks: app.store.webhooks.deliveries,
      database: app.database,
      hub: app.realtime.hub,
    });
  }

  // 7. Routes.
  await app.register(v2Routes, { prefix: '/api/v2' });
  await app.register(legacyRoutes);
  await app.register(rootRoutes);
  await app.register(oauthRoutes);
  await app.register(mcpRoutes);
  await app.register(assetRoutes);
  await app.register(widgetRoutes);
  return app;
}
