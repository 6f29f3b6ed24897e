// Flat config: type-aware rules for all TypeScript, the rule that keeps the
// core and the CLI free of the `vscode` module, and the floors of the core
// (docs/architecture.md): a file never imports from a floor above its own.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const VSCODE = { name: 'vscode', message: 'src/core and src/cli must not import vscode; put editor code in src/extension.' };

/** The restricted imports of a floor: vscode, and every folder or root file of a higher floor. */
function restricted(above) {
  const regex = `^(\\.\\.?/)+(${above.join('|')})(/|$)`;
  return ['error', { paths: [VSCODE], patterns: [{ regex, message: 'a lower floor of the core imports from a higher one (see docs/architecture.md)' }] }];
}

// Floors of src/core, lowest first; each names what it holds.
const FLOORS = [
  { files: ['src/core/{json,catalog,template,session,cache,search,trace}/**/*.ts', 'src/core/*.ts'], ignores: ['src/core/{secrets,runtime,open-runtime}.ts'], above: ['tool-run', 'sandbox', 'secrets', 'runner', 'fn', 'call', 'runtime', 'open-runtime', 'server', 'http', 'serve', 'metrics'] },
  { files: ['src/core/{tool-run,sandbox}/**/*.ts', 'src/core/secrets.ts'], above: ['runner', 'fn', 'call', 'runtime', 'open-runtime', 'server', 'http', 'serve', 'metrics'] },
  { files: ['src/core/{runner,fn}/**/*.ts'], above: ['call', 'runtime', 'open-runtime', 'server', 'http', 'serve', 'metrics'] },
  { files: ['src/core/call/**/*.ts', 'src/core/{runtime,open-runtime}.ts'], above: ['server', 'http', 'serve', 'metrics'] },
  { files: ['src/core/server/**/*.ts'], above: ['http', 'serve', 'metrics'] },
];

const noVscode = {
  'no-restricted-imports': ['error', { paths: [VSCODE] }],
  'no-restricted-syntax': ['error', {
    selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']",
    message: 'src/core and src/cli must not require vscode.',
  }],
};

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'test/fixtures/**', 'media/**', '**/*.mjs', '**/*.cjs', '**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's describe/test return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'test', 'it', 'suite', 'before', 'after'] }],
      }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['src/core/**/*.ts', 'src/cli/**/*.ts'], rules: noVscode },
  ...FLOORS.map(({ files, ignores, above }) => ({ files, ...(ignores ? { ignores } : {}), rules: { 'no-restricted-imports': restricted(above) } })),
);
