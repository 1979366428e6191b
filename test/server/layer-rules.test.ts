/**
 * The layer rules of shared/ARCHITECTURE.md live in eslint.config.js (npm run lint): the domain
 * names no framework, driver, HTTP client or outer layer; only server/outbound makes HTTP
 * requests; shared/ imports neither side; the widget imports no server code and no Node module;
 * widget components never touch the transport. `npm run lint` (CI runs it before the tests) applies
 * them to the tree; this proves each refuses what it must and lets through what the tree relies on.
 */
import { ESLint } from 'eslint';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const LAYER_RULES = new Set([
  'no-restricted-imports',
  'no-restricted-syntax',
  'no-restricted-globals',
  'no-restricted-properties',
]);
const eslint = new ESLint({ cwd: ROOT, ruleFilter: ({ ruleId }) => LAYER_RULES.has(ruleId) });

async function findings(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

test.each([
  ['server/domain/x.ts', "import type { FastifyInstance } from 'fastify';", 'frameworks and drivers'],
  ['server/domain/x.ts', "import websocket from '@fastify/websocket';", 'frameworks and drivers'],
  ['server/domain/x.ts', "const { Kysely } = await import('kysely');", 'frameworks and drivers'],
  [
    'server/domain/knowledge/x.ts',
    "export { GuardedHttpClient } from '../../outbound/guarded-client.js';",
    'no outer layer',
  ],
  [
    'server/domain/knowledge/crawl/x.ts',
    "import type { Store } from '../../../../server/storage/store.js';",
    'no outer layer',
  ],
  ['server/domain/x.ts', "const routes = await import('../routes/v2/index.js');", 'no outer layer'],
  ['server/routes/v2/x.ts', "await fetch('https://example.com/');", 'GuardedHttpClient'],
  ['server/realtime/x.ts', "await globalThis.fetch('https://example.com/');", 'GuardedHttpClient'],
  ['server/adapters/x.ts', "import { request } from 'node:https';", 'GuardedHttpClient'],
  ['server/adapters/x.ts', "import http from 'node:http';\nhttp.get('http://example.com/');", 'GuardedHttpClient'],
  ['server/adapters/x.ts', "const { request } = await import('undici');", 'GuardedHttpClient'],
  ['server/cli.ts', "import axios from 'axios';", 'GuardedHttpClient'],
  ['server/app.ts', "import { start } from '../widget/app.js';", 'does not import the widget'],
  ['shared/x.ts', "import type { Config } from '../server/config.js';", 'imports neither'],
  ['widget/state/x.ts', "import { loadConfig } from '../../server/config.js';", 'never by importing it'],
  ['widget/x.ts', "import { readFileSync } from 'node:fs';", 'runs in a browser'],
  ['widget/ui/X.tsx', "import { Connection } from '../transport/connection.js';", 'never touch the socket'],
  ['widget/ui/X.tsx', "const socket = new WebSocket('wss://example.com/');", 'never touch the socket'],
])('%s may not: %s', async (path, code, why) => {
  const found = await findings(path, code);
  expect(found.length, found.join('\n')).toBeGreaterThan(0);
  expect(found.join('\n')).toContain(why);
});

test.each([
  // server/domain/widget/ is the domain's own folder, not the top-level widget/.
  ['server/domain/visitors/x.ts', "import { identitySecretId } from '../widget/sessions.js';"],
  [
    'server/domain/x.ts',
    "import type { WidgetConfig } from '../../shared/protocol.js';\nimport { NotFound } from './errors.js';",
  ],
  [
    'server/outbound/x.ts',
    "import { Agent } from 'undici';\nawait fetch('https://example.com/', { dispatcher: new Agent() });",
  ],
  ['server/adapters/x.ts', "import { createServer } from 'node:http';\nexport type Fetch = typeof globalThis.fetch;"],
  ['server/routes/x.ts', "import type { FastifyInstance } from 'fastify';\nimport { Kysely } from 'kysely';"],
  [
    'widget/ui/X.tsx',
    "import type { ChatModel } from '../state/chat.js';\nimport { LIMITS } from '../../shared/protocol.js';",
  ],
  ['widget/build.ts', "import { readFileSync } from 'node:fs';"],
])('%s may: %s', async (path, code) => {
  expect(await findings(path, code)).toEqual([]);
});
