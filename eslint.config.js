// ESLint (flat config), run by .ci/run: JavaScript's recommended rules and
// typescript-eslint's recommended rules (syntactic, no type information, so
// it stays fast) over the engine, codegen, tests, benchmarks and the CLI
// entry. tsc --noEmit does the type checking.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'engine/core/generated/**',
      'engine/core/kernel/generated/**',
      'engine/person/inbox/assets/**',
      'engine/**/*.js',
      'codegen/**/*.js',
      'web/**',
      'fixtures/**',
      'capabilities/**',
      'docs/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'Buffer',
          'URL',
          'URLSearchParams',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'setImmediate',
          'clearImmediate',
          'queueMicrotask',
          'globalThis',
          'TextEncoder',
          'TextDecoder',
          'AbortController',
          'AbortSignal',
          'fetch',
          'Response',
          'Request',
          'Headers',
          'structuredClone',
          'performance',
          'WebSocket',
          'EventTarget',
          'Event',
        ].map((g) => [g, 'readonly']),
      ),
    },
    rules: {
      // YAML and JSON arrive untyped: `any` marks that boundary (the compiled descriptor itself is typed; a test holds it)
      '@typescript-eslint/no-explicit-any': 'off',
      // `_name` is a deliberately unused binding; `{ id, ...rest }` drops keys by destructuring
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // `catch {}`: a best-effort step whose failure changes nothing (each such site says why nearby)
      'no-empty': ['error', { allowEmptyCatch: true }],
      // aligned columns are matched as printed (`/tool  Bash/`)
      'no-regex-spaces': 'off',
    },
  },
);
