// The Pix checkout example in real Chromium: the page (pix-checkout-page.ts) creates an onramp
// conversion against the in-page sandbox and shows its QR code and copy-paste string. The test
// takes a screenshot for the docs and reads the QR code as Chromium draws it, with jsQR.
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import jsQR from 'jsqr';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';

const root = new URL('../../', import.meta.url).pathname;

let server: Server;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  if (!existsSync(`${root}dist/pix.js`)) throw new Error('dist/ is missing: run npm run build first.');
  const bundle = await build({
    entryPoints: [`${root}test/browser/pix-checkout-page.ts`],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    // The package's exports (dist/), as a partner's bundler resolves them, not tsconfig's paths to src/.
    tsconfigRaw: '{}',
  });
  const sources = Object.keys(bundle.metafile.inputs).filter((input) => !input.includes('node_modules/'));
  if (!sources.includes('dist/pix.js') || sources.some((input) => input.startsWith('src/'))) {
    throw new Error(`The page must bundle the built package, not the sources: ${sources.join(', ')}`);
  }
  const script = bundle.outputFiles[0]!.text;
  const html = '<!doctype html><meta charset="utf-8"><title>Pix checkout</title><body></body><script type="module" src="/page.js"></script>';
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
  if (server?.listening) await new Promise((resolve) => server.close(resolve));
});

describe('Pix checkout in Chromium', () => {
  it("shows the conversion's QR code and copy-paste string; the QR decodes to pix_qr_code", async () => {
    const page = await browser.newPage({ viewport: { width: 520, height: 640 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(origin);
    await page.waitForFunction(() => '__checkout' in globalThis);
    const result = (await page.evaluate(() => (globalThis as unknown as { __checkout: Promise<unknown> }).__checkout)) as {
      conversionId: string;
      pixQrCode: string;
      valid: boolean;
      error?: string;
    };
    expect(errors).toEqual([]);
    expect(result.error).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(result.pixQrCode).toMatch(/^000201/);

    mkdirSync(`${root}docs/images`, { recursive: true });
    await page.screenshot({ path: `${root}docs/images/pix-checkout.png` });

    expect(await page.inputValue('#copy')).toBe(result.pixQrCode);
    // The QR as Chromium draws it: the page's <svg> rasterized on a canvas, its pixels read by jsQR.
    const pixels = await page.evaluate(async () => {
      const svg = document.querySelector('#qr svg') as SVGSVGElement;
      const image = new Image();
      image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = canvas.height = 480;
      const context = canvas.getContext('2d') as CanvasRenderingContext2D;
      context.drawImage(image, 0, 0, 480, 480);
      return Array.from(context.getImageData(0, 0, 480, 480).data);
    });
    expect(jsQR(Uint8ClampedArray.from(pixels), 480, 480)?.data).toBe(result.pixQrCode);
    await page.close();
  }, 60_000);
});
