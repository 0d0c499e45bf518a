import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const BUDGET = 3072; // bytes, gzipped (issue 4)

describe('pix-usdt/webhooks browser bundle', () => {
  it('stays under 3 kB gzipped and pulls in nothing but src/webhooks', async () => {
    const result = await build({
      entryPoints: ['src/webhooks/index.ts'],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]?.text ?? '';
    const gzipped = gzipSync(code).length;
    expect(code.length).toBeGreaterThan(1000); // it did build the entry
    expect(gzipped).toBeLessThan(BUDGET);

    // Only our own webhook modules: no models by value (zod), no sandbox, no ky.
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.length).toBeGreaterThan(0);
    for (const input of inputs) expect(input).toMatch(/^src\/webhooks\//);
    for (const leak of ['sandbox', 'zod', 'msw', 'ZodMini', 'HTTPError']) expect(code).not.toContain(leak);

    // No static or dynamic import of a Node built-in, nor any other import at all.
    expect(code).not.toMatch(/\bfrom\s*["']node:/);
    expect(code).not.toMatch(/\bimport\s*\(\s*["']node:/);
    expect(code).not.toMatch(/\brequire\s*\(/);
    expect(code).not.toMatch(/^import\b|[;}]import[\s{*"']/m);
  });
});
