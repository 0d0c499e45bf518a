/**
 * Bundles the Worker as wrangler bundles a module worker: esbuild, ESM, the
 * workerd/worker/browser export conditions, `cloudflare:workers` left to the runtime, no
 * `nodejs_compat`. `pix-usdt/durable-object` resolves as in any project: from node_modules (in
 * this repository, the package's own built `dist/` by self-reference: run `npm run build` first).
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
    // The package as a partner installs it: not this repository's tsconfig paths to its sources.
    tsconfigRaw: {},
    metafile: true,
    logLevel: 'silent',
  });
  return Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? 'dist-worker/worker.js';
  const bytes = await buildWorker(out);
  console.log(`${out}: ${(bytes / 1024).toFixed(0)} kB`);
}
