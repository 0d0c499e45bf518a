// Runs inside Chromium: pix-usdt, pix-usdt/sandbox and pix-usdt/webhooks as a partner's bundler
// resolves them (the package's `exports`, so the built files of dist/), bundled for the browser.
// The runtime matrix's scenario (test/runtime/scenario.ts): a full offramp against the in-page
// sandbox, then a webhook signed and verified with WebCrypto (no Node in a page).
import { runScenario } from '../runtime/scenario.js';

(globalThis as { __result?: Promise<unknown> }).__result = runScenario().catch((error: unknown) => ({
  error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
}));
