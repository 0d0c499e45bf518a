// Onramp: a user pays BRL by Pix and receives USDT in a wallet.
// Run: npx tsx examples/onramp.ts (against the in-process sandbox; set PIX_USDT_API_KEY for the real API).
import { PixUsdt } from 'pix-usdt';
import { createSandbox } from 'pix-usdt/sandbox';

const sandbox = createSandbox();
const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });

const user = await client.users.create({
  external_id: 'onramp-example',
  name: 'João Pereira',
  document_type: 'cpf',
  document_number: '111.444.777-35',
});
await client.testHelpers.users.kyc(user.id, { status: 'approved' });

const quote = await client.quotes.create({
  user_id: user.id,
  source_currency: 'BRL',
  target_currency: 'USDT',
  source_amount: '250.00',
  destination_wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
  destination_wallet_network: 'polygon',
});
console.log(`quote ${quote.id}: ${quote.source_amount} BRL -> ${quote.net_target_amount} USDT, valid until ${quote.expires_at}`);

const conversion = await client.quotes.accept(quote.id);
console.log(`conversion ${conversion.status}; the user pays this Pix code: ${conversion.pix_qr_code}`);

// In the sandbox, a test helper stands in for the user's bank paying the Pix charge.
const completed = await client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id, { settle: true });
const wallet = await client.users.wallet(user.id);
console.log(`conversion ${completed.status}; wallet ${wallet.balance} ${wallet.asset}`);
