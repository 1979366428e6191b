// Builds parley_rank.c into build/parley_rank.<so|dylib> (run by `npm ci` / `npm install` as the
// postinstall step, and by `npm run build:rank` after editing the C file). It needs a C compiler
// (`cc`, or $CC); without one it says so and exits 0: SQLite search then uses FTS5's bm25(),
// with nearly the same results, slower on large indexes. The headers are better-sqlite3's own, so the
// extension matches the SQLite it is loaded into.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..', '..', '..');
// Keep in step with rankExtensionPath() in ./index.ts.
const out = join(root, 'build', process.platform === 'darwin' ? 'parley_rank.dylib' : 'parley_rank.so');

if (process.platform === 'win32') {
  console.warn(
    'parley: the parley_rank SQLite extension is not built on Windows; search uses bm25() (slower on large indexes).',
  );
  process.exit(0);
}
try {
  const include = join(
    dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
    'deps',
    'sqlite3',
  );
  mkdirSync(dirname(out), { recursive: true });
  // A failed build must not leave an older library behind (one built from another parley_rank.c).
  rmSync(out, { force: true });
  const cc = process.env.CC || 'cc';
  execFileSync(cc, ['-O2', '-fPIC', '-shared', '-I', include, join(here, 'parley_rank.c'), '-o', out, '-lm'], {
    stdio: 'inherit',
  });
  console.log(`parley: built ${out}`);
} catch (err) {
  console.warn(
    `parley: could not build the parley_rank SQLite extension (${err.message}); search uses bm25() (nearly the same results, slower on large indexes).`,
  );
}
