/**
 * The client's types follow the live OpenAPI document: the client's sources and an application's
 * usage of them (typed-usage.ts) compile against types generated now from the app's document, and
 * fail to compile against a document where one field the usage reads was renamed. One tsc
 * program holds both copies, so the check costs one compile of a few small files.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { generateSources } from '../../../packages/client/scripts/generate.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { typecheck } from '../../helpers/typecheck.js';

const SRC = resolve('packages/client/src');
let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await buildTestApp();
  dir = mkdtempSync(join(tmpdir(), 'parley-client-types-'));
  // openapi-fetch and Node's types resolve from the project, as from an application's own node_modules.
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

/** The client's sources with types generated from `doc`, and the usage file importing them. */
async function copyWith(name: string, doc: Record<string, unknown>): Promise<string> {
  const root = join(dir, name);
  mkdirSync(join(root, 'src', 'generated'), { recursive: true });
  for (const file of readdirSync(SRC).filter((f) => f.endsWith('.ts')))
    writeFileSync(join(root, 'src', file), readFileSync(join(SRC, file)));
  for (const [file, text] of Object.entries(await generateSources(doc)))
    writeFileSync(join(root, 'src', 'generated', file), text);
  const usage = readFileSync(resolve('test/packages/client/typed-usage.ts'), 'utf8');
  expect(usage).toContain("from '@parley/client'");
  const file = join(root, 'usage.ts');
  writeFileSync(file, usage.replace("from '@parley/client'", "from './src/index.js'"));
  return file;
}

// A tsc program of two client copies: CPU-bound, slow under four forks, not stuck.
test(
  'the usage compiles against freshly generated types and breaks when the document renames a field it reads',
  { timeout: 120_000 },
  async () => {
    const doc = (await t.call('GET', '/api/v2/openapi.json')).body as Record<string, unknown>;
    // The same document with Chatbot.title renamed to name, as a careless server change would.
    const renamed = structuredClone(doc) as { components: { schemas: Record<string, any> } };
    const chatbot = renamed.components.schemas.Chatbot;
    expect(chatbot.properties.title).toBeDefined();
    chatbot.properties.name = chatbot.properties.title;
    delete chatbot.properties.title;
    chatbot.required = chatbot.required.map((r: string) => (r === 'title' ? 'name' : r));

    const fresh = await copyWith('fresh', doc);
    const broken = await copyWith('renamed', renamed);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    // The hand-written files only: checking them checks every generated type they use, and the
    // rest of the 400 KB of generated declarations is not worth the time.
    const { checked, errors: found } = typecheck([fresh, broken], {
      types: ['node'],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      check: (name) => name.startsWith(dir) && !name.includes('/generated/') && !name.includes('/node_modules/'),
    });
    expect(checked.length).toBeGreaterThan(2);
    const errors = found.map((e) => ({ ...e, file: e.file ? e.file.slice(dir.length + 1) : '' }));
    expect(errors.filter((e) => e.file.startsWith('fresh/'))).toEqual([]);
    const breaks = errors.filter((e) => e.file.startsWith('renamed/'));
    expect(breaks.length).toBeGreaterThan(0);
    expect(breaks.every((e) => e.file === 'renamed/usage.ts')).toBe(true);
    expect(breaks.map((e) => e.text).join('\n')).toMatch(/'title'/);
  },
);

test('the writes that honour Idempotency-Key are generated from the document', async () => {
  const doc = (await t.call('GET', '/api/v2/openapi.json')).body as Record<string, unknown>;
  const { 'operations.ts': operations } = await generateSources(doc);
  expect(operations).toContain('"POST /chatbots/{chatbotId}/messages"');
  expect(operations).toContain('"POST /chatbots/{chatbotId}/conversations/{threadId}/messages"');
  expect(operations).not.toContain('"POST /chatbots"');
});
