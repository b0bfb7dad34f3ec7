// ESLint for memdex's JavaScript (scripts/check-js.mjs runs it in make test).
import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    ignores: ['pkg/**', 'pkg-english/**', 'target/**', 'node_modules/**', '**/node_modules/**', 'bench/.venv/**', 'bench/.venv-embed/**', '.worker-state/**', 'tests/types/**'],
  },
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.node, ...globals.worker },
    },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
];
