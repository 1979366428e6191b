/**
 * The server's own root: `/` is a small page saying what runs here and where to go next (public,
 * so it names no path, host or key), `/healthz` says the process answers and `/readyz` that it can
 * serve: the database answers, every migration of this build is applied and, with REDIS_URL,
 * Redis answers (503 otherwise).
 */
import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { escapeHtml } from '../http/html.js';
import { PROJECT_ROOT } from '../paths.js';
import { OPEN } from './open.js';

/** A Redis that does not answer a PING within this is not ready (a probe's own timeout is often 1 s). */
const READY_REDIS_TIMEOUT_MS = 800;

export const VERSION: string = (() => {
  try {
    return (
      (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version?: string }).version ??
      'unknown'
    );
  } catch {
    return 'unknown';
  }
})();

/** What the landing page says runs: kinds and model names, never an address, a path or a key. */
export function publicSummary(config: Config) {
  const m = config.answers.models;
  return {
    version: VERSION,
    database: config.databaseUrl ? 'PostgreSQL' : 'SQLite (embedded)',
    answerer: config.openai
      ? `a language model (${m['gpt-4.1-mini']} for gpt-4.1-mini, ${m['gpt-4.1']} for gpt-4.1)`
      : 'the built-in offline answerer (no language model configured)',
  };
}

const LINKS: [string, string, string][] = [
  [
    '/console',
    'Console',
    'sign in to create chatbots, add knowledge, install the widget and answer visitors (first run: open the set-up link the server printed when it started)',
  ],
  ['/demo', 'Playground and agent console', 'paste an API token to theme a chatbot and answer its visitors'],
  ['/api/v2/openapi.json', 'API v2 reference', 'OpenAPI 3.1: every operation, its scopes and bodies'],
  ['/openapi.yaml', 'Legacy API v0/v1 reference', 'OpenAPI, for clients of the earlier API'],
  ['/api/v2/health', 'GET /api/v2/health', 'the API answers and its database too (JSON envelope)'],
  ['/healthz', 'GET /healthz', 'liveness: the process answers'],
  [
    '/readyz',
    'GET /readyz',
    'readiness: the database (and Redis, when used) answers and migrations are applied (503 until then)',
  ],
];

function page(config: Config, nonce: string): string {
  const s = publicSummary(config);
  const items = LINKS.map(
    ([href, title, what]) => `<li><a href="${href}">${escapeHtml(title)}</a> <span>${escapeHtml(what)}</span></li>`,
  ).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley ${escapeHtml(s.version)}</title>
<style nonce="${nonce}">body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
dt{font-weight:600}dd{margin:0 0 .5rem}li{margin:.4rem 0}li span{color:#57606a;display:block;font-size:.9em}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}a{color:#58a6ff}li span{color:#8b949e}}</style>
</head><body>
<h1>Parley is running</h1>
<p>The chat widget's server and its REST API. Put <code>&lt;script src="${escapeHtml(config.siteUrl)}/widget.js" data-chatbot-id="…" async&gt;&lt;/script&gt;</code> on a page to show a chatbot.</p>
<dl><dt>Version</dt><dd>${escapeHtml(s.version)}</dd><dt>Database</dt><dd>${escapeHtml(s.database)}</dd><dt>Answers by</dt><dd>${escapeHtml(s.answerer)}</dd></dl>
<ul>
${items}
</ul>
</body></html>
`;
}

export async function rootRoutes(app: FastifyInstance) {
  app.get('/', OPEN, async (_request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header(
        'content-security-policy',
        `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      )
      .send(page(app.config, nonce));
  });

  app.get('/healthz', OPEN, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );

  // Once every migration is applied it stays so for this process; the database is asked each time.
  let migrated = false;
  app.get('/readyz', OPEN, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    let database = 'ok';
    let pending: string[] = [];
    const redis = app.realtime.hub.redis;
    // With REDIS_URL the instance serves only with Redis: its hub carries every change across instances.
    const redisCheck = redis?.ping(READY_REDIS_TIMEOUT_MS).then(
      () => 'ok',
      () => 'unreachable',
    );
    try {
      await app.store.ping();
      if (!migrated) {
        pending = await app.database.pendingMigrations();
        migrated = pending.length === 0;
      }
    } catch {
      database = 'unreachable';
    }
    const redisState = await redisCheck;
    const ready = database === 'ok' && pending.length === 0 && (redisState ?? 'ok') === 'ok';
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'not ready',
      database,
      ...(redisState && { redis: redisState }),
      pendingMigrations: pending,
    });
  });
}
