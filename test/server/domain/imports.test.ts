/**
 * The domain holds the product's rules only: no framework, database driver, socket library or
 * HTTP client. Adapters that need them live in server/adapters/ (or outbound/, storage/) and
 * reach the domain through its ports. This walks every file under server/domain/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const DOMAIN = join(ROOT, 'server/domain');
const PACKAGES = /^(fastify|fastify-plugin|@fastify\/.*|kysely|pg|better-sqlite3|sqlite-vec|ws|ioredis|undici)$/;
const LAYERS = ['server/outbound', 'server/storage', 'server/http', 'server/routes', 'server/plugins', 'server/realtime', 'server/adapters'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.(ts|mts|mjs|js)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Every module a file names: static imports and re-exports (type-only too), dynamic imports. */
function specifiers(source: string): string[] {
  const found = [...source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/g), ...source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g), ...source.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)];
  return found.map((m) => m[1]);
}

test('no file under server/domain/ imports a framework, driver, socket library or the outbound client', () => {
  const offending: string[] = [];
  const domainFiles = files(DOMAIN);
  expect(domainFiles.length).toBeGreaterThan(20);
  for (const file of domainFiles) {
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      const target = spec.startsWith('.') ? relative(ROOT, resolve(dirname(file), spec)) : null;
      const bad = target ? LAYERS.some((layer) => target === layer || target.startsWith(`${layer}/`)) : PACKAGES.test(spec);
      if (bad) offending.push(`${relative(ROOT, file)} imports ${spec}`);
    }
  }
  expect(offending).toEqual([]);
});

test('the check sees what it must refuse', () => {
  const source = "import type { FastifyInstance } from 'fastify';\nexport { x } from '../../outbound/guarded-client.js';\nconst k = await import('kysely');";
  expect(specifiers(source)).toEqual(['fastify', '../../outbound/guarded-client.js', 'kysely']);
});

/** Relative imports of every file under server/ (type-only too), as resolved source paths. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(join(ROOT, 'server'))) {
    const targets = specifiers(readFileSync(file, 'utf8'))
      .filter((s) => s.startsWith('.'))
      .map((s) => resolve(dirname(file), s).replace(/\.js$/, '.ts'));
    graph.set(file, targets);
  }
  return graph;
}

/** One cycle per strongly connected group found by a depth-first walk, as relative paths. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push(stack.slice(stack.indexOf(next)).map((f) => relative(ROOT, f)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

test('no import cycle under server/, type-only imports included (a leaf module breaks one: domain/paging.ts, records.ts)', () => {
  const graph = importGraph();
  expect(graph.size).toBeGreaterThan(100);
  expect(cycles(graph)).toEqual([]);
});

test('the cycle check sees a cycle', () => {
  const graph = new Map([[join(ROOT, 'a.ts'), [join(ROOT, 'b.ts')]], [join(ROOT, 'b.ts'), [join(ROOT, 'a.ts')]]]);
  expect(cycles(graph)).toEqual([['a.ts', 'b.ts']]);
});
