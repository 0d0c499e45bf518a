/**
 * `CreateQuoteBody` takes exactly one of `source_amount` and `target_amount` (issue 10), in the
 * type and at run time. The `@ts-expect-error` lines are checked by `npm run typecheck` (tsc
 * compiles test/): if the type accepts both amounts or neither again, they become unused
 * directives and the typecheck fails. The `expectTypeOf` lines fail the same way.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { OfframpQuoteBody, OnrampQuoteBody, PixUsdt, QuoteAmount } from '../../src/index.js';
import { CreateQuoteBody } from '../../src/models/public.js';
import { parseRequest } from '../../src/models/issues.js';

const USER = '00000000-0000-4000-8000-000000000000';
const onramp = {
  user_id: USER,
  source_currency: 'BRL',
  target_currency: 'USDT',
  destination_wallet_address: `0x${'a'.repeat(40)}`,
  destination_wallet_network: 'polygon',
} as const;
const offramp = {
  user_id: USER,
  source_currency: 'USDT',
  target_currency: 'BRL',
  pix_key: '52998224725',
  pix_key_type: 'cpf',
  deposit_network: 'polygon',
} as const;

// ---- compile time ----

export const accepted: CreateQuoteBody[] = [
  { ...onramp, source_amount: '100.00' },
  { ...onramp, target_amount: '20.000000' },
  { ...offramp, source_amount: '20.000000' },
  { ...offramp, target_amount: '100.00' },
];

// @ts-expect-error both amounts (onramp)
export const onrampBoth: CreateQuoteBody = { ...onramp, source_amount: '1', target_amount: '2' };
// @ts-expect-error neither amount (onramp)
export const onrampNeither: CreateQuoteBody = { ...onramp };
// @ts-expect-error both amounts (offramp)
export const offrampBoth: CreateQuoteBody = { ...offramp, source_amount: '1', target_amount: '2' };
// @ts-expect-error neither amount (offramp)
export const offrampNeither: CreateQuoteBody = { ...offramp };
// @ts-expect-error both amounts, through the direction's own type
export const onrampTypeBoth: OnrampQuoteBody = { ...onramp, source_amount: '1', target_amount: '2' };
// @ts-expect-error neither amount, through the direction's own type
export const offrampTypeNeither: OfframpQuoteBody = { ...offramp };

// The client method takes the same type.
export async function compileOnly(client: PixUsdt): Promise<void> {
  await client.quotes.create({ ...onramp, source_amount: '100.00' });
  // @ts-expect-error both amounts, at the call
  await client.quotes.create({ ...onramp, source_amount: '100.00', target_amount: '20' });
  // @ts-expect-error neither amount, at the call
  await client.quotes.create({ ...offramp });
}

describe('CreateQuoteBody: exactly one amount', () => {
  it('in the type', () => {
    expectTypeOf<{ source_amount: string; target_amount: string }>().not.toExtend<QuoteAmount>();
    expectTypeOf<{ source_amount?: undefined; target_amount?: undefined }>().not.toExtend<QuoteAmount>();
    expectTypeOf<{ source_amount: string }>().toExtend<QuoteAmount>();
    expectTypeOf<{ target_amount: string }>().toExtend<QuoteAmount>();
    // What the schema parses is that type, so the sandbox and a partner's own parse agree with the client.
    expectTypeOf<ReturnType<typeof CreateQuoteBody.parse>>().toEqualTypeOf<CreateQuoteBody>();
    expectTypeOf<Parameters<PixUsdt['quotes']['create']>[0]>().toEqualTypeOf<CreateQuoteBody>();
  });

  it('at run time, the schema refuses both and neither', () => {
    for (const body of accepted) expect(parseRequest(CreateQuoteBody, body).ok).toBe(true);
    for (const body of [onrampBoth, onrampNeither, offrampBoth, offrampNeither]) {
      const outcome = parseRequest(CreateQuoteBody, body);
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.issues[0]).toMatchObject({ path: 'source_amount', message: expect.stringMatching(/^Expected exactly one of source_amount and target_amount, received (both|neither)$/) });
    }
  });
});
