import { defineConfig } from 'tsup';

// One build for every entry point of DESIGN.md. The runtime packages ship both ESM and CJS and
// stay external, so that partners deduplicate them.
export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      webhooks: 'src/webhooks/index.ts',
      sandbox: 'src/sandbox/index.ts',
      'sandbox-msw': 'src/sandbox/msw.ts',
    },
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
  {
    entry: { cli: 'src/server/cli.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
