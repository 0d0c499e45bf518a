/**
 * The `pix-usdt/parity` entry proves the sandbox, so it must not share its code: bundled for a
 * browser from its source and from dist/, it pulls in no module of the sandbox, the server or
 * msw, imports no Node built-in, and `pix-usdt`'s own bundle does not grow by it.
 */
import { existsSync } from 'node:fs';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

async function bundle(entry: string): Promise<{ text: string; inputs: string[] }> {
  const result = await build({ entryPoints: [entry], absWorkingDir: root, bundle: true, format: 'esm', platform: 'browser', write: false, metafile: true, logLevel: 'silent' });
  return { text: result.outputFiles[0]?.text ?? '', inputs: Object.keys((result.metafile as Metafile).inputs) };
}

describe('pix-usdt/parity entry', () => {
  it('pulls in no source of the sandbox, the server or msw (only the client, webhooks, models, internal and parity)', async () => {
    const { inputs } = await bundle('src/parity/index.ts');
    const ours = inputs.filter((p) => p.startsWith('src/'));
    expect(ours.some((p) => p.startsWith('src/parity/'))).toBe(true);
    expect(ours.filter((p) => !/^src\/(parity|client|resources|models|internal|webhooks)\/|^src\/index\.ts$/.test(p))).toEqual([]);
    expect(inputs.filter((p) => /node_modules\/msw\//.test(p))).toEqual([]);
  });

  it('the built entry imports no Node built-in and is not reached from pix-usdt', async () => {
    expect(existsSync(`${root}dist/parity.js`), 'dist/parity.js is missing: run npm run build').toBe(true);
    const { text } = await bundle('dist/parity.js');
    expect(/(?:\bfrom|\bimport\s*\(|\brequire\s*\()\s*["']node:/.exec(text)?.[0] ?? null).toBeNull();
    expect(text).toContain('runConformance');
    const client = await bundle('dist/index.js');
    expect(client.inputs.filter((p) => p.includes('parity'))).toEqual([]);
    expect(client.text.includes('UnrecordedRequestError')).toBe(false);
  });
});
