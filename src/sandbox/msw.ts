/**
 * `pix-usdt/sandbox/msw`: the sandbox behind [msw](https://mswjs.io) request handlers, so code
 * that calls the API with any HTTP stack (the client, `fetch`, axios, got, undici...) reaches
 * an in-process sandbox, in Node (`setupServer`) and in the browser (`setupWorker`).
 *
 * msw is an optional peer dependency: install it (`npm install -D msw`) to use this entry.
 *
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { createSandbox } from 'pix-usdt/sandbox';
 * import { createSandboxHandlers } from 'pix-usdt/sandbox/msw';
 *
 * const sandbox = createSandbox();
 * const server = setupServer(...createSandboxHandlers(sandbox));
 * server.listen({ onUnhandledRequest: 'error' });
 *
 * // Any request to https://sandbox.pix-usdt.com/v1/... is now answered by the sandbox:
 * const res = await fetch('https://sandbox.pix-usdt.com/v1/users', {
 *   headers: { authorization: `Bearer ${sandbox.apiKey}` },
 * });
 * ```
 * @module
 */
import { type HttpHandler, HttpResponse, http } from 'msw';
import { isNetworkFault } from './plugins/faults/marker.js';
import type { Sandbox } from './index.js';

/** The sandbox API's public base URL, the client's default for `sk_test_` keys. */
const DEFAULT_BASE_URL = 'https://sandbox.pix-usdt.com';

/** Options of {@link createSandboxHandlers}. */
export interface SandboxHandlersOptions {
  /**
   * The base URL (or URLs) whose `/v1/*` requests the sandbox answers, without a trailing
   * path: the `baseUrl` the code under test calls. Default `https://sandbox.pix-usdt.com`.
   */
  baseUrl?: string | readonly string[];
}

function normalize(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`Invalid baseUrl ${JSON.stringify(baseUrl)}: expected an absolute URL such as ${DEFAULT_BASE_URL}.`);
  }
  if (url.search !== '' || url.hash !== '') throw new TypeError(`Invalid baseUrl ${JSON.stringify(baseUrl)}: no query or fragment.`);
  return url.href.replace(/\/+$/, '');
}

/**
 * msw request handlers that answer every method on `${baseUrl}/v1/*` with the sandbox
 * (`sandbox.handle(request)`): the same answers as `sandbox.fetch` and the sandbox server.
 * Requests elsewhere are left to your other handlers (or msw's `onUnhandledRequest`).
 *
 * @param sandbox - A sandbox from `createSandbox()`.
 * @param options - The base URL(s) to intercept.
 * @returns Handlers for `setupServer(...handlers)` (Node) or `setupWorker(...handlers)` (browser).
 *
 * @example
 * ```ts
 * // Browser, in development: a local base URL your app is configured with.
 * import { setupWorker } from 'msw/browser';
 * const worker = setupWorker(...createSandboxHandlers(createSandbox(), { baseUrl: 'https://api.test' }));
 * await worker.start();
 * ```
 */
export function createSandboxHandlers(sandbox: Pick<Sandbox, 'handle'>, options: SandboxHandlersOptions = {}): HttpHandler[] {
  const raw = options.baseUrl ?? DEFAULT_BASE_URL;
  const bases = typeof raw === 'string' ? [raw] : [...raw];
  if (bases.length === 0) throw new TypeError('baseUrl: give at least one base URL.');
  return [...new Set(bases.map(normalize))].map((base) =>
    http.all(`${base}/v1/*`, async ({ request }) => {
      let response: Response;
      try {
        response = await sandbox.handle(request);
      } catch (error) {
        // A closed sandbox is a stopped server: the caller's fetch rejects. (By name: this entry
        // carries no copy of the sandbox's code, and the error may come from another bundle.)
        if (error instanceof Error && error.name === 'SandboxClosedError') return HttpResponse.error();
        throw error;
      }
      // An injected network fault: the caller's fetch rejects, as on a real connection failure.
      return isNetworkFault(response) ? HttpResponse.error() : response;
    }),
  );
}
