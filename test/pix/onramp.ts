// An onramp conversion against a fresh sandbox, with a seed and a fixed clock so that its ids and
// its pix_qr_code are the same every run. Shared by the Node tests and the browser checkout page
// (which bundles it with the built package).
import { PixUsdt } from 'pix-usdt';
import { createSandbox } from 'pix-usdt/sandbox';

/** Creates a KYC-approved user, an onramp quote of 250.00 BRL and accepts it. */
export async function onrampConversion() {
  const sandbox = createSandbox({ seed: 14, now: '2026-11-23T12:00:00Z' });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
  const user = await client.users.create({ external_id: 'checkout-user', name: 'Ana Silva', document_type: 'cpf', document_number: '529.982.247-25' });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const quote = await client.quotes.create({
    user_id: user.id,
    source_currency: 'BRL',
    target_currency: 'USDT',
    source_amount: '250.00',
    destination_wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7',
    destination_wallet_network: 'polygon',
  });
  const conversion = await client.quotes.accept(quote.id);
  return { sandbox, client, quote, conversion };
}
