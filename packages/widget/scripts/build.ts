/**
 * `npm run build` (here) or `npm run build:widget-package` (the project root): the widget's own
 * host-API declarations (widget/state/host.ts and the protocol types it names) into src/generated/,
 * so the package's types are the widget's and cannot drift from them, then tsc into dist/ with
 * those declarations copied beside. `--if-stale` builds only when a source is newer than dist/.
 * Test files build it too, possibly at once: a lock folder lets one build at a time.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
const LOCK = join(HERE, '.build-lock');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

for (const started = Date.now(); ;) {
  try {
    mkdirSync(LOCK);
    break;
  } catch {
    // A lock older than five minutes was left by a build that died.
    const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 300_000) rmSync(LOCK, { recursive: true, force: true });
    else if (Date.now() - started > 300_000) throw new Error(`${LOCK} is held by another build`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
process.on('exit', () => rmSync(LOCK, { recursive: true, force: true }));

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
  selfContained();
  execFileSync(process.execPath, [tsc, '-p', HERE], { stdio: 'inherit' });
  cpSync(GENERATED, join(HERE, 'dist', 'generated'), { recursive: true });
} catch (err) {
  if (!(err && typeof err === 'object' && 'status' in err)) console.error(err);
  rmSync(join(HERE, 'dist'), { recursive: true, force: true });
  process.exit(1);
}

/**
 * The declarations end at the types the host API names: protocol.ts re-exports the client frames,
 * whose TypeBox schemas are the server's business (an application has no `typebox`), so that
 * re-export goes; any other import of a package fails the build rather than an app's compile.
 */
function selfContained() {
  const protocol = join(GENERATED, 'shared', 'protocol.d.ts');
  const text = readFileSync(protocol, 'utf8');
  const cut = text.replace(/export type \{[^}]*\} from '\.\/client-frames\.js';\n/, '');
  if (cut === text) throw new Error('build: the client-frames re-export of protocol.d.ts was not found');
  writeFileSync(protocol, cut);
  rmSync(join(GENERATED, 'shared', 'client-frames.d.ts'));
  for (const file of readdirSync(GENERATED, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.d.ts')) continue;
    const bare = /from '(?!\.)([^']+)'/.exec(readFileSync(join(GENERATED, file), 'utf8'));
    if (bare) throw new Error(`build: ${file} imports ${bare[1]}, which an application does not have`);
  }
}
