/**
 * The data the test suites and the benches make up, in one place: documents and Pix keys, a
 * wallet, the bodies of a user and of onramp and offramp quotes, an approved user. A test that
 * needs other values passes them (an amount, a user number) rather than writing a body again.
 *
 * Partners have the same kind of fixtures in `pix-usdt/testing` (`SCENARIO_WALLET_ADDRESS`,
 * `quoteRequest`, `approvedUser`); these are ours, with fixed defaults the tests' figures were
 * written against (an onramp of 540.00 BRL, an offramp of 100.000000 USDT to a fixed CPF key), and
 * light to import (no client code at run time: benches import it too).
 */
import type { PixUsdt } from '../../src/index.js';
import { withCheckDigits } from '../../src/pix/documents.js';

/** A valid CPF (check digits from the Pix toolkit), distinct for every `n` below 800,000,000. */
export function cpf(n: number): string {
  // 7,919 is prime to 800,000,000: n -> n * 7,919 mod 800,000,000 never repeats below it.
  return withCheckDigits(String(100_000_000 + ((n * 7919) % 800_000_000)), 10);
}

/** A valid CPF (check digits right), as a document or a `cpf` Pix key: the one used where any will do. */
export const CPF = '52998224725';

/** A Pix key of type `evp` (a random key) that resolves in a sandbox. */
export const EVP = '00000000-0000-0000-0000-000000000001';

/**
 * A wallet address for onramps (EIP-55 checksummed; no funds move in a sandbox): the one of the
 * docs and examples, and of `pix-usdt/testing`'s `SCENARIO_WALLET_ADDRESS`.
 */
export const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

/** The body that creates user `n`: external id `ext-n`, name `User n`, CPF `cpf(n)`. */
export function userBody(n: number) {
  return { external_id: `ext-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) } as const;
}

/** An onramp quote body: `amount` BRL paid by Pix for USDT delivered to {@link WALLET} on Polygon. */
export function onrampBody(userId: string, amount = '540.00') {
  return {
    user_id: userId,
    source_currency: 'BRL',
    target_currency: 'USDT',
    source_amount: amount,
    destination_wallet_address: WALLET,
    destination_wallet_network: 'polygon',
  } as const;
}

/** An offramp quote body: `amount` USDT deposited on Polygon for BRL paid to the Pix key {@link CPF}. */
export function offrampBody(userId: string, amount = '100.000000') {
  return {
    user_id: userId,
    source_currency: 'USDT',
    target_currency: 'BRL',
    source_amount: amount,
    pix_key: CPF,
    pix_key_type: 'cpf',
    deposit_network: 'polygon',
  } as const;
}

/** What {@link approvedUser} calls: the client's users and its KYC test helper. */
export type UserClient = Pick<PixUsdt, 'users'> & { testHelpers: Pick<PixUsdt['testHelpers'], 'users'> };

/** Creates user `n` ({@link userBody}) through the client and approves its KYC; answers its id. */
export async function approvedUser(client: UserClient, n = 1): Promise<string> {
  const user = await client.users.create(userBody(n));
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  return user.id;
}
