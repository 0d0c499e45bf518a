/**
 * Bundles the Durable Objects worker as wrangler bundles a module worker: esbuild, ESM, the
 * workerd/worker/browser export conditions, `cloudflare:workers` left to the runtime. The
 * inspector's console is not served by this deployment: its script module is an empty string.
 *
 *   node --import tsx examples/durable-object/build.ts [out.js]   (default: dist-worker/worker.js)
 * @module
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('./worker.ts', import.meta.url));

/** Writes the bundle to `outfile`; answers its size in bytes. */
export async function buildWorker(outfile: string): Promise<number> {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    target: 'es2022',
    external: ['cloudflare:workers'],
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        name: 'no-inspector-ui',
        setup(b) {
          b.onResolve({ filter: /^virtual:pix-usdt-inspector-ui$/ }, (args) => ({ path: args.path, namespace: 'no-inspector-ui' }));
          b.onLoad({ filter: /.*/, namespace: 'no-inspector-ui' }, () => ({ contents: 'export default "";', loader: 'js' }));
        },
      },
    ],
  });
  return Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? 'dist-worker/worker.js';
  const bytes = await buildWorker(out);
  console.log(`${out}: ${(bytes / 1024).toFixed(0)} kB`);
}
