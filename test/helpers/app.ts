/**
 * Builds the real app on a fresh temporary SQLite database (or, with `dialect: 'postgres'`, in a
 * fresh schema of the PostgreSQL at DATABASE_URL_TEST / 127.0.0.1:5432/test) and mints tokens
 * through the real token service. Nothing of ours is mocked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../server/app.js';
import { loadConfig, type Config } from '../../server/config.js';
import type { NewToken } from '../../server/domain/tokens.service.js';
import { prepareDatabase } from '../../server/prepare.js';
import { openDatabase, type DatabaseHandle } from '../../server/storage/dialects/index.js';
import { openPostgresSchema, POSTGRES_URL } from './postgres.js';

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  database: DatabaseHandle;
  dataDir: string;
  /** A token for the first account's owner (or the given account's). */
  token(input?: Partial<NewToken>, accountId?: string): Promise<{ token: string; id: string }>;
  /** app.inject with `Authorization: Bearer token` when a token is given. */
  call(
    method: InjectOptions['method'],
    url: string,
    token?: string | null,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{
    status: number;
    body: any;
    headers: Record<string, unknown>;
  }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  dialect?: 'sqlite' | 'postgres';
  /**
   * With `dialect: 'postgres'`: work in this existing schema (createPostgresSchema) instead of a
   * fresh one, e.g. for a second instance on the same database. The caller drops it.
   */
  postgresSchema?: string;
  env?: Record<string, string>;
  /**
   * Reuse this DATA_DIR (its SQLite database and secret key) instead of a fresh one, e.g. to
   * start a second app where a first one stopped. The caller owns it: close() leaves it in place.
   */
  dataDir?: string;
  /** Receives the app's log lines (at LOG_LEVEL, `silent` unless `env` sets it); without it there is no log. */
  logStream?: { write(line: string): void };
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const ownDir = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'parley-test-'));
  const config = loadConfig({ DATA_DIR: dataDir, SITE_URL: 'http://parley.test', LOG_LEVEL: 'silent', ...options.env });
  let dropSchema: (() => Promise<void>) | null = null;
  let database: DatabaseHandle;
  if (options.dialect === 'postgres' && options.postgresSchema) {
    database = openDatabase({ url: POSTGRES_URL, schema: options.postgresSchema, poolSize: 4 });
  } else if (options.dialect === 'postgres') {
    const pg = await openPostgresSchema();
    database = pg.database;
    dropSchema = pg.drop;
  } else {
    database = openDatabase({ sqlitePath: join(dataDir, 'test.db') });
  }
  await prepareDatabase(database, config.ownerEmail);
  const app = await buildApp(config, {
    database,
    ...(options.logStream ? { logStream: options.logStream } : { logger: false }),
  });
  const dropped = checkResponses(app);
  const undocumented = checkDocumented(app);
  await app.ready();

  return {
    app,
    config,
    database,
    dataDir,
    async token(input = {}, accountId) {
      const account = await app.services.accounts.resolve(accountId);
      const owner = await app.services.store.users.owner(account.id);
      const created = await app.services.tokens.create(owner!, { access: 'full', ...input });
      return { token: created.token, id: created.record.id };
    },
    async call(method, url, token, body, headers = {}) {
      const res = await app.inject({
        method,
        url,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
        ...(body !== undefined ? { payload: body as InjectOptions['payload'] } : {}),
      });
      let parsed: unknown = res.body;
      try {
        parsed = JSON.parse(res.body);
      } catch {
        /* not JSON (files) */
      }
      return { status: res.statusCode, body: parsed, headers: res.headers };
    },
    async close() {
      await app.close();
      await database.close();
      if (dropSchema) await dropSchema();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
      if (dropped.length) {
        throw new Error(
          `Response schemas dropped or changed what handlers returned (declare the fields in the route's data schema):\n${dropped.slice(0, 5).join('\n')}`,
        );
      }
      if (undocumented.length) {
        throw new Error(
          `Successes that do not match the OpenAPI document (a field it calls required is missing, or a format is wrong: make it Type.Optional or fix it):\n${undocumented.slice(0, 5).join('\n')}`,
        );
      }
    },
  };
}

/**
 * Every success of a test app is checked against the schema the OpenAPI document publishes for it
 * (with `required` and `format`, which the serialiser does not enforce): SDK types trust them.
 */
function checkDocumented(app: FastifyInstance): string[] {
  const failures: string[] = [];
  const ajv = new Ajv({ strict: false, allErrors: false, multipleOfPrecision: 9 });
  addFormats.default(ajv);
  const compiled = new WeakMap<object, ValidateFunction>();
  app.addHook('onSend', (request, reply, payload, done) => {
    const schema = request.routeOptions.config?.openapi?.response?.[reply.statusCode] as object | undefined;
    if (schema && reply.statusCode < 300 && typeof payload === 'string' && !request.routeOptions.config?.raw) {
      let validate = compiled.get(schema);
      if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
      if (!validate(JSON.parse(payload)))
        failures.push(
          `${request.method} ${request.routeOptions.url} (${reply.statusCode}): ${ajv.errorsText(validate.errors)}`,
        );
    }
    done(null, payload);
  });
  return failures;
}

/**
 * Every reply of a test app is checked against what its handler returned: a field the route's
 * data schema does not declare would be dropped silently in production, so tests fail instead.
 */
function checkResponses(app: FastifyInstance): string[] {
  const dropped: string[] = [];
  const expected = new WeakMap<object, string>();
  app.addHook('preSerialization', (_request, reply, payload, done) => {
    if (payload && typeof payload === 'object') expected.set(reply, JSON.stringify(payload));
    done(null, payload);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const want = expected.get(reply);
    if (
      want !== undefined &&
      typeof payload === 'string' &&
      !isDeepStrictEqual(JSON.parse(want), JSON.parse(payload))
    ) {
      dropped.push(
        `${request.method} ${request.routeOptions.url} (${reply.statusCode}): returned ${want.slice(0, 400)}, sent ${payload.slice(0, 400)}`,
      );
    }
    done(null, payload);
  });
  return dropped;
}
