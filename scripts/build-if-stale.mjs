// `npm start` runs this first: builds when dist/ is missing or older than a source file (a fresh
// clone installed with --ignore-scripts, a `git pull`, an edit), and does nothing otherwise, so
// an installed, read-only copy starts without writing anything.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILT = join(ROOT, 'dist', 'server', 'main.js');
const SOURCES = ['server', 'shared', 'scripts', 'package.json'];

function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const e of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) latest = Math.max(latest, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return latest;
}

const built = statSync(BUILT, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (SOURCES.some((s) => newest(join(ROOT, s)) > built)) {
  const run = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
