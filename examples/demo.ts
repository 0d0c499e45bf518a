// `npm start`: the whole product in one run, offline. Against the embedded sandbox, a user goes
// through KYC, an onramp is paid and settled, an offramp arrives under-funded, waits in standby
// and is liquidated at a moved price, and a webhook receiver verifies every event it is sent.
import { PixUsdt, type Conversion } from 'pix-usdt';
import { createSandbox } from 'pix-usdt/sandbox';
import { WebhookVerificationError, constructEvent } from 'pix-usdt/webhooks';

const RECEIVER_URL = 'https://partner.example/webhooks/pix-usdt';

const sandbox = createSandbox({ seed: 2026, now: '2026-11-21T12:00:00Z' });
const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
const start = sandbox.clock.now().getTime();

function line(what: string, detail = ''): void {
  const minutes = Math.round((sandbox.clock.now().getTime() - start) / 60_000);
  const stamp = `day ${Math.floor(minutes / 1440)} ${String(Math.floor((minutes % 1440) / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  console.log(`${stamp}  ${what.padEnd(34)} ${detail}`);
}

function conversionLine(label: string, c: Conversion): void {
  const standby = c.status === 'standby' ? ` (${c.standby_reason})` : '';
  line(label, `${c.status}${standby}  expected ${c.expected_source_amount} ${c.source_currency}, received ${c.received_amount}`);
}

// The partner's receiver: verifies the signature of every delivery before trusting it.
const endpoint = await client.webhookEndpoints.create({ url: RECEIVER_URL, event_types: ['*'], description: 'demo receiver' });
let verified = 0;
sandbox.webhooks.listen(RECEIVER_URL, async (request) => {
  try {
    const event = await constructEvent(request, endpoint.secret);
    verified += 1;
    const object = event.data.object as { status?: string; kyc_status?: string };
    line(`  webhook ✓ ${event.type}`, `signature verified, object now ${object.status ?? object.kyc_status ?? ''}`);
    return new Response(null, { status: 204 });
  } catch (error) {
    line('  webhook ✗ rejected', error instanceof WebhookVerificationError ? error.reason : String(error));
    return new Response(null, { status: 400 });
  }
});
const settle = () => sandbox.webhooks.flush();

console.log('pix-usdt demo: the embedded sandbox, virtual time from 2026-11-21T12:00:00Z\n');

// 1. A user, through KYC.
const user = await client.users.create({
  external_id: 'demo-customer-1',
  name: 'Maria Silva',
  document_type: 'cpf',
  document_number: '529.982.247-25',
  email: 'maria@example.com',
});
line('user created', `${user.name}, CPF ${user.document_masked}, KYC ${user.kyc_status}`);
await settle();
const kyc = await client.testHelpers.users.kyc(user.id, { status: 'approved' });
line('KYC reviewed', `${kyc.kyc_status}, valid until ${kyc.kyc_expires_at}`);
await settle();

// 2. Onramp: BRL by Pix in, USDT out to the user's wallet.
const onrampQuote = await client.quotes.create({
  user_id: user.id,
  source_currency: 'BRL',
  target_currency: 'USDT',
  source_amount: '1000.00',
  destination_wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
  destination_wallet_network: 'polygon',
});
line('onramp quote', `${onrampQuote.source_amount} BRL -> ${onrampQuote.net_target_amount} USDT at ${onrampQuote.exchange_rate} (fee ${onrampQuote.withdrawal_fee_usdt} USDT)`);
const onramp = await client.quotes.accept(onrampQuote.id);
conversionLine('onramp accepted', onramp);
await settle();
await sandbox.clock.advance({ minutes: 2 });
const paid = await client.testHelpers.conversions.simulateOnrampPixPaid(onramp.id, { settle: true });
conversionLine('Pix paid and settled', paid);
await settle();
let wallet = await client.users.wallet(user.id);
line('wallet', `${wallet.balance} ${wallet.asset} on ${wallet.network}`);

// 3. Offramp: USDT deposited on chain, BRL paid out by Pix; the deposit comes in short.
const offrampQuote = await client.quotes.create({
  user_id: user.id,
  source_currency: 'USDT',
  target_currency: 'BRL',
  source_amount: '100.00',
  pix_key: '529.982.247-25',
  pix_key_type: 'cpf',
  deposit_network: 'polygon',
});
line('offramp quote', `${offrampQuote.source_amount} USDT -> ${offrampQuote.target_amount} BRL to ${offrampQuote.pix_holder_name}`);
const offramp = await client.quotes.accept(offrampQuote.id);
conversionLine('offramp accepted', offramp);
line('  deposit address', `${offramp.deposit_address} (${offramp.deposit_address_network})`);
await settle();
await sandbox.clock.advance({ minutes: 5 });
const short = await client.testHelpers.conversions.simulateOfframpDeposit(offramp.id, { amount: '80.00' });
conversionLine('deposit of 80 USDT', short);
await settle();

// 4. A day in standby, the price moves, the partner liquidates what arrived.
await sandbox.clock.advance({ days: 1 });
sandbox.setPrice({ midRate: '5.20' });
const liquidated = await client.conversions.liquidate(offramp.id);
conversionLine('liquidated at the new price', liquidated);
const liquidationQuote = await client.quotes.retrieve(liquidated.liquidation_quote_id!);
line('  liquidation quote', `${liquidationQuote.source_amount} USDT -> ${liquidationQuote.target_amount} BRL at ${liquidationQuote.exchange_rate}`);
await settle();
await sandbox.clock.advance({ minutes: 5 });
const done = await client.conversions.retrieve(offramp.id);
conversionLine('Pix payout settled', done);
await settle();
wallet = await client.users.wallet(user.id);
line('wallet', `${wallet.balance} ${wallet.asset}`);

// 5. What the receiver saw.
const events = sandbox.events();
console.log(`\n${events.length} events recorded, ${verified} deliveries verified by the receiver.`);
sandbox.webhooks.assertNothingPending();
if (verified < events.length) {
  console.error('Some events were not delivered and verified.');
  process.exit(1);
}
