// ESLint flat config: typescript-eslint's type-checked rules over src/, test/, bench/ and scripts/
// (type information from tsconfig.lint.json, which covers all four; the browser code in web/ has its
// own, web/tsconfig.json), Prettier owning the layout.
// A rule is turned off only with a one-line reason next to it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

/**
 * The layers of src/ and what each may import: the single source of the layer picture
 * (docs/architecture.md shows it as a table; test/docs/layers.test.ts checks that table and every
 * import in src/ against this). A key is a folder of src/ or a top-level file (`app` is src/app.ts);
 * a layer always imports its own files. No cycle: a layer never reaches itself through others.
 */
export const LAYERS = {
  domain: [],
  platform: [],
  package: [],
  config: ['domain'],
  net: ['domain', 'config'],
  store: ['domain', 'config', 'platform'],
  probes: ['domain', 'config', 'net'],
  channels: ['domain', 'config', 'net'],
  services: ['domain', 'config', 'platform', 'store', 'probes', 'channels'],
  scheduler: ['domain', 'services'],
  web: ['domain', 'package', 'services'],
  api: ['domain', 'config', 'package', 'store', 'channels', 'services', 'web'],
  tui: ['domain'],
  app: [
    'domain',
    'platform',
    'package',
    'config',
    'net',
    'store',
    'probes',
    'channels',
    'services',
    'scheduler',
    'web',
    'api',
  ],
  cli: ['domain', 'config', 'package', 'probes', 'services', 'api', 'tui', 'app'],
};

const TOP_LEVEL_FILES = new Set(['app', 'package']);

/** One lint rule per layer: a relative import that reaches a layer not in its list is an error. */
const layerBoundaries = Object.entries(LAYERS).map(([layer, allowed]) => {
  const denied = Object.keys(LAYERS).filter((l) => l !== layer && !allowed.includes(l));
  const top = TOP_LEVEL_FILES.has(layer);
  return {
    files: top ? [`src/${layer}.ts`] : [`src/${layer}/**`],
    rules: {
      // The typescript-eslint twin of no-restricted-imports, so the store boundary below keeps its own options.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: allowed.length
            ? [
                {
                  regex: `^${top ? '\\./' : '(?:\\.\\./)+'}(?:${denied.join('|')})(?:/|\\.js$)`,
                  message: `src/${top ? `${layer}.ts` : `${layer}/`} may import only ${allowed.join(', ')} (LAYERS in eslint.config.js; docs/architecture.md).`,
                },
              ]
            : [
                {
                  regex: top ? '^\\./' : '^\\.\\./',
                  message: `src/${top ? `${layer}.ts` : `${layer}/`} imports nothing from the rest of src/ (LAYERS in eslint.config.js).`,
                },
              ],
        },
      ],
    },
  };
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.tap/', 'coverage/', 'test/fixtures/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { project: './tsconfig.lint.json', tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `arr[i]!` is deliberate: it marks reads that would need a check under noUncheckedIndexedAccess.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // tap's t.test() returns a promise the runner itself awaits; anything else must be awaited or voided.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] },
      ],
      // `(...a: any[]) => Q` constraints accept Kysely's overloaded where(); other `any`s stay errors.
      '@typescript-eslint/no-explicit-any': ['error', { ignoreRestArgs: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Passing an abort reason or a caught error through unchanged is right; new values must still be Errors.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // `async` marks functions that implement Promise-returning interfaces (repos, migrations, fakes): a throw must reject.
      '@typescript-eslint/require-await': 'off',
      // Flags String(v) on values narrowed from unknown to {}: the code coerces user input and settings that way on purpose.
      '@typescript-eslint/no-base-to-string': 'off',
      // These regexes exist to match or strip terminal escapes and control characters.
      'no-control-regex': 'off',
      // From strict-type-checked: rules the code meets.
      '@typescript-eslint/no-unnecessary-template-expression': 'error',
      '@typescript-eslint/no-unnecessary-type-constraint': 'error',
      '@typescript-eslint/no-duplicate-type-constituents': 'error',
      '@typescript-eslint/no-extraneous-class': 'error',
      '@typescript-eslint/no-invalid-void-type': 'error',
      '@typescript-eslint/no-useless-constructor': 'error',
      '@typescript-eslint/prefer-literal-enum-member': 'error',
      '@typescript-eslint/prefer-reduce-type-parameter': 'error',
      '@typescript-eslint/prefer-return-this-type': 'error',
      '@typescript-eslint/related-getter-setter-pairs': 'error',
      '@typescript-eslint/unified-signatures': 'error',
    },
  },
  {
    files: ['src/store/migrations/**'],
    rules: {
      // Migrations run against whatever schema the database has then: Kysely documents Kysely<any> for them.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The store's boundary (docs/architecture.md): above the store, code sees its interface
    // (src/store/index.ts) and the domain's types, never a repository, a row, an engine module or an
    // engine's package; the store maps rows, ids, encodings and engine errors itself.
    files: ['src/services/**', 'src/api/**', 'src/cli/**', 'src/web/**', 'src/tui/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['kysely', 'pg', 'better-sqlite3'].map((name) => ({
            name,
            message: 'SQL and engines stay in src/store/: add a repository method that takes and returns domain types.',
          })),
          patterns: [
            {
              group: [
                '**/store/repos/*',
                '**/store/schema.js',
                '**/store/db.js',
                '**/store/pg.js',
                '**/store/unique.js',
              ],
              message:
                'Above the store only its interface (src/store/index.ts) and the domain types (src/domain/) are seen: see docs/architecture.md.',
            },
          ],
        },
      ],
    },
  },
  ...layerBoundaries,
  {
    files: ['src/store/**'],
    rules: {
      // Kysely's expression builder is meant to be destructured (({ exists, selectFrom }) => ...): it does not use `this`.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['test/**'],
    rules: {
      // Tests read HTTP bodies, CLI JSON and tap results as `any` on purpose and assert on them; src/ keeps these rules.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests check that methods exist (t.type(obj.fn, 'function')) without calling them.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // The web dashboard's client runs in the browser and has its own TypeScript program (DOM, Preact's JSX).
    files: ['web/**'],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: { project: './web/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  prettier,
);
