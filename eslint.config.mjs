// Flat config: type-aware rules for all TypeScript, plus the rule that keeps
// the core and the CLI free of the `vscode` module.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noVscode = {
  'no-restricted-imports': ['error', {
    paths: [{ name: 'vscode', message: 'src/core and src/cli must not import vscode; put editor code in src/extension.' }],
  }],
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
);
