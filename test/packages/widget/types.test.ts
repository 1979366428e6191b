/**
 * @parley/widget's declarations as an application's compiler sees them: built from this checkout,
 * installed (dist/ and package.json) into a folder outside the repository, so nothing of ours but
 * the package resolves, and compiled strict with the declarations checked too. typed-usage.ts
 * compiles, and each of its `@ts-expect-error` lines is still an error (an unused one is a
 * diagnostic of its own).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

it('typed-usage.ts compiles against the built package, and its wrong calls do not', { timeout: 120_000 }, () => {
  const build = spawnSync('npm', ['run', '--silent', 'build:widget-package'], { cwd: ROOT, encoding: 'utf8' });
  expect(build.status, `${build.stdout}\n${build.stderr}`).toBe(0);
  const app = mkdtempSync(join(tmpdir(), 'parley-widget-app-'));
  const installed = join(app, 'node_modules', '@parley', 'widget');
  mkdirSync(installed, { recursive: true });
  for (const entry of ['dist', 'package.json'])
    cpSync(join(ROOT, 'packages/widget', entry), join(installed, entry), { recursive: true });
  cpSync(fileURLToPath(new URL('./typed-usage.ts', import.meta.url)), join(app, 'typed-usage.ts'));
  const program = ts.createProgram([join(app, 'typed-usage.ts')], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: false,
  });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  const files = program.getSourceFiles().map((f) => f.fileName);
  rmSync(app, { recursive: true, force: true });
  expect(diagnostics).toEqual([]);
  expect(files.some((f) => f.endsWith('node_modules/@parley/widget/dist/generated/widget/state/host.d.ts'))).toBe(true);
});
