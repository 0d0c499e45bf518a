/**
 * Shared fixture of the webhook tests: a frozen, seeded sandbox and the public client over
 * `sandbox.fetch` (users and quote bodies: test/support/fixtures.ts).
 */
import { PixUsdt } from '../../../../src/index.js';
import { type Sandbox, type SandboxOptions, createSandbox } from '../../../../src/sandbox/index.js';

export const T0 = Date.parse('2026-03-02T12:00:00.000Z');
export const RECEIVER = 'https://partner.example/webhooks';

export interface Setup {
  sandbox: Sandbox;
  client: PixUsdt;
}

export function setup(options: SandboxOptions = {}, clientOptions: { maxRetries?: number } = {}): Setup {
  const sandbox = createSandbox({ seed: 'webhooks', now: T0, ...options });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: clientOptions.maxRetries ?? 0, validation: 'strict' });
  return { sandbox, client };
}
