/**
 * The limit counters' fixed-point decimals (core/fixed.ts) against big.js, which they replace
 * there: the same value read, the same sums and comparisons, the same text written (half up).
 */
import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixed, fixedText } from '../../../src/sandbox/core/fixed.js';

// Decimal strings as the sandbox holds them: up to 15 integer digits, up to 18 decimals.
const decimal = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }), fc.integer({ min: 0, max: 18 }), fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }))
  .map(([whole, dp, frac]) => (dp === 0 ? whole.toString() : `${whole}.${(frac % 10n ** BigInt(dp)).toString().padStart(dp, '0')}`));

describe('fixed-point decimals', () => {
  it('write what big.js writes, rounding half up, for every number of decimals', () => {
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 18 }), (s, dp) => {
        expect(fixedText(fixed(s), dp)).toBe(new Big(s).toFixed(dp));
      }),
      { numRuns: 2000 },
    );
    // The ties and carries big.js rounds up (not to even).
    expect(fixedText(fixed('0.005'), 2)).toBe('0.01');
    expect(fixedText(fixed('0.015'), 2)).toBe('0.02');
    expect(fixedText(fixed('9.995'), 2)).toBe('10.00');
    expect(fixedText(fixed('0.004999999999999999'), 2)).toBe('0.00');
  });

  it('add, subtract and compare as big.js does', () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const [x, y] = [fixed(a), fixed(b)];
        const sum = new Big(a).plus(b);
        const difference = new Big(a).minus(b);
        expect(fixedText(x + y, 2)).toBe(sum.toFixed(2));
        expect(x - y > 0n).toBe(difference.gt(0));
        expect(x > y).toBe(new Big(a).gt(b));
        expect(x === y).toBe(new Big(a).eq(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the forms big.js reads beyond plain decimals, and refuses what it refuses', () => {
    expect(fixed('1e3')).toBe(1000n * 10n ** 18n);
    expect(fixed('5.')).toBe(5n * 10n ** 18n);
    expect(fixed('-2.5')).toBe(-25n * 10n ** 17n);
    expect(() => fixed('0x10')).toThrow(/Invalid/);
    expect(() => fixed(' 1')).toThrow(/Invalid/);
    expect(() => fixedText(-1n, 2)).toThrow(RangeError);
  });
});
