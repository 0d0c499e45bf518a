// The browser bundles partners get: built from the published dist/ files with esbuild, as a
// bundler would, then measured. Budgets and forbidden content come from issue 6 and DESIGN.md.
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

async function browserBundle(entry: string): Promise<{ text: string; gzip: number; inputs: string[] }> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]!.text;
  return { text, gzip: gzipSync(text).length, inputs: Object.keys((result.metafile as Metafile).inputs) };
}

// Strings that only the sandbox engine (or its decimal library) contains.
const SANDBOX_MARKERS = ['[big.js]', 'notfound@sandbox.pix-usdt.com', 'Idempotent-Replayed'];

const cases = [
  { name: 'pix-usdt', dist: 'dist/index.js', src: 'src/index.ts', budget: 15 * 1024 },
  { name: 'pix-usdt/webhooks', dist: 'dist/webhooks.js', src: 'src/webhooks/index.ts', budget: 3 * 1024 },
];

describe.each(cases)('browser bundle of $name', ({ dist, src, budget }) => {
  it('is built (npm test builds before testing)', () => {
    expect(existsSync(new URL(dist, `file://${root}`)), `${dist} is missing: run npm run build`).toBe(true);
  });

  it(`stays within its gzipped budget`, async () => {
    const { gzip } = await browserBundle(dist);
    expect(gzip).toBeGreaterThan(0);
    expect(gzip).toBeLessThanOrEqual(budget);
  });

  it('carries no sandbox code and no Node built-in', async () => {
    const { text } = await browserBundle(dist);
    for (const marker of SANDBOX_MARKERS) expect(text).not.toContain(marker);
    expect(text).not.toMatch(/["']node:[a-z_]+["']/);
    expect(text).not.toMatch(/\brequire\(/);
  });

  it('pulls in no source file of the sandbox, the server or msw', async () => {
    const { inputs } = await browserBundle(src);
    const leaks = inputs.filter((p) => /src\/(sandbox|server)\/|node_modules\/(msw|big\.js)\//.test(p));
    expect(leaks).toEqual([]);
  });
});

// The markers above prove nothing unless the sandbox bundle really carries them.
describe('sandbox markers', () => {
  it('are present in the sandbox bundle, so their absence above means something', async () => {
    const { text } = await browserBundle('dist/sandbox.js');
    for (const marker of SANDBOX_MARKERS) expect(text).toContain(marker);
  });
});
