// ESLint for the UI: the recommended rules of ESLint and typescript-eslint, and the Rules of Hooks.
// Formatting is not linted. `npm run lint` fails on any warning, so every rule here is an error in effect.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { defineConfig, globalIgnores } from 'eslint/config';

export default defineConfig([
  // Build output, and the API types generated from src/lib/api/openapi.json (npm run types).
  globalIgnores(['dist/', 'src/lib/api/schema.d.ts']),

  {
    name: 'fanhub/js',
    files: ['**/*.{js,mjs}'],
    extends: [js.configs.recommended],
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'module',
      // Node scripts and tests; the e2e tests also hand functions to the browser (page.evaluate).
      globals: { ...globals.node, ...globals.browser },
    },
  },

  {
    name: 'fanhub/ts',
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: {
      globals: { ...globals.browser },
    },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      // `const { [key]: _, ...rest } = obj` is how an entry is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
]);
