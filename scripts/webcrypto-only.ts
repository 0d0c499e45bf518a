/**
 * The esbuild plugin of the WebCrypto-only build of `pix-usdt/webhooks` (`dist/webhooks-web.js`,
 * the entry's `browser` condition): src/webhooks/node-crypto.ts is replaced by
 * src/webhooks/node-crypto-web.ts, whose `NODE_CRYPTO` is `false`, so that esbuild drops every
 * node:crypto branch. A browser has no node:crypto; the branches cost a receiver's bundle about
 * 0.1 kB gzipped (docs/decisions.md, "Size budgets of the two entries"). Used by tsup.config.ts
 * and by the tests that bundle the sources for a web runtime.
 * @module
 */
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('../src/webhooks/node-crypto-web.ts', import.meta.url));

/** Resolves `./node-crypto.js`, imported from src/webhooks, to `./node-crypto-web.ts`. */
export const webCryptoOnlyEsbuildPlugin = {
  name: 'pix-usdt-webcrypto-only',
  setup(b: { onResolve: (o: { filter: RegExp }, f: (a: { path: string; importer: string }) => { path: string } | undefined) => void }): void {
    b.onResolve({ filter: /^\.\/node-crypto\.js$/ }, (args) => (/[\\/]src[\\/]webhooks[\\/][^\\/]+$/.test(args.importer) ? { path: web } : undefined));
  },
};
