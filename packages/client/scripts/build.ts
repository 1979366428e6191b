/**
 * `npm run build` (here) or `npm run build:client` (the project root): openapi.json from the
 * server's route schemas (no port opened), the generated types beside the sources, then tsc into
 * dist/. `--if-stale` builds only when a source of the document or of the client is newer than
 * dist/, and when the server changed without changing the document, only marks dist/ current.
 * Test files build it too, possibly at once: a lock folder lets one build at a time.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { v2Document } from '../../../scripts/openapi-document.js';
import { newestSource } from '../../../scripts/stale.mjs';
import { generateSources } from './generate.js';

const HERE = fileURLToPath(new URL('..', import.meta.url));
const OWN_SOURCES = [
  'packages/client/src',
  'packages/client/scripts',
  'packages/client/package.json',
  'packages/client/tsconfig.json',
];
const DOCUMENT_SOURCES = ['server', 'shared', 'scripts/openapi-document.ts'];
const MARK = join(HERE, 'dist', 'index.js');
const LOCK = join(HERE, '.build-lock');

const builtAt = () => statSync(MARK, { throwIfNoEntry: false })?.mtimeMs ?? 0;

async function lock(): Promise<void> {
  for (const started = Date.now(); ;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch {
      // A lock older than five minutes was left by a build that died.
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() - started > 300_000) throw new Error(`${LOCK} is held by another build`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

const writeIfChanged = (file: string, text: string) => {
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
};

/** Builds unless `ifStale` and nothing changed; false when tsc failed. */
async function build(ifStale: boolean): Promise<boolean> {
  const ownChanged = newestSource(OWN_SOURCES) >= builtAt();
  if (ifStale && !ownChanged && newestSource(DOCUMENT_SOURCES) < builtAt()) return true;

  const document = `${JSON.stringify(await v2Document(), null, 2)}\n`;
  const documentFile = join(HERE, 'openapi.json');
  const sameDocument = existsSync(documentFile) && readFileSync(documentFile, 'utf8') === document;
  if (ifStale && sameDocument && !ownChanged && existsSync(MARK)) {
    const now = new Date();
    utimesSync(MARK, now, now);
    return true;
  }
  writeIfChanged(documentFile, document);
  const generated = join(HERE, 'src', 'generated');
  mkdirSync(generated, { recursive: true });
  for (const [name, text] of Object.entries(await generateSources(JSON.parse(document))))
    writeIfChanged(join(generated, name), text);

  // Compiled beside and swapped in, so a test importing the package never sees half a build.
  const out = join(HERE, `dist.${process.pid}.tmp`);
  rmSync(out, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', join(HERE, 'tsconfig.json'), '--outDir', out], { stdio: 'inherit' });
  } catch {
    rmSync(out, { recursive: true, force: true });
    return false;
  }
  rmSync(join(HERE, 'dist'), { recursive: true, force: true });
  renameSync(out, join(HERE, 'dist'));
  return true;
}

await lock();
let built = false;
try {
  built = await build(process.argv.includes('--if-stale'));
} finally {
  rmSync(LOCK, { recursive: true, force: true });
}
if (!built) {
  console.error('@parley/client: tsc failed (above)');
  process.exitCode = 1;
}
