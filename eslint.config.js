import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const SANDBOX_BASE = ['**/server/**', 'node:*', '**/client/**', '**/resources/**'];

/** One `no-restricted-imports` block for a sandbox folder: the base rule plus the layer's own. */
function sandboxLayer(files, group, message) {
  const patterns = [{ group: SANDBOX_BASE, message: 'The sandbox stays fetch-shaped: no Node built-ins, no server, no client.' }];
  if (group.length > 0) patterns.push({ group, message });
  return [{ files, rules: { 'no-restricted-imports': ['error', { patterns }] } }];
}

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
    // The Jest examples: CommonJS, as partners' suites are, with Jest's globals.
    files: ['examples/jest/**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: Object.fromEntries(
        ['require', 'module', '__dirname', 'describe', 'test', 'it', 'expect', 'beforeAll', 'beforeEach', 'afterAll', 'afterEach', 'jest'].map((name) => [name, 'readonly']),
      ),
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The layers of the sandbox (docs/architecture.md): models, pix, storage <- core <- http <- plugins <- wiring.
  // A folder imports only folders to its left, `import type` included (this rule sees both).
  ...sandboxLayer(['src/sandbox/**'], [], 'The sandbox stays fetch-shaped: no Node built-ins, no server, no client.'),
  // storage/ is the storage port and its SQL: rows only, it imports nothing of ours (core reads it, like models).
  ...sandboxLayer(['src/sandbox/storage/**'], ['../*.js', '../core/**', '../http/**', '../plugins/**', '../inspector/**', '../../*/**', 'msw', 'msw/*'], 'storage/ is the storage port: rows and SQL, it imports nothing of ours.'),
  // Outside the sandbox, core/ imports src/models and src/pix (the Pix rules, pix-usdt/pix) only; in it, core/ and the port (storage/).
  ...sandboxLayer(['src/sandbox/core/**'], ['**/http/**', '**/plugins/**', '../*.js', '../../*.js', '../../*/**', '!../../models/**', '!../../pix/**', 'msw', 'msw/*'], 'core/ is the platform: it imports models, pix, storage (the port) and core only, never http/, plugins/, the wiring or another src/ folder.'),
  ...sandboxLayer(['src/sandbox/http/*.ts'], ['**/plugins/**', '../*.js', 'msw', 'msw/*'], 'http/ imports core/ and models, never plugins/ or the wiring.'),
  ...sandboxLayer(['src/sandbox/http/routes/**'], ['**/plugins/**', '../../*.js', 'msw', 'msw/*'], 'http/ imports core/ and models, never plugins/ or the wiring.'),
  ...sandboxLayer(['src/sandbox/plugins/**'], ['../../*.js', 'msw', 'msw/*'], 'plugins/ import http/, core/ and models, never the wiring.'),
  ...sandboxLayer(['src/sandbox/plugins/webhooks/**'], ['../../*.js', '../faults/*', 'msw', 'msw/*'], 'A plugin does not import another plugin.'),
  ...sandboxLayer(['src/sandbox/plugins/faults/**'], ['../../*.js', '../webhooks/*', 'msw', 'msw/*'], 'A plugin does not import another plugin.'),
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
    // pix-usdt/testing runs in any test runner and runtime: no Node built-ins, no server, no msw;
    // the sandbox through its public entry only, and only in createTestSandbox (sandbox.ts).
    files: ['src/testing/sandbox.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/server/**', 'node:*', 'msw', 'msw/*', '../sandbox/*', '!../sandbox/index.js'], message: 'pix-usdt/testing uses the sandbox through pix-usdt/sandbox only: no internals, server, msw or Node built-ins.' }] },
      ],
    },
  },
  {
    // The scenario builders, scenario files and matchers drive any deployment through the public client.
    files: ['src/testing/**'],
    ignores: ['src/testing/sandbox.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/sandbox/**', '**/sandbox', '**/server/**', 'node:*', 'msw', 'msw/*'], message: 'Scenarios, scenario files and matchers drive a deployment through the public client only: no sandbox, server, msw or Node built-ins.' }] },
      ],
    },
  },
  {
    // pix-usdt/durable-object runs on workerd without nodejs_compat: no Node built-ins, no server,
    // no msw, no import of the runtime (`cloudflare:*`, docs/decisions.md). The sandbox through
    // its entry (createStoredSandbox), plus the one error-envelope builder, the one request log
    // and event-stream writer (the operator's views serve what serve serves), and the class
    // behind createStoredSandbox (its request log and key owner, which serve reads too); the
    // client's loopback rule.
    files: ['src/durable-object/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                ...['**/server/**', 'node:*', 'msw', 'msw/*', 'cloudflare:*', '../resources/**', '../testing/**', '../parity/**'],
                ...['../sandbox/*.js', '!../sandbox/index.js', '!../sandbox/stored-sandbox.js', '../sandbox/core/**', '../sandbox/storage/**', '../sandbox/plugins/**', '../sandbox/inspector/**', '../sandbox/http/*'],
                ...['!../sandbox/http/call.js', '!../sandbox/http/request-log.js', '!../sandbox/http/event-stream.js'],
              ],
              message: 'pix-usdt/durable-object builds on pix-usdt/sandbox (its envelope builder, request log and event stream): no other sandbox internals, server, msw, Node built-ins or cloudflare: modules.',
            },
          ],
        },
      ],
    },
  },
  {
    // pix-usdt/parity runs against any deployment: the client and webhooks entries only,
    // never the sandbox (it must prove the sandbox, not share its code) nor Node built-ins.
    files: ['src/parity/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/sandbox/**', '**/sandbox', '**/server/**', 'node:*', 'msw', 'msw/*'], message: 'pix-usdt/parity imports only the client and webhooks entries: no sandbox internals, server, msw or Node built-ins.' }] },
      ],
    },
  },
);
