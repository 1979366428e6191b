/**
 * Environment -> typed, validated configuration. Read once at start; a bad value stops the
 * process with a message naming the variable and what it accepts.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { parsePrivateFetch } from './outbound/address-policy.js';
import type { GatewayLimits } from './realtime/gateway.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  port: number;
  host: string;
  /**
   * SHUTDOWN_TIMEOUT_MS: on SIGTERM/SIGINT the process exits within this bound; running jobs get
   * half of it to finish their current step.
   */
  shutdownTimeoutMs: number;
  /** TRUST_PROXY=1: the app sits behind one reverse proxy, so client addresses are the last X-Forwarded-For entry. */
  trustProxy: boolean;
  /** OWNER_EMAIL: the owner of the account a fresh install creates (at the first start or `cli migrate`). */
  ownerEmail: string;
  /** {site_url}: the public root address, no trailing slash. */
  siteUrl: string;
  dataDir: string;
  /** A postgres:// URL selects PostgreSQL; null means SQLite at `sqlitePath`. */
  databaseUrl: string | null;
  sqlitePath: string;
  logLevel: LogLevel;
  /** 32 bytes keying cursor signatures (and, later, credential encryption). */
  secretKey: Buffer;
  /** Largest JSON request body, in bytes. */
  bodyLimit: number;
  /** Largest icon upload, in bytes. */
  iconMaxBytes: number;
  /** Largest knowledge file upload, in bytes. */
  fileMaxBytes: number;
  /** A request must arrive in full within requestTimeoutMs; a socket idle for connectionTimeoutMs is closed (0: never). */
  http: { requestTimeoutMs: number; connectionTimeoutMs: number };
  /** One upload request's files together, and how many uploads one account may run at once. */
  uploads: { maxTotalBytes: number; perAccount: number };
  /** Lets outbound requests reach private and loopback addresses (intranet crawling, tests). */
  /** ALLOW_PRIVATE_FETCH=1: every internal address may be fetched. */
  allowPrivateFetch: boolean;
  /** ALLOW_PRIVATE_FETCH=<ranges>: only these internal address ranges may be fetched. */
  privateFetchRanges: string[];
  /** Total time of one outbound request, headers and body. */
  outboundTimeoutMs: number;
  /** Time one file or page may take to extract in its worker before the worker is stopped. */
  extractTimeoutMs: number;
  crawl: { maxPages: number; maxDepth: number; minDelayMs: number };
  queue: {
    concurrency: number;
    accountConcurrency: number;
    chatbotConcurrency: number;
    leaseMs: number;
    pollMs: number;
  };
  /** Where YouTube watch pages are read from (a stand-in in tests). */
  youtubeBaseUrl: string;
  /** An OpenAI-compatible endpoint; null when none is configured (the built-in, offline mode). */
  openai: { baseUrl: string; apiKey: string; embeddingModel: string | null } | null;
  /**
   * The answer engine: the provider model each public `gptModel` name maps to (used when
   * `openai` is set), and how long a model may send nothing before the attempt fails.
   */
  answers: { models: { 'gpt-4.1': string; 'gpt-4.1-mini': string }; timeoutMs: number };
  /** REDIS_URL: the realtime hub across instances; null keeps it in this process. */
  redisUrl: string | null;
  /** The visitor gateway's limits (server/realtime/gateway.ts). */
  realtime: GatewayLimits;
  /** An owed answer whose writer sent no heartbeat for this long (its process died) is written by another instance. */
  answerLeaseMs: number;
  /** Outgoing mail: SMTP_URL (smtp:// or smtps://), else .eml files in `folder` ($DATA_DIR/mail). */
  mail: { smtpUrl: string | null; from: string; folder: string };
  /** Webhook delivery: the receiver's deadline, concurrency overall and per target URL, the idle poll. */
  webhooks: { timeoutMs: number; concurrency: number; perTarget: number; pollMs: number };
  /** The OAuth device flow: the polling interval a client is first given, and how long a device code lives. */
  deviceFlow: { intervalSeconds: number; codeTtlSeconds: number };
  /** NODE_EXTRA_CA_CERTS, read so the guarded client trusts the same extra CAs as Node itself. */
  extraCaCertificates: string[];
  /** METRICS_TOKEN: the bearer token `GET /metrics` asks for; null: /metrics is off (404). */
  metricsToken: string | null;
  /**
   * Traces (OpenTelemetry), off by default: on when the standard OTEL_* variables ask for them.
   * The exporter reads its own OTEL_EXPORTER_OTLP_* variables (endpoint, headers, timeout).
   */
  tracing: { exporter: 'otlp' | 'console' } | null;
}

export class ConfigError extends Error {}

/** Jobs at once: per process, then per account and per chatbot over every instance (each defaults to the one before). */
function queueConcurrency(env: NodeJS.ProcessEnv) {
  const concurrency = integer(env, 'QUEUE_CONCURRENCY', 2, 1, 64);
  const accountConcurrency = integer(env, 'QUEUE_ACCOUNT_CONCURRENCY', concurrency, 1, 64);
  const chatbotConcurrency = integer(env, 'QUEUE_CHATBOT_CONCURRENCY', accountConcurrency, 1, 64);
  return { concurrency, accountConcurrency, chatbotConcurrency };
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}; got "${raw}"`);
  }
  return n;
}

/**
 * SECRET_KEY (64 hex characters or any string of 32+ characters) or, when unset, a key
 * generated once into DATA_DIR/secret.key. Several instances sharing one database must share
 * SECRET_KEY, so set it explicitly when scaling out.
 */
function loadSecret(env: NodeJS.ProcessEnv, dataDir: string): Buffer {
  const raw = env.SECRET_KEY;
  if (raw) {
    if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
    if (raw.length >= 32) return Buffer.from(raw, 'utf8').subarray(0, 64);
    throw new ConfigError(
      'SECRET_KEY must be 64 hex characters or at least 32 characters; generate one with `openssl rand -hex 32`',
    );
  }
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

/**
 * Where the database is (DATA_DIR, DATABASE_URL), read without touching the disk: the CLI asks
 * before a read command, so a command run in the wrong folder creates nothing there.
 */
export function databaseLocation(
  env: NodeJS.ProcessEnv = process.env,
): Pick<Config, 'dataDir' | 'databaseUrl' | 'sqlitePath'> {
  const dataDir = resolve(env.DATA_DIR || './data');
  const dbUrl = env.DATABASE_URL || '';
  let databaseUrl: string | null = null;
  let sqlitePath = join(dataDir, 'parley.db');
  if (/^postgres(ql)?:\/\//.test(dbUrl)) databaseUrl = dbUrl;
  else if (dbUrl.startsWith('sqlite:')) sqlitePath = resolve(dbUrl.slice('sqlite:'.length).replace(/^\/\//, ''));
  else if (dbUrl) throw new ConfigError(`DATABASE_URL must be a postgres:// URL or sqlite:<path>; got "${dbUrl}"`);
  return { dataDir, databaseUrl, sqlitePath };
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name} must be 1 or 0; got "${raw}"`);
}

/** ALLOW_PRIVATE_FETCH: off (unset, 0), on for every address (1), or a list of address ranges. */
function privateFetch(env: NodeJS.ProcessEnv): Pick<Config, 'allowPrivateFetch' | 'privateFetchRanges'> {
  try {
    const { all, ranges } = parsePrivateFetch(env.ALLOW_PRIVATE_FETCH);
    return { allowPrivateFetch: all, privateFetchRanges: ranges };
  } catch (err) {
    throw new ConfigError(
      `ALLOW_PRIVATE_FETCH must be 1, 0 or a comma-separated list of address ranges: ${(err as Error).message}`,
    );
  }
}

/** An http(s) address without its trailing slash; anything else names the variable. */
function httpUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    /* reported below */
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError(`${name} must be an http:// or https:// address such as ${fallback}; got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function openaiConfig(env: NodeJS.ProcessEnv): Config['openai'] {
  if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) return null;
  const baseUrl = httpUrl(env, 'OPENAI_BASE_URL', 'https://api.openai.com/v1');
  return { baseUrl, apiKey: env.OPENAI_API_KEY || '', embeddingModel: env.EMBEDDING_MODEL || null };
}

function redisUrl(env: NodeJS.ProcessEnv): string | null {
  const raw = env.REDIS_URL;
  if (!raw) return null;
  if (!/^rediss?:\/\//.test(raw)) throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL; got "${raw}"`);
  return raw;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

function ownerEmail(env: NodeJS.ProcessEnv): string {
  const raw = env.OWNER_EMAIL || 'owner@parley.local';
  if (!EMAIL.test(raw))
    throw new ConfigError(`OWNER_EMAIL must be an e-mail address such as you@example.com; got "${raw}"`);
  return raw;
}

function mailConfig(env: NodeJS.ProcessEnv, siteUrl: string, dataDir: string): Config['mail'] {
  const smtpUrl = env.SMTP_URL || null;
  if (smtpUrl && !/^smtps?:\/\/[^/]/.test(smtpUrl)) {
    throw new ConfigError(
      'SMTP_URL must be an smtp:// or smtps:// URL such as smtp://user:password@mail.example.com:587',
    );
  }
  return {
    smtpUrl,
    from: env.MAIL_FROM || `Parley <no-reply@${new URL(siteUrl).hostname}>`,
    folder: join(dataDir, 'mail'),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '0.0.0.0';
  const rawSite = env.SITE_URL || `http://localhost:${port}`;
  let site: URL;
  try {
    site = new URL(rawSite);
  } catch {
    throw new ConfigError(
      `SITE_URL must be an absolute http(s) URL such as https://chat.example.com; got "${rawSite}"`,
    );
  }
  if (site.protocol !== 'http:' && site.protocol !== 'https:') {
    throw new ConfigError(`SITE_URL must start with http:// or https://; got "${rawSite}"`);
  }
  const siteUrl = rawSite.replace(/\/+$/, '');
  const { dataDir, databaseUrl, sqlitePath } = databaseLocation(env);
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${env.LOG_LEVEL}"`);
  return {
    port,
    host,
    trustProxy: flag(env, 'TRUST_PROXY'),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
    ownerEmail: ownerEmail(env),
    siteUrl,
    dataDir,
    databaseUrl,
    sqlitePath,
    logLevel,
    secretKey: loadSecret(env, dataDir),
    bodyLimit: integer(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 100 * 1_048_576),
    iconMaxBytes: integer(env, 'ICON_MAX_BYTES', 1_048_576, 1024, 10 * 1_048_576),
    fileMaxBytes: integer(env, 'FILE_MAX_BYTES', 20 * 1_048_576, 1024, 512 * 1_048_576),
    http: {
      requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000),
      connectionTimeoutMs: integer(env, 'CONNECTION_TIMEOUT_MS', 300_000, 0, 3_600_000),
    },
    uploads: {
      maxTotalBytes: integer(env, 'UPLOAD_MAX_TOTAL_BYTES', 60 * 1_048_576, 1024, 4096 * 1_048_576),
      perAccount: integer(env, 'UPLOADS_PER_ACCOUNT', 3, 1, 100),
    },
    ...privateFetch(env),
    outboundTimeoutMs: integer(env, 'OUTBOUND_TIMEOUT_MS', 15_000, 100, 600_000),
    extractTimeoutMs: integer(env, 'EXTRACT_TIMEOUT_MS', 30_000, 100, 600_000),
    crawl: {
      maxPages: integer(env, 'CRAWL_MAX_PAGES', 500, 1, 100_000),
      maxDepth: integer(env, 'CRAWL_MAX_DEPTH', 5, 0, 50),
      minDelayMs: integer(env, 'CRAWL_MIN_DELAY_MS', 0, 0, 60_000),
    },
    queue: {
      ...queueConcurrency(env),
      leaseMs: integer(env, 'QUEUE_LEASE_MS', 60_000, 100, 3_600_000),
      pollMs: integer(env, 'QUEUE_POLL_MS', 500, 10, 60_000),
    },
    youtubeBaseUrl: httpUrl(env, 'YOUTUBE_BASE_URL', 'https://www.youtube.com'),
    openai: openaiConfig(env),
    answers: {
      models: {
        'gpt-4.1': env.OPENAI_MODEL_GPT_4_1 || 'gpt-4.1',
        'gpt-4.1-mini': env.OPENAI_MODEL_GPT_4_1_MINI || 'gpt-4.1-mini',
      },
      timeoutMs: integer(env, 'ANSWER_TIMEOUT_MS', 30_000, 100, 600_000),
    },
    redisUrl: redisUrl(env),
    realtime: {
      heartbeatMs: integer(env, 'WS_HEARTBEAT_MS', 25_000, 50, 600_000),
      maxSocketsPerIp: integer(env, 'WS_MAX_SOCKETS_PER_IP', 50, 1, 1_000_000),
      maxSocketsPerVisitor: integer(env, 'WS_MAX_SOCKETS_PER_VISITOR', 10, 1, 1_000_000),
      maxStreamsPerToken: integer(env, 'WS_MAX_STREAMS_PER_TOKEN', 20, 1, 1_000_000),
      teamFollowedMax: integer(env, 'WS_TEAM_FOLLOWED_MAX', 10_000, 1, 10_000_000),
      framesPerWindow: integer(env, 'WS_MAX_FRAMES_PER_10S', 60, 1, 100_000),
      rateWindowMs: 10_000,
      bufferLimitBytes: integer(env, 'WS_BUFFER_LIMIT_BYTES', 1_048_576, 1024, 256 * 1_048_576),
      maxAnswersPerChatbot: integer(env, 'MAX_ANSWERS_PER_CHATBOT', 20, 1, 10_000),
      helloTimeoutMs: integer(env, 'WS_HELLO_TIMEOUT_MS', 10_000, 50, 600_000),
      connectsPerMinute: integer(env, 'WS_CONNECTS_PER_MIN', 60, 1, 10_000_000),
      leaseMs: integer(env, 'REALTIME_LEASE_MS', 30_000, 300, 3_600_000),
      chatbotRefreshMs: integer(env, 'WS_CHATBOT_REFRESH_MS', 1_000, 0, 60_000),
    },
    answerLeaseMs: integer(env, 'ANSWER_LEASE_MS', 30_000, 200, 3_600_000),
    mail: mailConfig(env, siteUrl, dataDir),
    webhooks: {
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 5_000, 100, 60_000),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 16, 1, 256),
      perTarget: integer(env, 'WEBHOOK_TARGET_CONCURRENCY', 4, 1, 64),
      pollMs: integer(env, 'WEBHOOK_POLL_MS', 500, 10, 60_000),
    },
    deviceFlow: {
      intervalSeconds: integer(env, 'DEVICE_FLOW_INTERVAL_SECONDS', 5, 1, 60),
      codeTtlSeconds: integer(env, 'DEVICE_FLOW_CODE_TTL_SECONDS', 600, 60, 3600),
    },
    extraCaCertificates: extraCa(env),
    metricsToken: metricsToken(env),
    tracing: tracing(env),
  };
}

function metricsToken(env: NodeJS.ProcessEnv): string | null {
  const raw = env.METRICS_TOKEN;
  if (!raw) return null;
  if (raw.length < 16 || /\s/.test(raw))
    throw new ConfigError(
      'METRICS_TOKEN must be at least 16 characters without spaces; generate one with `openssl rand -hex 24`',
    );
  return raw;
}

/**
 * The OpenTelemetry SDK's own switches: OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none
 * keep it off; OTEL_TRACES_EXPORTER=otlp or console turns it on; unset, an OTLP endpoint does.
 */
function tracing(env: NodeJS.ProcessEnv): Config['tracing'] {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return null;
  if (exporter === 'otlp' || exporter === 'console') return { exporter };
  if (exporter)
    throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp, console or none; got "${env.OTEL_TRACES_EXPORTER}"`);
  return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? { exporter: 'otlp' } : null;
}

/**
 * What the CLI's client commands (`login`, `whoami`, `logout`) read: where the user's token is
 * kept (the XDG base directory rule: a relative XDG_CONFIG_HOME is ignored) and extra CAs for
 * a server behind a private CA. They need no server configuration.
 */
export function loadClientConfig(env: NodeJS.ProcessEnv = process.env): {
  configDir: string;
  extraCaCertificates: string[];
  /** PARLEY_SERVER: the server `parley mcp` talks to when --server is not given. */
  server?: string;
  /** PARLEY_TOKEN: the token `parley mcp` uses instead of the one `login` stored. */
  token?: string;
} {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config');
  return {
    configDir: join(base, 'parley'),
    extraCaCertificates: extraCa(env),
    ...(env.PARLEY_SERVER ? { server: env.PARLEY_SERVER } : {}),
    ...(env.PARLEY_TOKEN ? { token: env.PARLEY_TOKEN.trim() } : {}),
  };
}

function extraCa(env: NodeJS.ProcessEnv): string[] {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!file) return [];
  try {
    return [readFileSync(file, 'utf8')];
  } catch (err) {
    throw new ConfigError(`NODE_EXTRA_CA_CERTS must name a readable PEM file: ${(err as Error).message}`);
  }
}
