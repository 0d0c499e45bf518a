/** Request bodies the scenarios share (the wire shapes of DESIGN.md). */
import { WALLET_ADDRESS, type ScenarioContext } from '../context.js';
import type { Conversion, CreateQuoteBody, PixKeyType, Quote } from '../../index.js';

/** An offramp quote body: USDT in, BRL out by Pix to `pixKey`. */
export function offramp(userId: string, amount = '10.000000', pixKey = '52998224725', pixKeyType: PixKeyType = 'cpf'): CreateQuoteBody {
  return { user_id: userId, source_currency: 'USDT', target_currency: 'BRL', source_amount: amount, pix_key: pixKey, pix_key_type: pixKeyType, deposit_network: 'polygon' };
}

/** An onramp quote body: BRL in by Pix, USDT out to the run's wallet address. */
export function onramp(userId: string, amount = '100.00'): CreateQuoteBody {
  return { user_id: userId, source_currency: 'BRL', target_currency: 'USDT', source_amount: amount, destination_wallet_address: WALLET_ADDRESS, destination_wallet_network: 'polygon' };
}

/** Quote and accept for the run user: a fresh `awaiting_deposit` conversion. */
export async function newConversion(ctx: ScenarioContext, direction: 'offramp' | 'onramp', amount?: string): Promise<{ quote: Quote; conversion: Conversion }> {
  const userId = await ctx.approvedUser();
  const body = direction === 'offramp' ? offramp(userId, amount) : onramp(userId, amount);
  const quote = await ctx.step(`${direction} quote`, () => ctx.client.quotes.create(body));
  const conversion = await ctx.step(`accept the ${direction} quote`, () => ctx.client.quotes.accept(quote.id));
  return { quote, conversion };
}
