// Testing your integration with the sandbox in vitest: every test gets its own isolated,
// in-memory platform with a frozen clock, so tests are fast, deterministic and parallel.
// Run: npx vitest run examples/testing-with-vitest.test.ts
import { PixUsdt, isApiErrorCode } from 'pix-usdt';
import { createSandbox, type Sandbox } from 'pix-usdt/sandbox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let sandbox: Sandbox;
let client: PixUsdt;

beforeEach(() => {
  sandbox = createSandbox({ now: '2026-11-21T12:00:00Z' });
  client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
});

// Nothing of a finished test fires into the next one (a dropped sandbox is collected anyway).
afterEach(() => sandbox.close());

async function approvedUser() {
  const user = await client.users.create({
    external_id: 'test-user',
    name: 'Test User',
    document_type: 'cpf',
    document_number: '529.982.247-25',
  });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  return user;
}

describe('my offramp flow', () => {
  it('refuses to accept a quote after it expired', async () => {
    const user = await approvedUser();
    const quote = await client.quotes.create({
      user_id: user.id,
      source_currency: 'USDT',
      target_currency: 'BRL',
      source_amount: '10.00',
      pix_key: '529.982.247-25',
      pix_key_type: 'cpf',
      deposit_network: 'polygon',
    });

    await sandbox.clock.advance({ minutes: 6 });

    const error = await client.quotes.accept(quote.id).catch((e: unknown) => e);
    expect(isApiErrorCode(error, 'quote_expired')).toBe(true);
    expect((await client.quotes.retrieve(quote.id)).status).toBe('expired');
  });

  it('sees an unpaid conversion expire when the deposit window closes', async () => {
    const user = await approvedUser();
    const quote = await client.quotes.create({
      user_id: user.id,
      source_currency: 'USDT',
      target_currency: 'BRL',
      source_amount: '10.00',
      pix_key: '529.982.247-25',
      pix_key_type: 'cpf',
      deposit_network: 'polygon',
    });
    const conversion = await client.quotes.accept(quote.id);

    await sandbox.clock.advance({ minutes: 15 });

    expect((await client.conversions.retrieve(conversion.id)).status).toBe('expired');
    expect(sandbox.events().map((event) => event.type)).toContain('conversion.expired');
  });
});
