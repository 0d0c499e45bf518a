/**
 * Fixed-point decimals for the limit counters (core/limits.ts): a decimal string as a `bigint`
 * of 10^-18 units, exact for every amount the sandbox holds (its documents allow 18 decimals at
 * most, requests and settings 2 or 6). The counters add, subtract and compare amounts that are
 * already written (reservations, usage buckets, ceilings) and write BRL back with 2 decimals:
 * big.js parsed each of them into a digit array on every reservation (docs/decisions.md,
 * "Fixed-point amounts"). Pricing, with its divisions and rounding modes, stays on big.js.
 * @module
 */
import Big from 'big.js';

const SCALE = 18;
// A plain decimal with at most SCALE decimals; anything else (an exponent, more decimals) is read by big.js.
const PLAIN = /^-?\d+(\.\d{1,18})?$/;
// 10^(18 - dp): one unit of the dp-th decimal, and its half.
const UNITS: bigint[] = Array.from({ length: SCALE + 1 }, (_, dp) => 10n ** BigInt(SCALE - dp));
const HALVES: bigint[] = UNITS.map((unit) => unit / 2n);

/** A decimal string as 10^-18 units, exactly (a string big.js refuses throws as `new Big` does). */
export function fixed(value: string): bigint {
  if (!PLAIN.test(value)) return BigInt(new Big(value).times(`1e${SCALE}`).toFixed(0));
  const dot = value.indexOf('.');
  if (dot < 0) return BigInt(value) * (UNITS[0] as bigint);
  return BigInt(value.slice(0, dot) + value.slice(dot + 1)) * (UNITS[value.length - dot - 1] as bigint);
}

/**
 * `value` (10^-18 units, not negative) with `dp` decimals, rounded half up as big.js's
 * `toFixed` rounds by default: `fixedText(fixed(s), dp) === new Big(s).toFixed(dp)`.
 */
export function fixedText(value: bigint, dp: number): string {
  if (value < 0n) throw new RangeError('fixedText: a negative amount');
  const unit = UNITS[dp] as bigint;
  const digits = (unit === 1n ? value : (value + (HALVES[dp] as bigint)) / unit).toString();
  if (dp === 0) return digits;
  const padded = digits.length > dp ? digits : digits.padStart(dp + 1, '0');
  return `${padded.slice(0, -dp)}.${padded.slice(-dp)}`;
}
