#!/usr/bin/env node
// `npm run typecheck:all` and `npm run lint` in one process, on one pair of TypeScript programs: what CI runs.
//
// Both build the same programs (tsconfig.lint.json for src/, test/ and bench/; web/tsconfig.json for the
// dashboard's browser code), and typescript-eslint's type-aware rules ask the type checker what tsc has
// already worked out. Built once and handed to ESLint (`parserOptions.programs`, which takes the place
// of `project`), the two cost about 58 s of CPU instead of 88 s (docs/testing.md). The rules, files and
// options are eslint.config.js's; only where the types come from changes. Exits 1 on any type error,
// lint error or warning (`--max-warnings=0`), or if a file the programs should hold was not linted with
// its types.
import path from 'node:path';
import ts from 'typescript';
import { ESLint } from 'eslint';

const root = path.resolve(import.meta.dirname, '..');

/** The program `tsc -p <config>` would check. */
function program(config) {
  const host = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic(diagnostic) {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  };
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, config), {}, host);
  return ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
  });
}

const started = Date.now();
const lintProgram = program('tsconfig.lint.json');
const webProgram = program('web/tsconfig.json');
const diagnostics = [lintProgram, webProgram].flatMap((p) => ts.getPreEmitDiagnostics(p));
const formatHost = {
  getCanonicalFileName: (file) => file,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};
if (diagnostics.length) process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost));
const typeFiles = (p) => p.getRootFileNames().length;
console.log(
  `typecheck: ${diagnostics.length} errors in ${typeFiles(lintProgram)} + ${typeFiles(webProgram)} files (${((Date.now() - started) / 1000).toFixed(1)} s)`,
);

const linting = Date.now();
const eslint = new ESLint({
  cwd: root,
  // Appended after eslint.config.js: the TypeScript files take their types from the programs above.
  overrideConfig: [
    { files: ['**/*.ts', '**/*.tsx'], languageOptions: { parserOptions: { programs: [lintProgram] } } },
    { files: ['web/**/*.ts', 'web/**/*.tsx'], languageOptions: { parserOptions: { programs: [webProgram] } } },
  ],
});
const results = await eslint.lintFiles(['.']);
const formatter = await eslint.loadFormatter('stylish');
const report = await formatter.format(results);
if (report) console.log(report);
const problems = results.reduce((n, r) => n + r.errorCount + r.warningCount, 0);

// Every root file of the programs must have been linted (a file the programs miss is a fatal parse
// error above, so a file linted without its types cannot pass unseen either).
const linted = new Set(results.map((r) => r.filePath));
const unlinted = [lintProgram, webProgram]
  .flatMap((p) => p.getRootFileNames())
  .filter((file) => !linted.has(path.resolve(file)));
for (const file of unlinted) console.log(`not linted: ${path.relative(root, file)}`);
console.log(`lint: ${problems} problems in ${results.length} files (${((Date.now() - linting) / 1000).toFixed(1)} s)`);

process.exitCode = diagnostics.length || problems || unlinted.length ? 1 : 0;
