// Is a build older than its sources? Plain node and file times only, so `npm start` checks both
// builds in a few milliseconds without loading esbuild, tsx or vite (scripts/prestart.mjs).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The newest modification time under `paths` (files or folders, relative to the project). */
export function newestSource(paths) {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (!stat.isDirectory()) newest = Math.max(newest, stat.mtimeMs);
    else for (const e of readdirSync(path)) visit(join(path, e));
  };
  for (const p of paths) visit(join(ROOT, p));
  return newest;
}

/** The oldest of `outputs` (0 when one is missing): older than a source means stale. */
function builtAt(outputs) {
  return Math.min(...outputs.map((o) => statSync(join(ROOT, o), { throwIfNoEntry: false })?.mtimeMs ?? 0));
}

export const SERVER_SOURCES = ['server', 'shared', 'scripts/build-server.mjs', 'package.json', 'package-lock.json'];
export const SERVER_OUTPUTS = ['dist/server/main.js', 'dist/server/cli.js'];

/** dist/server is missing or older than a server source. */
export const serverIsStale = () => builtAt(SERVER_OUTPUTS) <= newestSource(SERVER_SOURCES);

/** dist/widget (or the demo page, or the console) is missing or older than its sources, shared/ included. */
export function widgetIsStale() {
  if (!existsSync(join(ROOT, 'dist/demo/index.html')) || !existsSync(join(ROOT, 'dist/console/index.html')))
    return true;
  return newestSource(['widget', 'demo', 'console', 'shared']) > builtAt(['dist/widget/widget.js']);
}
