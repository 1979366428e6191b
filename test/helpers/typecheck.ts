/**
 * Type-checks files as an application compiling generated code would: strict, ES2022, NodeNext
 * modules, no emit, declaration files of packages not checked. Each test names the `types` and
 * `lib` it compiles with.
 */
import ts from 'typescript';

export interface TypecheckOptions {
  /** tsconfig's `types`: `[]` for none, `['node']` for Node's. */
  types: string[];
  /** tsconfig's `lib`, as file names (`lib.es2022.d.ts`). */
  lib: string[];
  /** Which of the program's files to check (every one by default); what they use is checked through them. */
  check?: (fileName: string) => boolean;
}

/** The files checked and the errors found, each with its file's name (`''` for a global one). */
export function typecheck(
  files: string[],
  options: TypecheckOptions,
): { checked: string[]; errors: { file: string; text: string }[] } {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: options.types,
    lib: options.lib,
  });
  const checked = program.getSourceFiles().filter((f) => options.check?.(f.fileName) ?? true);
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...checked.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
  return {
    checked: checked.map((f) => f.fileName),
    errors: diagnostics.map((d) => ({
      file: d.file?.fileName ?? '',
      text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    })),
  };
}
