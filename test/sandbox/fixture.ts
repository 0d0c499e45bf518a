/**
 * Scenario fixture: a frozen, seeded sandbox and the public client over `sandbox.fetch`.
 */
import { expect } from 'vitest';
import { PixUsdt } from '../../src/index.js';
import type { Conversion, Quote } from '../../src/models/index.js';
import { type Sandbox, type SandboxOptions, createSandbox } from '../../src/sandbox/index.js';
import { WALLET, cpf } from './raw.js';

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
      const u = await client.users.create({ external_id: `ext-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
      if (approve) await client.testHelpers.users.kyc(u.id, { status: 'approved' });
      return u.id;
    },
    onrampQuote: (userId, amount = '540.00') =>
      client.quotes.create({
        user_id: userId,
        source_currency: 'BRL',
        target_currency: 'USDT',
        source_amount: amount,
        destination_wallet_address: WALLET,
        destination_wallet_network: 'polygon',
      }),
    offrampQuote: (userId, amount = '100.000000') =>
      client.quotes.create({
        user_id: userId,
        source_currency: 'USDT',
        target_currency: 'BRL',
        source_amount: amount,
        pix_key: '52998224725',
        pix_key_type: 'cpf',
        deposit_network: 'polygon',
      }),
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
