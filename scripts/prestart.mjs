// Before `npm start`: rebuild the server bundles or the widget only when a source is newer than
// the build. Checking is a few milliseconds of file times; the builders (esbuild, tsx with vite)
// are started only when something changed, e.g. on a fresh clone whose install did not build.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, serverIsStale, widgetIsStale } from './stale.mjs';

function run(args) {
  const done = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (done.status !== 0) process.exit(done.status ?? 1);
}

if (serverIsStale()) run(['scripts/build-server.mjs']);
if (widgetIsStale()) run([join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'widget/build.ts']);
