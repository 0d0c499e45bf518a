/**
 * `pix-usdt/pix/testing`: test data for Pix forms and back offices. Random CPFs and CNPJs
 * (numeric or alphanumeric) with valid check digits, seedable. A separate entry so that a
 * checkout that imports `pix-usdt/pix` does not ship generators it never calls.
 * @module
 */
import { withCheckDigits } from './documents.js';

/** Options of {@link generateCpf} and {@link generateCnpj}. */
export interface GenerateDocumentOptions {
  /**
   * A source of numbers in [0, 1), as `Math.random` (the default). Pass a seeded one for
   * reproducible test data.
   */
  random?: () => number;
}

/** Options of {@link generateCnpj}. */
export interface GenerateCnpjOptions extends GenerateDocumentOptions {
  /** Draw the 12 leading characters from [0-9A-Z] (the CNPJ issued from July 2026). Default false. */
  alphanumeric?: boolean;
}

const DIGITS = '0123456789';

/** `length` random characters of `alphabet` (not all the same), then the check digits. */
function generate(alphabet: string, length: number, first: number, random: () => number = Math.random): string {
  let body: string;
  do {
    body = '';
    for (let i = 0; i < length; i++) body += alphabet[Math.floor(random() * alphabet.length)] ?? '0';
  } while (/^(.)\1*$/.test(body));
  return withCheckDigits(body, first);
}

/** A random CPF with valid check digits, 11 digits without punctuation. For test data only. */
export function generateCpf(options: GenerateDocumentOptions = {}): string {
  return generate(DIGITS, 9, 10, options.random);
}

/**
 * A random CNPJ with valid check digits, 14 characters without punctuation: numeric by default,
 * alphanumeric with `{ alphanumeric: true }`. For test data only.
 */
export function generateCnpj(options: GenerateCnpjOptions = {}): string {
  return generate(options.alphanumeric === true ? `${DIGITS}ABCDEFGHIJKLMNOPQRSTUVWXYZ` : DIGITS, 12, 5, options.random);
}
