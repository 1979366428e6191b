/**
 * The v2 OpenAPI document exactly as GET /api/v2/openapi.json serves it, read without listening on
 * a port: the app is built on a throwaway SQLite database only for its route schemas. The typed
 * client's build (packages/client/scripts/build.ts) generates its types from it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { prepareDatabase } from '../server/prepare.js';
import { openDatabase } from '../server/storage/dialects/index.js';

export async function v2Document(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-openapi-'));
  try {
    // The site address only appears in `servers` and the OAuth URLs: a client is given its own.
    const config = loadConfig({ DATA_DIR: dataDir, SITE_URL: 'http://localhost:3000', LOG_LEVEL: 'silent' });
    const database = openDatabase({ sqlitePath: join(dataDir, 'openapi.db') });
    try {
      await prepareDatabase(database, config.ownerEmail);
      const app = await buildApp(config, { database, logger: false });
      try {
        const res = await app.inject({ method: 'GET', url: '/api/v2/openapi.json' });
        if (res.statusCode !== 200) throw new Error(`GET /api/v2/openapi.json answered ${res.statusCode}`);
        return res.json();
      } finally {
        await app.close();
      }
    } finally {
      await database.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
