/**
 * The sandbox pricing model: a mid rate (BRL per USDT), a spread in basis points applied
 * against the customer, and a withdrawal fee in USDT deducted from what an onramp delivers.
 * Exact decimal arithmetic with big.js on decimal strings; BRL has 2 decimals, USDT 6, rates 6;
 * every rounding goes in the platform's favour. Documented in docs/sandbox.md.
 * @module
 */
import Big from 'big.js';
import { invalid } from './errors.js';

/** Pricing settings, changeable at run time with `sandbox.setPrice`. */
export interface PricingSettings {
  /** Mid-market rate, BRL per USDT, as a decimal string. */
  midRate: string;
  /** Spread in basis points, applied against the customer. */
  spreadBps: number;
  /** Withdrawal fee in USDT, deducted from the USDT an onramp delivers. */
  withdrawalFeeUsdt: string;
  /** When false, quotes and liquidations answer 503 price_feed_unavailable. */
  available: boolean;
}

/** The defaults: 5.40 BRL per USDT, 50 bps, 1 USDT fee, feed up. */
export const DEFAULT_PRICING: Readonly<PricingSettings> = Object.freeze({ midRate: '5.40', spreadBps: 50, withdrawalFeeUsdt: '1.00', available: true });

/** Direction of a conversion. */
export type Direction = 'onramp' | 'offramp';

/** The priced figures of a quote, as wire strings. */
export interface Priced {
  sourceAmount: string;
  targetAmount: string;
  exchangeRate: string;
  spreadBps: number;
  withdrawalFeeUsdt: string;
  netTargetAmount: string;
}

const DOWN = 0;
const UP = 3;
const BRL_DP = 2;
const USDT_DP = 6;

/** Decimals allowed for a currency. */
export function decimalsOf(currency: 'BRL' | 'USDT'): number {
  return currency === 'BRL' ? BRL_DP : USDT_DP;
}

/** Throws a validation_error when `amount` is zero or has more decimals than its currency allows. */
export function checkAmount(path: string, amount: string, currency: 'BRL' | 'USDT'): Big {
  const dp = decimalsOf(currency);
  const fraction = amount.split('.')[1] ?? '';
  if (fraction.length > dp) throw invalid(path, `${currency} amounts have at most ${dp} decimals`);
  const value = new Big(amount);
  if (value.lte(0)) throw invalid(path, 'Expected an amount greater than zero');
  return value;
}

/** The customer's rate for a direction (BRL per USDT). */
export function customerRate(settings: PricingSettings, direction: Direction): Big {
  const mid = new Big(settings.midRate);
  const spread = new Big(settings.spreadBps).div(10_000);
  return direction === 'onramp' ? mid.times(spread.plus(1)).round(USDT_DP, UP) : mid.times(new Big(1).minus(spread)).round(USDT_DP, DOWN);
}

/**
 * Prices a quote from one amount. Onramp: the customer pays BRL (`source`) for USDT
 * (`target`, gross), and receives `target - fee` (`net_target_amount`). Offramp: the customer
 * sells USDT (`source`) for BRL (`target`); no withdrawal fee.
 */
export function price(settings: PricingSettings, direction: Direction, amount: { source?: string | undefined; target?: string | undefined }): Priced {
  const rate = customerRate(settings, direction);
  const fee = direction === 'onramp' ? new Big(settings.withdrawalFeeUsdt).round(USDT_DP, UP) : new Big(0);
  const [sourceCcy, targetCcy] = direction === 'onramp' ? (['BRL', 'USDT'] as const) : (['USDT', 'BRL'] as const);
  let source: Big;
  let target: Big;
  if (amount.source !== undefined) {
    source = checkAmount('source_amount', amount.source, sourceCcy);
    target = direction === 'onramp' ? source.div(rate).round(USDT_DP, DOWN) : source.times(rate).round(BRL_DP, DOWN);
  } else {
    target = checkAmount('target_amount', amount.target ?? '0', targetCcy);
    source = direction === 'onramp' ? target.times(rate).round(BRL_DP, UP) : target.div(rate).round(USDT_DP, UP);
  }
  const net = target.minus(fee);
  if (net.lte(0)) {
    throw invalid(amount.source !== undefined ? 'source_amount' : 'target_amount', 'The amount is too small to cover the withdrawal fee');
  }
  return {
    sourceAmount: source.toFixed(decimalsOf(sourceCcy)),
    targetAmount: target.toFixed(decimalsOf(targetCcy)),
    exchangeRate: rate.toFixed(USDT_DP),
    spreadBps: settings.spreadBps,
    withdrawalFeeUsdt: fee.toFixed(USDT_DP),
    netTargetAmount: net.toFixed(decimalsOf(targetCcy)),
  };
}
