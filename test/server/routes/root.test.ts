/**
 * The server's root (issue 22, item 13): `/` is a landing page that says what runs and links to the
 * playground, the API reference and the health URLs without naming a path, a host or a key;
 * `/healthz` answers while the process does; `/readyz` is 503 until the database answers and every
 * migration is applied.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../../server/app.js';
import { loadConfig } from '../../../server/config.js';
import { prepareDatabase } from '../../../server/prepare.js';
import { openDatabase } from '../../../server/storage/dialects/index.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';

const version = JSON.parse(readFileSync(join(import.meta.dirname, '../../../package.json'), 'utf8')).version as string;
const apps: TestApp[] = [];
afterAll(async () => {
  for (const t of apps) await t.close();
});

describe('GET /', () => {
  test('a page saying what runs, with links to the console, the playground, the API reference and the health URLs', async () => {
    const t = await buildTestApp();
    apps.push(t);
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = res.body;
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toContain('Parley is running');
    expect(html).toContain(`<dd>${version}</dd>`);
    expect(html).toContain('SQLite (embedded)');
    expect(html).toContain('the built-in offline answerer');
    for (const href of ['/console', '/demo', '/api/v2/openapi.json', '/api/v2/health', '/healthz', '/readyz'])
      expect(html).toContain(`<a href="${href}">`);
    // Public: no folder of this machine, no key.
    expect(html).not.toContain(t.dataDir);
    expect(html).not.toContain(t.config.secretKey);
    // Its one style block runs under the page's own CSP nonce.
    const nonce = /style-src 'nonce-([^']+)'/.exec(String(res.headers['content-security-policy']))![1];
    expect(html).toContain(`<style nonce="${nonce}">`);
  });

  test('with a language model: its models, never the endpoint or the key', async () => {
    const t = await buildTestApp({
      env: {
        OPENAI_API_KEY: 'sk-landing-secret-123',
        OPENAI_BASE_URL: 'http://10.20.30.40:8000/v1',
        OPENAI_MODEL_GPT_4_1_MINI: 'local-small',
      },
    });
    apps.push(t);
    const html = (await t.app.inject({ method: 'GET', url: '/' })).body;
    expect(html).toContain('a language model (local-small for gpt-4.1-mini');
    expect(html).not.toContain('sk-landing-secret-123');
    expect(html).not.toContain('10.20.30.40');
  });
});

describe('/healthz and /readyz', () => {
  test.each(['sqlite', 'postgres'] as const)('alive and ready on a migrated database (%s)', async (dialect) => {
    const t = await buildTestApp({ dialect });
    apps.push(t);
    const alive = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect([alive.statusCode, alive.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect([ready.statusCode, ready.json()]).toEqual([200, { status: 'ready', database: 'ok', pendingMigrations: [] }]);
    expect(ready.headers['cache-control']).toBe('no-store');
  });

  test('readyz is 503 while migrations are pending and while the database does not answer; healthz stays 200', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-readyz-'));
    const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
    const database = openDatabase({ sqlitePath: join(dir, 'parley.db') });
    const app = await buildApp(config, { database, logger: false, backgroundJobs: false });
    try {
      const before = await app.inject({ method: 'GET', url: '/readyz' });
      expect(before.statusCode).toBe(503);
      expect(before.json()).toMatchObject({
        status: 'not ready',
        database: 'ok',
        pendingMigrations: expect.arrayContaining(['0001-foundation']),
      });
      await prepareDatabase(database, config.ownerEmail);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      await database.close();
      const down = await app.inject({ method: 'GET', url: '/readyz' });
      expect([down.statusCode, down.json()]).toEqual([
        503,
        { status: 'not ready', database: 'unreachable', pendingMigrations: [] },
      ]);
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
