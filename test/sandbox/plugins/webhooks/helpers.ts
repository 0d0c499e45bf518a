/**
 * Shared fixture of the webhook tests: a frozen, seeded sandbox, the public client over
 * `sandbox.fetch`, and workload helpers.
 */
import { PixUsdt } from '../../../../src/index.js';
import { type Sandbox, type SandboxOptions, createSandbox } from '../../../../src/sandbox/index.js';
import { cpf } from '../../../support/fixtures.js';
export { cpf };

export const T0 = Date.parse('2026-03-02T12:00:00.000Z');
export const RECEIVER = 'https://partner.example/webhooks';
export const WALLET = '0x1111111111111111111111111111111111111111';


export interface Setup {
  sandbox: Sandbox;
  client: PixUsdt;
}

export function setup(options: SandboxOptions = {}, clientOptions: { maxRetries?: number } = {}): Setup {
  const sandbox = createSandbox({ seed: 'webhooks', now: T0, ...options });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: clientOptions.maxRetries ?? 0, validation: 'strict' });
  return { sandbox, client };
}

/** A user with approved KYC. */
export async function approvedUser(client: PixUsdt, n: number): Promise<string> {
  const user = await client.users.create({ external_id: `ext-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  return user.id;
}

/** An onramp quote body. */
export function onramp(userId: string, amount = '540.00') {
  return {
    user_id: userId,
    source_currency: 'BRL',
    target_currency: 'USDT',
    source_amount: amount,
    destination_wallet_address: WALLET,
    destination_wallet_network: 'polygon',
  } as const;
}
