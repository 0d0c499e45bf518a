import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';

const entry = {
  index: 'src/index.ts',
  webhooks: 'src/webhooks/index.ts',
  sandbox: 'src/sandbox/index.ts',
  'sandbox-msw': 'src/sandbox/msw.ts',
};

export default defineConfig([
  // Every entry point of DESIGN.md for bundlers and CommonJS: runtime packages stay external,
  // so that a partner's bundler deduplicates them and tree-shakes them module by module.
  {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'es2022',
    platform: 'neutral',
    external: ['msw', 'zod', 'uuid', 'eventemitter3', 'big.js'],
    splitting: true,
    treeshake: true,
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
    sourcemap: true,
    noExternal: [/^zod/, 'uuid', 'eventemitter3'],
    // uuid's Node build imports node:crypto at load (about 5 ms); its web build uses the
    // `globalThis.crypto` that Node 20 has.
    esbuildOptions(options) {
      options.alias = { uuid: fileURLToPath(new URL('./node_modules/uuid/dist/esm-browser/index.js', import.meta.url)) };
    },
  },
  {
    entry: { cli: 'src/server/cli.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    noExternal: [/^zod/, 'uuid', 'eventemitter3', 'big.js'],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
