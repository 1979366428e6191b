/**
 * What the built server and CLI load at start (scripts/build-server.mjs): the files reached by
 * static imports from dist/server/main.js and cli.js, read through their source maps. The HTTP
 * client, the mail, OpenAI and Redis clients are chunks loaded on first use; a static import of one
 * of them would put it back into every start, which no other test notices (bench/README.md, startup).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist/server/', import.meta.url));
const LAZY = ['undici', 'openai', 'nodemailer', 'ioredis', '@modelcontextprotocol/sdk'];

/** The files a program's static imports reach (the program included). */
function loadedAtStart(program: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(DIST, file), 'utf8');
    for (const [, dep] of text.matchAll(/^(?:import|export)\s[^;]*?from\s*"\.\/([^"]+)"/gm)) visit(dep);
    for (const [, dep] of text.matchAll(/^import\s*"\.\/([^"]+)"/gm)) visit(dep);
  };
  visit(program);
  return [...seen];
}

/** The npm packages whose code a built file holds, from its source map. */
function packagesIn(file: string): Set<string> {
  const map = JSON.parse(readFileSync(join(DIST, `${file}.map`), 'utf8')) as { sources: string[] };
  return new Set(
    map.sources.map((s) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(s)?.[1]).filter((p): p is string => !!p),
  );
}

test.each(['main.js', 'cli.js'])(
  'dist/server/%s starts without undici, openai, nodemailer, ioredis or the MCP SDK, which are built into chunks of their own',
  (program) => {
    const files = loadedAtStart(program);
    expect(files.length).toBeGreaterThan(1);
    const atStart = new Set(files.flatMap((f) => [...packagesIn(f)]));
    expect(atStart).toContain('fastify');
    for (const name of LAZY) expect(atStart, name).not.toContain(name);

    const lazyChunks = ['undici', 'openai', 'nodemailer', 'redis-hub', 'mcp-http'].map((prefix) => {
      const text =
        readFileSync(join(DIST, 'main.js'), 'utf8') + files.map((f) => readFileSync(join(DIST, f), 'utf8')).join('\n');
      const name = new RegExp(`import\\("\\./(${prefix}-[A-Z0-9]+\\.js)"\\)`).exec(text)?.[1];
      expect(name, `an import() of the ${prefix} chunk`).toBeDefined();
      expect(existsSync(join(DIST, name!))).toBe(true);
      return name!;
    });
    const later = new Set(lazyChunks.flatMap((f) => loadedAtStart(f).flatMap((g) => [...packagesIn(g)])));
    for (const name of LAZY) expect(later, name).toContain(name);
  },
);
