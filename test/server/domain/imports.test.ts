/**
 * No import cycle under server/. What each layer may import is checked by eslint.config.js
 * (npm run lint; test/server/layer-rules.test.ts); a cycle needs the whole graph, so it is walked here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.(ts|mts|mjs|js)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Every module a file names: static imports and re-exports (type-only too), dynamic imports. */
function specifiers(source: string): string[] {
  const found = [
    ...source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/g),
    ...source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...source.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g),
  ];
  return found.map((m) => m[1]);
}

test('the graph sees every kind of import', () => {
  const source =
    "import type { FastifyInstance } from 'fastify';\nexport { x } from '../../outbound/guarded-client.js';\nconst k = await import('kysely');";
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
  const graph = new Map([
    [join(ROOT, 'a.ts'), [join(ROOT, 'b.ts')]],
    [join(ROOT, 'b.ts'), [join(ROOT, 'a.ts')]],
  ]);
  expect(cycles(graph)).toEqual([['a.ts', 'b.ts']]);
});
