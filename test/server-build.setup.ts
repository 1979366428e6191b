/**
 * Before any test file: the compiled server and CLI in dist/ are brought up to date, since the
 * CLI and start-up tests run them as operators do (`npm run cli`, `npm start`).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const run = spawnSync(process.execPath, ['scripts/build-server.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) throw new Error('The build failed: run `npm run build` to see why');
}
