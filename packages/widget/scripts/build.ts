/**
 * `npm run build` (here) or `npm run build:widget-package` (the project root): the widget's own
 * host-API declarations (widget/state/host.ts and the protocol types it names) into src/generated/,
 * so the package's types are the widget's and cannot drift from them, then tsc into dist/ with
 * those declarations copied beside. `--if-stale` builds only when a source is newer than dist/.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestSource, ROOT } from '../../../scripts/stale.mjs';

const HERE = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = [
  'packages/widget/src/index.ts',
  'packages/widget/scripts',
  'packages/widget/package.json',
  'packages/widget/tsconfig.json',
  'widget/state/host.ts',
  'shared/protocol.ts',
  'shared/conversations.ts',
  'shared/client-frames.ts',
];
const MARK = join(HERE, 'dist', 'index.js');
const GENERATED = join(HERE, 'src', 'generated');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const builtAt = statSync(MARK, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (process.argv.includes('--if-stale') && newestSource(SOURCES) < builtAt) process.exit(0);

rmSync(GENERATED, { recursive: true, force: true });
rmSync(join(HERE, 'dist'), { recursive: true, force: true });
try {
  // Declarations only: the package imports these as types, so no widget code ships in it.
  execFileSync(
    process.execPath,
    [
      tsc,
      join(ROOT, 'widget/state/host.ts'),
      ...['--declaration', '--emitDeclarationOnly', '--strict', '--skipLibCheck'],
      ...['--target', 'ES2020', '--module', 'ESNext', '--moduleResolution', 'Bundler', '--lib', 'ES2020,DOM'],
      ...['--ignoreConfig', '--rootDir', ROOT, '--outDir', GENERATED],
    ],
    { stdio: 'inherit' },
  );
  execFileSync(process.execPath, [tsc, '-p', HERE], { stdio: 'inherit' });
  cpSync(GENERATED, join(HERE, 'dist', 'generated'), { recursive: true });
} catch {
  rmSync(join(HERE, 'dist'), { recursive: true, force: true });
  process.exit(1);
}
