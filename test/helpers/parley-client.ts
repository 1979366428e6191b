/**
 * @parley/client as an application gets it: the workspace package, built from this checkout
 * (`npm run build:client`, only when a source changed) and imported through its package exports.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export async function loadClient() {
  const build = spawnSync('npm', ['run', '--silent', 'build:client'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build:client failed:\n${build.stdout}\n${build.stderr}`);
  const [client, webhooks] = await Promise.all([import('@parley/client'), import('@parley/client/webhooks')]);
  return { ...client, ...webhooks };
}
