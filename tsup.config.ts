import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';

const entry = {
  index: 'src/index.ts',
  webhooks: 'src/webhooks/index.ts',
  sandbox: 'src/sandbox/index.ts',
  'sandbox-msw': 'src/sandbox/msw.ts',
  pix: 'src/pix/index.ts',
};

// uuid's web build tests `globalThis.crypto` when it loads (native.js), and on Node the first
// read of that global loads the WebCrypto implementation and the streams it needs (about 4 ms of
// the cold start). This plugin makes the same test on the first UUID instead. It refuses to build
// if uuid's file is not the one it replaces, so that a uuid update is looked at, not overridden.
const UUID_NATIVE = /[\\/]uuid[\\/]dist[\\/]esm-browser[\\/]native\.js$/;
const UUID_NATIVE_SOURCE = `const randomUUID = typeof crypto !== 'undefined' && crypto.randomUUID && crypto.randomUUID.bind(crypto);
export default { randomUUID };
`;
const lazyUuidNative: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'lazy-uuid-native',
  setup(build) {
    let replaced = false;
    build.onLoad({ filter: UUID_NATIVE }, (args) => {
      if (readFileSync(args.path, 'utf8') !== UUID_NATIVE_SOURCE) {
        return { errors: [{ text: `${args.path} is not the file tsup.config.ts replaces: review lazyUuidNative` }] };
      }
      replaced = true;
      return {
        loader: 'js',
        contents: `let randomUUID;
export default {
  get randomUUID() {
    return (randomUUID ??= typeof crypto !== 'undefined' && crypto.randomUUID && crypto.randomUUID.bind(crypto));
  },
};
`,
      };
    });
    build.onEnd((result) => {
      if (result.errors.length === 0 && !replaced) throw new Error(`uuid's native.js was not bundled: review lazyUuidNative`);
    });
  },
};

export default defineConfig([
  // Every entry point of DESIGN.md for bundlers and CommonJS: runtime packages stay external,
  // so that a partner's bundler deduplicates them and tree-shakes them module by module.
  {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: false,
    target: 'es2022',
    platform: 'neutral',
    external: ['msw', 'zod', 'uuid', 'eventemitter3', 'big.js', 'uqr'],
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
    sourcemap: false,
    noExternal: [/^zod/, 'uuid', 'eventemitter3'],
    // uuid's Node build imports node:crypto at load (about 5 ms); its web build uses the
    // `globalThis.crypto` that Node 20 has, read on first use (lazyUuidNative above).
    esbuildOptions(options) {
      options.alias = { uuid: fileURLToPath(new URL('./node_modules/uuid/dist/esm-browser/index.js', import.meta.url)) };
    },
    esbuildPlugins: [lazyUuidNative],
  },
  {
    entry: { cli: 'src/server/cli.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    sourcemap: false,
    noExternal: [/^zod/, 'uuid', 'eventemitter3', 'big.js'],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
