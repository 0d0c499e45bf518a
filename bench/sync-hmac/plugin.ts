/**
 * An esbuild plugin that bundles `pix-usdt/webhooks` from the sources with ./hmac.ts (the
 * synchronous HMAC for small bodies, issue 34) in the place of src/webhooks/hmac.ts: the rest is
 * the shipped code. Used by bench/sync-hmac/crossover.ts and bench/webhooks-browser.ts.
 * @module
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const variant = fileURLToPath(new URL('./hmac.ts', import.meta.url));
const entry = fileURLToPath(new URL('../../src/webhooks/index.ts', import.meta.url));

/** Resolves `./hmac.js`, imported from src/webhooks, to ./hmac.ts. */
export const syncHmacPlugin = {
  name: 'pix-usdt-sync-hmac',
  setup(b: { onResolve: (o: { filter: RegExp }, f: (a: { path: string; importer: string }) => { path: string } | undefined) => void }): void {
    b.onResolve({ filter: /^\.\/hmac\.js$/ }, (args) => (/[\\/]src[\\/]webhooks[\\/][^\\/]+$/.test(args.importer) ? { path: variant } : undefined));
  },
};

/**
 * `pix-usdt/webhooks` with the synchronous HMAC, as one ES module's text (for a page or a data:
 * import); `max`, the largest `{t}.{body}` hashed in JavaScript (default 4096; 0: never).
 */
export async function syncHmacWebhooks(platform: 'browser' | 'node', max?: number): Promise<string> {
  const define = max === undefined ? {} : { 'globalThis.__JS_MAX': String(max) };
  const result = await build({ entryPoints: [entry], bundle: true, format: 'esm', platform, target: 'es2022', write: false, logLevel: 'silent', define, plugins: [syncHmacPlugin] });
  return result.outputFiles[0]!.text;
}
