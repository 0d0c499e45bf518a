// The Pix checkout example in real Chromium: the page (pix-checkout-page.ts) creates an onramp
// conversion against the in-page sandbox and shows its QR code and copy-paste string. The test
// takes a screenshot for the docs and reads the QR code as Chromium draws it, with jsQR.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import jsQR from 'jsqr';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedPage, launchChromium, servePage } from '../support/browser.js';

const root = new URL('../../', import.meta.url).pathname;

let served: ServedPage | undefined;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  served = await servePage('test/browser/pix-checkout-page.ts', { title: 'Pix checkout', mustBundle: 'dist/pix.js' });
  origin = served.origin;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
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

    // The docs' image is written when missing or with UPDATE_SCREENSHOTS=1, so a test run leaves
    // the tree clean (PNG encoders differ by a few bytes between runs); the screenshot is always taken.
    const shot = await page.screenshot();
    expect(shot.byteLength).toBeGreaterThan(1000);
    const image = `${root}docs/images/pix-checkout.png`;
    if (process.env['UPDATE_SCREENSHOTS'] === '1' || !existsSync(image)) {
      mkdirSync(`${root}docs/images`, { recursive: true });
      writeFileSync(image, shot);
    }

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
