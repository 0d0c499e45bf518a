/**
 * CPF and CNPJ check digits, for the fixtures the scenarios create and for the redaction of
 * cassettes. Written here on purpose rather than taken from `pix-usdt/pix`: parity checks the
 * sandbox, which uses the Pix toolkit, so it shares none of that code (test/parity/entry.test.ts).
 * Private to the parity folder; `pix-usdt/parity` does not publish it.
 * @module
 */

/** The CPF check digit over the first `count` digits (9 for the first digit, 10 for the second). */
function cpfDigit(digits: readonly number[], count: number): number {
  let sum = 0;
  for (let i = 0; i < count; i++) sum += (digits[i] as number) * (count + 1 - i);
  return ((sum * 10) % 11) % 10;
}

/** The CNPJ check digit over the digits its weights cover (12 for the first digit, 13 for the second). */
function cnpjDigit(digits: readonly number[], weights: readonly number[]): number {
  const r = weights.reduce((sum, w, i) => sum + w * (digits[i] as number), 0) % 11;
  return r < 2 ? 0 : 11 - r;
}

/** A valid CPF (check digits computed) from 9 base digits. */
export function cpfFrom(base: string): string {
  const d = [...base.padStart(9, '0').slice(-9)].map(Number);
  d.push(cpfDigit(d, 9));
  d.push(cpfDigit(d, 10));
  return d.join('');
}

/** Whether 11 digits are a CPF (check digits right, not all one digit). */
export function isCpf(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || /^(\d)\1{10}$/.test(digits)) return false;
  const d = [...digits].map(Number);
  return cpfDigit(d, 9) === d[9] && cpfDigit(d, 10) === d[10];
}

/** A valid CNPJ (check digits computed) from 12 base digits. */
export function cnpjFrom(base: string): string {
  const d = [...base.padStart(12, '0').slice(-12)].map(Number);
  d.push(cnpjDigit(d, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
  d.push(cnpjDigit(d, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
  return d.join('');
}
