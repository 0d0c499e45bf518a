/**
 * Tenants do not share the platform's limits (issue 17): each tenant is its own platform by
 * default, as DESIGN's "a tenant is an isolated world"; `platformScope: 'shared'` keeps one
 * platform usage across every tenant.
 */
import { describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import { type Fixture, expectCode, setup } from '../fixture.js';
import { cpf, onrampBody } from '../../support/fixtures.js';

/** A fresh tenant's 200 BRL onramp accept, through its own key. */
async function acceptInNewTenant(f: Fixture): Promise<{ conversion?: unknown; error?: unknown }> {
  const tenant = f.sandbox.createTenant();
  const client = new PixUsdt({ apiKey: tenant.apiKey, fetch: f.sandbox.fetch, maxRetries: 0 });
  const user = await client.users.create({ external_id: 'other-1', name: 'Other Tenant', document_type: 'cpf', document_number: cpf(77) });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const quote = await client.quotes.create(onrampBody(user.id, '200.00'));
  return client.quotes.accept(quote.id).then(
    (conversion) => ({ conversion }),
    (error: unknown) => ({ error }),
  );
}

describe('the platform limit', () => {
  it("by default, other tenants' volume does not count against a fresh tenant", async () => {
    const f = setup({ limits: { platform: { daily: '1000.00' } } });
    await f.conversion('onramp', '900.00');
    expect(await acceptInNewTenant(f)).toMatchObject({ conversion: { status: 'awaiting_deposit' } });
    // The level still applies within a tenant: 900 + 200 > 1,000.
    const quote = await f.onrampQuote(await f.user(), '200.00');
    await expectCode(f.client.quotes.accept(quote.id), 'transaction_limit_exceeded', 422);
    const error = await f.client.quotes.accept(quote.id).catch((e: { details?: unknown }) => e);
    expect(error).toMatchObject({ details: { limit: 'platform_daily' } });
  });

  it("with platformScope 'shared', every tenant's volume counts (platform_daily)", async () => {
    const f = setup({ limits: { platform: { daily: '1000.00' }, platformScope: 'shared' } });
    await f.conversion('onramp', '900.00');
    const { error } = await acceptInNewTenant(f);
    expect(error).toMatchObject({ code: 'transaction_limit_exceeded', details: { limit: 'platform_daily' } });
  });
});
