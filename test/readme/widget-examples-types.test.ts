/**
 * The React examples of the README and packages/widget/README.md are TypeScript (```tsx): a
 * reader's compiler checks them. Here they compile strict, as written (placeholders and all),
 * against the built @parley/widget and React's own types, in a folder outside the repository
 * where only those packages resolve.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { blockUnder, ROOT } from './blocks.js';

it('the React examples compile strict against @parley/widget and @types/react', { timeout: 120_000 }, () => {
  const build = spawnSync('npm', ['run', '--silent', 'build:widget-package'], { cwd: ROOT, encoding: 'utf8' });
  expect(build.status, `${build.stdout}\n${build.stderr}`).toBe(0);
  const app = mkdtempSync(join(tmpdir(), 'parley-react-app-'));
  try {
    const modules = join(app, 'node_modules');
    for (const [from, to] of [
      ['packages/widget/dist', '@parley/widget/dist'],
      ['packages/widget/package.json', '@parley/widget/package.json'],
      ['node_modules/@types/react', '@types/react'],
      ['node_modules/csstype', 'csstype'],
    ]) {
      mkdirSync(join(modules, to, '..'), { recursive: true });
      cpSync(join(ROOT, from), join(modules, to), { recursive: true });
    }
    const files = {
      'HelpButton.tsx': blockUnder('README.md', '### Widget for apps', 'tsx'),
      'SupportChat.tsx': blockUnder('packages/widget/README.md', '## React', 'tsx'),
    };
    for (const [name, code] of Object.entries(files)) writeFileSync(join(app, name), code);
    const program = ts.createProgram(
      Object.keys(files).map((name) => join(app, name)),
      {
        strict: true,
        noEmit: true,
        jsx: ts.JsxEmit.ReactJSX,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        types: [],
      },
    );
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file
        ? `${d.file.fileName.slice(app.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start!).line + 1}: `
        : '';
      return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
    });
    expect(diagnostics).toEqual([]);
    // React's types were the ones checked against, not an implicit any.
    expect(program.getSourceFiles().some((f) => f.fileName.endsWith('@types/react/index.d.ts'))).toBe(true);
  } finally {
    rmSync(app, { recursive: true, force: true });
  }
});
