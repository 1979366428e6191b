// `npm run build:server`: the server and the CLI as two bundles in dist/server/, with source maps.
// One bundle per program loads in a fraction of the time thousands of separate ES modules take
// (bench/README.md, startup). esbuild only strips types; `npm run typecheck` checks them.
//
// Modules that are opened by path at run time, `new URL('./x.ts', import.meta.url)` (the
// extraction worker's entry and tasks), are found in the sources and emitted next to the
// bundles under their own file names, since that URL now resolves against the bundle.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FINAL = join(ROOT, 'dist', 'server');
// Built beside and swapped in at the end, so a running CLI or test never sees half a build.
const OUT = `${FINAL}.${process.pid}.tmp`;
const PROGRAMS = ['server/main.ts', 'server/cli.ts'];
// Native addons and what is only loaded when the build is missing stay in node_modules.
const EXTERNAL = ['better-sqlite3', 'sqlite-vec', 'pg-native', 'tsx', 'bufferutil', 'utf-8-validate'];

/** Files named by `new URL('./…', import.meta.url)` in the sources: path -> file name in dist/server. */
function pathLoaded() {
  const found = new Map();
  const sources = readdirSync(join(ROOT, 'server'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
  for (const file of sources) {
    for (const [, rel] of readFileSync(file, 'utf8').matchAll(/new URL\(\s*'(\.\/[^']+)'\s*,\s*import\.meta\.url\s*\)/g)) {
      const target = join(dirname(file), rel);
      const name = basename(target);
      const other = [...found].find(([path, n]) => n === name && path !== target);
      if (other) throw new Error(`${target} and ${other[0]} would both be dist/server/${name}: rename one`);
      found.set(target, name);
    }
  }
  return found;
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const loaded = pathLoaded();
const entryPoints = PROGRAMS.map((p) => join(ROOT, p));
for (const [path, name] of loaded) {
  if (path.endsWith('.ts')) entryPoints.push(path);
  else copyFileSync(path, join(OUT, name));
}
await build({
  entryPoints,
  entryNames: '[name]',
  outdir: OUT,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // CommonJS dependencies call require() for Node's own modules; an ES module has none.
  banner: { js: "import { createRequire as __parleyRequire } from 'node:module'; const require = __parleyRequire(import.meta.url);" },
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
});
rmSync(FINAL, { recursive: true, force: true });
renameSync(OUT, FINAL);
