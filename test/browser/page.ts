// Runs inside Chromium: pix-usdt, pix-usdt/sandbox and pix-usdt/webhooks as a partner's bundler
// resolves them (the package's `exports`, so the built files of dist/), bundled for the browser.
// A full offramp against the in-page sandbox, then a webhook signed and verified with WebCrypto
// (no Node in a page).
import { PixUsdt } from 'pix-usdt';
import { createSandbox } from 'pix-usdt/sandbox';
import { constructEvent, signPayload } from 'pix-usdt/webhooks';

async function scenario() {
  const sandbox = createSandbox({ now: '2026-11-21T12:00:00Z' });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
  const user = await client.users.create({
    external_id: 'browser-user',
    name: 'Browser User',
    document_type: 'cpf',
    document_number: '529.982.247-25',
  });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const quote = await client.quotes.create({
    user_id: user.id,
    source_currency: 'USDT',
    target_currency: 'BRL',
    source_amount: '25.00',
    pix_key: '00000000-0000-0000-0000-000000000001',
    pix_key_type: 'evp',
    deposit_network: 'polygon',
  });
  const accepted = await client.quotes.accept(quote.id);
  const completed = await client.testHelpers.conversions.simulateOfframpDeposit(accepted.id, { settle: true });

  const secret = 'whsec_browser_test_secret_0123456789';
  const envelope = { id: 'evt_1', type: 'conversion.completed', created_at: '2026-11-21T12:00:00Z', data: { object: completed } };
  const raw = JSON.stringify(envelope);
  const timestamp = Math.floor(Date.parse('2026-11-21T12:00:00Z') / 1000);
  const signature = await signPayload(raw, secret, { timestamp });
  const headers = new Headers({ 'X-Service-Signature': signature, 'X-Service-Event-Id': 'evt_1' });
  const event = await constructEvent(raw, headers, secret, { now: new Date('2026-11-21T12:01:00Z') });
  let tampered = 'accepted';
  try {
    await constructEvent(raw.replace('completed', 'failed'), headers, secret, { now: new Date('2026-11-21T12:01:00Z') });
  } catch (error) {
    tampered = (error as { reason?: string }).reason ?? 'rejected';
  }
  return {
    statuses: [accepted.status, completed.status],
    events: sandbox.events().map((e) => e.type),
    verifiedType: event.type,
    tampered,
    hasProcess: typeof (globalThis as { process?: unknown }).process !== 'undefined',
    hasBuffer: typeof (globalThis as { Buffer?: unknown }).Buffer !== 'undefined',
  };
}

(globalThis as { __result?: Promise<unknown> }).__result = scenario().catch((error: unknown) => ({
  error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
}));
