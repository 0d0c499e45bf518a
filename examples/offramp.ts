// Offramp: a user deposits USDT on chain and receives BRL by Pix.
// Run: npx tsx examples/offramp.ts
import { PixUsdt } from 'pix-usdt';
import { SANDBOX_PIX_EMAIL, createSandbox } from 'pix-usdt/sandbox';

const sandbox = createSandbox();
const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });

const user = await client.users.create({
  external_id: 'offramp-example',
  name: 'Ana Souza',
  document_type: 'cpf',
  document_number: '390.533.447-05',
});
await client.testHelpers.users.kyc(user.id, { status: 'approved' });

// The payout goes to a Pix key; the sandbox resolves a fixed e-mail key to a synthetic holder.
const quote = await client.quotes.create({
  user_id: user.id,
  source_currency: 'USDT',
  target_currency: 'BRL',
  source_amount: '50.00',
  pix_key: SANDBOX_PIX_EMAIL,
  pix_key_type: 'email',
  deposit_network: 'polygon',
});
console.log(`quote: ${quote.source_amount} USDT -> ${quote.target_amount} BRL paid to ${quote.pix_holder_name}`);

const conversion = await client.quotes.accept(quote.id);
console.log(`deposit ${conversion.expected_source_amount} USDT to ${conversion.deposit_address} before ${conversion.deposit_window_expires_at}`);

// The exact amount arrives and the Pix payout settles.
const completed = await client.testHelpers.conversions.simulateOfframpDeposit(conversion.id, { settle: true });
console.log(`conversion ${completed.status} at ${completed.completed_at}`);
