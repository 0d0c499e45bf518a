// A real browser: Chromium driven by playwright-core loads the built ESM bundle and runs a
// conversion against the in-page sandbox plus a WebCrypto webhook verification. The browser is
// the one test/support/browser.ts picks: CHROMIUM_PATH, Debian's, else the one npm installed
// (@sparticuz/chromium), so it runs on a machine with only Node and npm; if none can start, the
// test fails loudly rather than pass.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedPage, launchChromium, servePage } from '../support/browser.js';

let served: ServedPage | undefined;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  served = await servePage('test/browser/page.ts', { title: 'pix-usdt', mustBundle: 'dist/index.js' });
  origin = served.origin;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
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
