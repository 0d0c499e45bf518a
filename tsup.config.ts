import { defineConfig } from 'tsup';

// One build for every entry point of DESIGN.md. ky is ESM-only, so it is bundled (the CJS
// build must not `require` an ES module); the other runtime packages ship both formats and
// stay external so that partners deduplicate them.
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
    noExternal: ['ky'],
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
    noExternal: ['ky'],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
