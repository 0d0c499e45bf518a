import { defineConfig } from 'tsup';
import { inspectorUiEsbuildPlugin } from './scripts/inspector-ui.js';
import { webCryptoOnlyEsbuildPlugin } from './scripts/webcrypto-only.js';

const entry = {
  index: 'src/index.ts',
  models: 'src/models/public.ts',
  webhooks: 'src/webhooks/index.ts',
  'webhooks-receiver': 'src/webhooks/receiver/index.ts',
  sandbox: 'src/sandbox/index.ts',
  'sandbox-msw': 'src/sandbox/msw.ts',
  pix: 'src/pix/index.ts',
  'pix-testing': 'src/pix/testing.ts',
  parity: 'src/parity/index.ts',
  testing: 'src/testing/index.ts',
  'durable-object': 'src/durable-object/index.ts',
};

export default defineConfig([
  // Every entry point of DESIGN.md for bundlers and CommonJS: runtime packages stay external,
  // so that a partner's bundler deduplicates them and tree-shakes them module by module.
  {
    entry,
    format: ['esm', 'cjs'],
    // Bundled from the declarations scripts/declarations.mjs emitted just before (.tmp/types):
    // the same files as from the sources, in a tenth of the time.
    dts: { entry: Object.fromEntries(Object.entries(entry).map(([name, file]) => [name, file.replace(/^src\/(.*)\.ts$/, '.tmp/types/$1.d.ts')])) },
    clean: true,
    sourcemap: false,
    target: 'es2022',
    platform: 'neutral',
    external: ['msw', 'zod', 'uuid', 'eventemitter3', 'big.js', 'uqr'],
    splitting: true,
    treeshake: true,
    // The inspector's browser script (preact + htm), inlined into a chunk only its handler imports.
    esbuildPlugins: [inspectorUiEsbuildPlugin],
  },
  // The client for Node (the `node` condition of `exports`): one file with its dependencies
  // tree-shaken in, so that `import('pix-usdt')` does not load zod's whole module graph, which
  // was most of the cold start (docs/decisions.md, "Packaging").
  {
    entry: { index: 'src/index.ts' },
    outDir: 'dist/node',
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    sourcemap: false,
    // Idempotency-Keys come from WebCrypto, read on first use (src/internal/uuid.ts): the client has no uuid.
    noExternal: [/^zod/, 'eventemitter3'],
  },
  // pix-usdt/webhooks for browsers (the `browser` condition): one file, WebCrypto only, the
  // node:crypto path left out at build time (scripts/webcrypto-only.ts), so that a receiver's
  // bundle stays within 3 kB gzipped however it reaches the entry (issue 32). The declarations
  // are the entry's own (dist/webhooks.d.ts).
  {
    entry: { 'webhooks-web': 'src/webhooks/index.ts' },
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    sourcemap: false,
    splitting: false,
    esbuildPlugins: [webCryptoOnlyEsbuildPlugin],
    // Folds `NODE_CRYPTO` (false here) and drops what it guards; names and layout stay readable.
    esbuildOptions(options) {
      options.minifySyntax = true;
    },
  },
  {
    entry: { cli: 'src/server/cli/main.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    sourcemap: false,
    noExternal: [/^zod/, 'uuid', 'eventemitter3', 'big.js'],
    banner: { js: '#!/usr/bin/env node' },
    // Minified with names kept (`keepNames`), so errors and stack traces of the bin still name
    // their functions (the tarball budget, test/package/tarball.test.ts; docs/decisions.md,
    // "Sandbox server and msw").
    esbuildOptions(options) {
      options.minify = true;
      options.keepNames = true;
    },
    esbuildPlugins: [inspectorUiEsbuildPlugin],
  },
]);
