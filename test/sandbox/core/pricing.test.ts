/**
 * Pricing's roundings (core/pricing.ts), figure by figure: the rate up or down to 6 decimals, a
 * product down or up to the currency's, a quotient first to 20 decimals half up (big.js's
 * division), then to the currency's. Any other arithmetic for money (fixed point, another
 * package: docs/decisions.md, "Fixed-point amounts") must keep these.
 */
import { describe, expect, it } from 'vitest';
import { type PricingSettings, price } from '../../../src/sandbox/core/pricing.js';

describe('pricing\'s roundings', () => {
  it('rounds each figure the platform\'s way (the figures of docs/sandbox.md)', () => {
    const on = price({ midRate: '5.40', spreadBps: 50, withdrawalFeeUsdt: '1.00', available: true }, 'onramp', { source: '100.00' });
    // 5.40 x 1.005 = 5.427 (up); 100 / 5.427 = 18.42638658559... (down to 18.426386).
    expect(on).toEqual({ sourceAmount: '100.00', targetAmount: '18.426386', exchangeRate: '5.427000', spreadBps: 50, withdrawalFeeUsdt: '1.000000', netTargetAmount: '17.426386' });
    const off = price({ midRate: '5.123457', spreadBps: 50, withdrawalFeeUsdt: '1.00', available: true }, 'offramp', { target: '100.00' });
    // 5.123457 x 0.995 = 5.097839715 (down to 5.097839); 100 / 5.097839 = 19.61615500214... (up to 19.616156).
    expect(off).toMatchObject({ exchangeRate: '5.097839', sourceAmount: '19.616156', targetAmount: '100.00', withdrawalFeeUsdt: '0.000000' });
  });

  it('rounds a quotient to 20 decimals (half up) before the currency\'s decimals, as big.js divides', () => {
    const s: PricingSettings = { midRate: '10000000000.000001', spreadBps: 0, withdrawalFeeUsdt: '0', available: true };
    // 10000 / 10000000000.000001 = 0.00000099999999999999990000...: 20 decimals round it to 0.000001.
    expect(price(s, 'onramp', { source: '10000.00' })).toMatchObject({ targetAmount: '0.000001', netTargetAmount: '0.000001' });
    // 99999999990000.01 / 10000000000.000001 = 9999.99999900000000000000999...: 20 decimals leave nothing to round up.
    expect(price(s, 'offramp', { target: '99999999990000.01' })).toMatchObject({ sourceAmount: '9999.999999' });
  });
});
