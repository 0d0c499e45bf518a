// The one way tests reach a real browser. Every browser test (and bench) launches Chromium
// through launchChromium(), so where the binary comes from is decided in one place.
// Today: CHROMIUM_PATH, else Debian's /usr/bin/chromium. (Issue 10 adds a browser that installs
// from npm, so a fresh machine with only Node and npm runs the browser tests too.)
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the Chromium binary is, or an Error that says how to get one. */
export async function chromiumExecutable(): Promise<string> {
  const path = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(`Chromium is not installed at ${path}: the browser test cannot run. Install it (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  }
  return path;
}

/** Launches headless Chromium for a test. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: await chromiumExecutable(), args: CHROMIUM_ARGS });
}
