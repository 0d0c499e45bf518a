import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'docs/api/**', 'node_modules/**', 'coverage/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': 'off',
    },
  },
  {
    // The dependency rule of docs/architecture.md: the client never reaches the sandbox or
    // the server, and nothing but the server touches Node built-ins.
    files: ['src/client/**', 'src/resources/**', 'src/models/**', 'src/webhooks/**', 'src/internal/**', 'src/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/sandbox/**', '**/sandbox', '**/server/**', 'node:*', 'msw', 'msw/*'], message: 'The client and webhooks entries must not import the sandbox, the server, msw or Node built-ins.' }] },
      ],
    },
  },
  {
    // pix-usdt/pix runs in browsers and e-mail renderers as on Node: no built-ins, no sandbox.
    files: ['src/pix/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/sandbox/**', '**/sandbox', '**/server/**', '**/client/**', '**/resources/**', 'node:*', 'msw', 'msw/*'], message: 'pix-usdt/pix is isomorphic: no sandbox, server, client, msw or Node built-ins.' }] },
      ],
    },
  },
  {
    files: ['src/sandbox/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/server/**', 'node:*', '**/client/**', '**/resources/**'], message: 'The sandbox engine stays fetch-shaped: no Node built-ins, no server, no client.' }] },
      ],
    },
  },
);
