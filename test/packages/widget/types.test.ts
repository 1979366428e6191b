/**
 * @parley/widget's declarations as an application's compiler sees them: built from this checkout,
 * resolved through the package's exports, strict. typed-usage.ts compiles, and each of its
 * `@ts-expect-error` lines is still an error (an unused one is a diagnostic of its own).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

it('typed-usage.ts compiles against the built package, and its wrong calls do not', { timeout: 120_000 }, () => {
  const build = spawnSync('npm', ['run', '--silent', 'build:widget-package'], { cwd: ROOT, encoding: 'utf8' });
  expect(build.status, `${build.stdout}\n${build.stderr}`).toBe(0);
  const program = ts.createProgram([fileURLToPath(new URL('./typed-usage.ts', import.meta.url))], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
  });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(diagnostics).toEqual([]);
  // The declarations come from the package's dist/, not from the repository's sources.
  const files = program.getSourceFiles().map((f) => f.fileName);
  expect(files.some((f) => f.includes('packages/widget/dist/index.d.ts'))).toBe(true);
  expect(files.some((f) => f.includes('packages/widget/dist/generated/widget/state/host.d.ts'))).toBe(true);
});
