// A real browser: Chromium driven by playwright-core loads the built ESM bundle and runs a
// conversion against the in-page sandbox plus a WebCrypto webhook verification. The browser is
// the one test/support/browser.ts picks: CHROMIUM_PATH, Debian's, else the one npm installed
// (@sparticuz/chromium), so it runs on a machine with only Node and npm; if none can start, the
// test fails loudly rather than pass.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';

const root = new URL('../../', import.meta.url).pathname;

let server: Server;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  if (!existsSync(`${root}dist/index.js`)) throw new Error('dist/ is missing: run npm run build first.');
  const bundle = await build({
    entryPoints: [`${root}test/browser/page.ts`],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    // Not the repository's tsconfig paths (which map pix-usdt to src/): the package's exports.
    tsconfigRaw: '{}',
  });
  const sources = Object.keys(bundle.metafile.inputs).filter((input) => !input.includes('node_modules/'));
  if (!sources.some((input) => input.startsWith('dist/')) || sources.some((input) => input.startsWith('src/'))) {
    throw new Error(`The page must bundle the built package, not the sources: ${sources.join(', ')}`);
  }
  const script = bundle.outputFiles[0]!.text;
  const html = '<!doctype html><meta charset="utf-8"><title>pix-usdt</title><script type="module" src="/page.js"></script>';
  server = createServer((req, res) => {
    if (req.url === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  // A beforeAll that threw before listening leaves a server that never started: close() on it
  // would wait for a 'close' event that never comes.
  if (server?.listening) await new Promise((resolve) => server.close(resolve));
});

describe('in Chromium', () => {
  it('runs a conversion against the in-page sandbox and verifies a webhook with WebCrypto', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(origin);
    await page.waitForFunction(() => '__result' in globalThis);
    const result = await page.evaluate(() => (globalThis as unknown as { __result: Promise<unknown> }).__result);
    expect(errors).toEqual([]);
    expect(result).toMatchObject({
      statuses: ['awaiting_deposit', 'completed'],
      verifiedType: 'conversion.completed',
      tampered: 'no_matching_signature',
      hasProcess: false,
      hasBuffer: false,
    });
    expect((result as { events: string[] }).events).toEqual(
      expect.arrayContaining(['user.kyc_approved', 'conversion.created', 'conversion.completed']),
    );
  }, 60_000);
});
