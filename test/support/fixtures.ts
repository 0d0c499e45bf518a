/** Fixtures shared by the test suites (and the benches). */
import { withCheckDigits } from '../../src/pix/documents.js';

/** A valid CPF (check digits from the Pix toolkit), distinct for every `n` below 800,000,000. */
export function cpf(n: number): string {
  // 7,919 is prime to 800,000,000: n -> n * 7,919 mod 800,000,000 never repeats below it.
  return withCheckDigits(String(100_000_000 + ((n * 7919) % 800_000_000)), 10);
}
