// `npm run build:server`: the server and the CLI as two bundles in dist/server/, with source maps.
// One bundle per program loads in a fraction of the time thousands of separate ES modules take
// (bench/README.md, startup). esbuild only strips types; `npm run typecheck` checks them.
// `--if-stale` builds only when a source is newer than the bundles (npm start, the test setup).
//
// Modules opened by path at run time, `new URL('./x.ts', import.meta.url)` (the extraction
// worker's entry and tasks), are found in the sources and emitted next to the bundles under
// their own file names, since that URL now resolves against the bundle. Any other use of
// import.meta.url would point into dist/server/ and is refused: use server/paths.ts.
import { build } from 'esbuild';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { ROOT, serverIsStale } from './stale.mjs';

const FINAL = join(ROOT, 'dist', 'server');
const PROGRAMS = ['server/main.ts', 'server/cli.ts'];
// Native addons and what is only loaded when the build is missing stay in node_modules.
const EXTERNAL = ['better-sqlite3', 'sqlite-vec', 'pg-native', 'tsx', 'bufferutil', 'utf-8-validate'];
const PATH_LOADED = /new URL\(\s*'(\.\/[^']+)'\s*,\s*import\.meta\.url\s*\)/g;
const ALLOWED_META = new Set(['server/paths.ts']);

const files = (dir) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));

if (process.argv.includes('--if-stale') && !serverIsStale()) process.exit(0);

/** Files named by `new URL('./…', import.meta.url)` in the sources: path -> file name in dist/server. */
function pathLoaded() {
  const found = new Map();
  for (const file of files('server').filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(file, 'utf8');
    const others = text.replace(PATH_LOADED, '').match(/import\.meta\.url/g);
    if (others && !ALLOWED_META.has(relative(ROOT, file))) {
      throw new Error(
        `${relative(ROOT, file)}: import.meta.url would point into dist/server/ once bundled; find project files from PROJECT_ROOT (server/paths.ts)`,
      );
    }
    for (const [, rel] of text.matchAll(PATH_LOADED)) {
      const target = join(dirname(file), rel);
      const name = basename(target);
      const other = [...found].find(([path, n]) => n === name && path !== target);
      if (other) throw new Error(`${target} and ${other[0]} would both be dist/server/${name}: rename one`);
      found.set(target, name);
    }
  }
  return found;
}

// A package's own import() of another package stays an import() that node resolves at run time:
// split into a chunk, a CommonJS module would have only a default export (@fastify/cookie's
// `import('cookie')` then finds no `stringifySetCookie`). Only when the project root resolves the
// same file, so the version the package asked for is the one loaded.
const thirdPartyImports = {
  name: 'third-party-dynamic-imports',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || !args.importer.includes('/node_modules/') || args.pluginData === 'inner')
        return undefined;
      const there = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'inner' });
      const here = await b.resolve(args.path, { kind: args.kind, resolveDir: ROOT, pluginData: 'inner' });
      return !there.errors.length && there.path === here.path ? { path: args.path, external: true } : undefined;
    });
  },
};

// Built beside and swapped in at the end, so a running CLI or test never sees half a build.
const OUT = `${FINAL}.${process.pid}.tmp`;
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const entryPoints = PROGRAMS.map((p) => join(ROOT, p));
for (const [path, name] of pathLoaded()) {
  if (path.endsWith('.ts')) entryPoints.push(path);
  else copyFileSync(path, join(OUT, name));
}
await build({
  entryPoints,
  entryNames: '[name]',
  outdir: OUT,
  bundle: true,
  format: 'esm',
  // What the sources load with import() (undici, openai, nodemailer, ioredis: on first use) goes
  // to chunks of its own, so a start parses and compiles only what it runs (bench/README.md, startup).
  // Chunks sit beside the programs: code that moves into one keeps resolving './worker-entry.mjs'.
  splitting: true,
  chunkNames: '[name]-[hash]',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // CommonJS dependencies call require() for Node's own modules; an ES module has none.
  banner: {
    js: "import { createRequire as __parleyRequire } from 'node:module'; const require = __parleyRequire(import.meta.url);",
  },
  plugins: [thirdPartyImports],
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
});
// The `parley` command (package.json "bin"): its hashbang runs it with node and source maps.
chmodSync(join(OUT, 'cli.js'), 0o755);
rmSync(FINAL, { recursive: true, force: true });
renameSync(OUT, FINAL);
