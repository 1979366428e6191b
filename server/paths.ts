/**
 * The project folder (the nearest package.json up from this file), the same whether this runs
 * from server/ under tsx or bundled in dist/server/: files outside the bundle (build/, dist/widget)
 * are found from it, never by counting '..' from a module's own location.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function find(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export const PROJECT_ROOT = find();
