/**
 * The published face: `pix-usdt/sandbox/msw` resolved through the package's `exports` (from
 * dist/, so `npm run build` first; npm test builds), in ESM and in CommonJS, in a plain Node process.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

const ESM = `
import { setupServer } from 'msw/node';
import { createSandbox } from 'pix-usdt/sandbox';
import { createSandboxHandlers } from 'pix-usdt/sandbox/msw';
const sandbox = createSandbox();
const server = setupServer(...createSandboxHandlers(sandbox));
server.listen({ onUnhandledRequest: 'error' });
const res = await fetch('https://sandbox.pix-usdt.com/v1/users', { headers: { authorization: 'Bearer ' + sandbox.apiKey } });
console.log(JSON.stringify({ status: res.status, body: await res.json() }));
server.close();
`;

const CJS = `
const { setupServer } = require('msw/node');
const { createSandbox } = require('pix-usdt/sandbox');
const { createSandboxHandlers } = require('pix-usdt/sandbox/msw');
const sandbox = createSandbox();
const server = setupServer(...createSandboxHandlers(sandbox, { baseUrl: 'https://api.test' }));
server.listen({ onUnhandledRequest: 'error' });
fetch('https://api.test/v1/users', { headers: { authorization: 'Bearer ' + sandbox.apiKey } })
  .then(async (res) => console.log(JSON.stringify({ status: res.status, body: await res.json() })))
  .finally(() => server.close());
`;

function node(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--no-warnings', ...args], { cwd: root, timeout: 20_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

describe('pix-usdt/sandbox/msw from dist', () => {
  it.each([
    ['ESM', ['--input-type=module', '-e', ESM]],
    ['CommonJS', ['--input-type=commonjs', '-e', CJS]],
  ])('%s: resolves through exports and answers from the sandbox', async (_name, args) => {
    const out = JSON.parse(await node(args)) as { status: number; body: unknown };
    expect(out).toEqual({ status: 200, body: { data: [], next_cursor: null } });
  });

  it('the entry imports msw and the network-fault marker only (no copy of the engine)', () => {
    const read = (file: string) => readFileSync(new URL(`dist/${file}`, `file://${root}`), 'utf8');
    const importsOf = (text: string) => [...text.matchAll(/^import .* from ['"]([^'"]+)['"];?$/gm)].map((m) => m[1]!);
    const text = read('sandbox-msw.js');
    const chunks = importsOf(text).filter((spec) => spec.startsWith('./'));
    expect(importsOf(text).filter((spec) => !spec.startsWith('./'))).toEqual(['msw']);
    for (const chunk of chunks) {
      const code = read(chunk.slice(2));
      expect(importsOf(code)).toEqual([]); // a leaf: nothing of the engine behind it
      expect(code).toContain('x-pix-usdt-sandbox-fault');
      expect(code.length).toBeLessThan(2_000);
    }
    for (const code of [text, ...chunks.map((c) => read(c.slice(2)))]) expect(code).not.toContain('sk_test_'); // the engine issues keys
  });
});
