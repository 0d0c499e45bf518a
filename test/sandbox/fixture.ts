/**
 * Scenario fixture: a frozen, seeded sandbox and the public client over `sandbox.fetch`.
 */
import { expect } from 'vitest';
import { PixUsdt } from '../../src/index.js';
import type { Conversion, Quote } from '../../src/models/index.js';
import { type Sandbox, type SandboxOptions, createSandbox } from '../../src/sandbox/index.js';
import { approvedUser, offrampBody, onrampBody, userBody } from '../support/fixtures.js';

export const T0 = Date.parse('2026-03-02T12:00:00.000Z');

export interface Fixture {
  sandbox: Sandbox;
  client: PixUsdt;
  /** Types of the events recorded since the last call. */
  newEvents(): Array<{ type: string; object: Record<string, unknown> }>;
  user(n?: number, approve?: boolean): Promise<string>;
  onrampQuote(userId: string, amount?: string): Promise<Quote>;
  offrampQuote(userId: string, amount?: string): Promise<Quote>;
  conversion(direction: 'onramp' | 'offramp', amount?: string): Promise<Conversion>;
  iso(offsetMs: number): string;
}

export function setup(options: SandboxOptions = {}): Fixture {
  const sandbox = createSandbox({ seed: 'scenario', now: T0, ...options });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0, validation: 'strict' });
  let seen = 0;
  let users = 0;
  const f: Fixture = {
    sandbox,
    client,
    newEvents() {
      const all = sandbox.events();
      const out = all.slice(seen).map((e) => ({ type: e.type, object: e.data.object }));
      seen = all.length;
      return out;
    },
    async user(n = ++users, approve = true) {
      if (approve) return approvedUser(client, n);
      return (await client.users.create(userBody(n))).id;
    },
    onrampQuote: (userId, amount) => client.quotes.create(onrampBody(userId, amount)),
    offrampQuote: (userId, amount) => client.quotes.create(offrampBody(userId, amount)),
    async conversion(direction, amount) {
      const userId = await f.user();
      const quote = direction === 'onramp' ? await f.onrampQuote(userId, amount) : await f.offrampQuote(userId, amount);
      const conv = await client.quotes.accept(quote.id);
      f.newEvents();
      return conv;
    },
    iso: (offsetMs) => new Date(sandbox.clock.now().getTime() + offsetMs).toISOString(),
  };
  return f;
}

/** Asserts that a promise rejects with an API error of this code and status. */
export async function expectCode(promise: Promise<unknown>, code: string, status: number): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}`).not.toBeNull();
  expect(error).toMatchObject({ code, status });
}
