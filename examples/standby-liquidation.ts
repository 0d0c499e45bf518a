// Standby and liquidation: an under-funded offramp waits in standby; the partner liquidates
// what arrived at the price of the moment, or lets it be abandoned after 7 days.
// Run: npx tsx examples/standby-liquidation.ts
import { PixUsdt, isApiErrorCode } from 'pix-usdt';
import { createSandbox } from 'pix-usdt/sandbox';

const sandbox = createSandbox({ now: '2026-11-21T09:00:00Z' });
const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });

const user = await client.users.create({
  external_id: 'standby-example',
  name: 'Carla Dias',
  document_type: 'cpf',
  document_number: '529.982.247-25',
});
await client.testHelpers.users.kyc(user.id, { status: 'approved' });

async function underFundedOfframp() {
  const quote = await client.quotes.create({
    user_id: user.id,
    source_currency: 'USDT',
    target_currency: 'BRL',
    source_amount: '200.00',
    pix_key: '00000000-0000-0000-0000-000000000001',
    pix_key_type: 'evp',
    deposit_network: 'polygon',
  });
  const conversion = await client.quotes.accept(quote.id);
  return client.testHelpers.conversions.simulateOfframpDeposit(conversion.id, { amount: '150.00' });
}

// A standby sweep finds conversions waiting for a decision.
const first = await underFundedOfframp();
console.log(`${first.id}: ${first.status} (${first.standby_reason}), ${first.received_amount} of ${first.expected_source_amount} USDT; decide before ${first.standby_expires_at}`);
for await (const waiting of client.conversions.list({ status: 'standby' })) {
  console.log(`sweep found ${waiting.id} in standby`);
}

// Liquidate: a new quote over the received amount, at the current price.
sandbox.setPrice({ midRate: '5.05' });
const liquidated = await client.conversions.liquidate(first.id);
console.log(`liquidated with quote ${liquidated.liquidation_quote_id}; status ${liquidated.status}`);

// A second conversion left alone is abandoned after 7 days; it can no longer be liquidated.
const second = await underFundedOfframp();
await sandbox.clock.advance({ days: 7, minutes: 1 });
console.log(`${second.id}: ${(await client.conversions.retrieve(second.id)).status}`);
try {
  await client.conversions.liquidate(second.id);
} catch (error) {
  if (isApiErrorCode(error, 'invalid_transaction_state')) console.log(`liquidate refused: ${error.code}`);
  else throw error;
}
