/**
 * Brazilian documents: CPF (11 digits) and CNPJ, numeric or the alphanumeric CNPJ the Receita
 * Federal issues from July 2026 (12 characters of [0-9A-Z], then two numeric check digits).
 * Validate, normalize, format, mask (as the API's `document_masked`) and generate test data.
 * @module
 */

const CPF_INPUT = /^\d{3}\.?\d{3}\.?\d{3}-?\d{2}$/;
const CNPJ_INPUT = /^[0-9A-Z]{2}\.?[0-9A-Z]{3}\.?[0-9A-Z]{3}\/?[0-9A-Z]{4}-?\d{2}$/;

/**
 * The 11 digits of a CPF typed with or without its punctuation (`529.982.247-25` or
 * `52998224725`), or `null` when it is not shaped like a CPF. Does not check the check digits.
 */
export function normalizeCpf(value: string): string | null {
  const trimmed = value.trim();
  return CPF_INPUT.test(trimmed) ? trimmed.replace(/\D/g, '') : null;
}

/**
 * The 14 characters of a CNPJ typed with or without its punctuation, upper-cased
 * (`12.abc.345/01de-35` gives `12ABC34501DE35`), or `null` when it is not shaped like a CNPJ.
 * Does not check the check digits.
 */
export function normalizeCnpj(value: string): string | null {
  const upper = value.trim().toUpperCase();
  return CNPJ_INPUT.test(upper) ? upper.replace(/[./-]/g, '') : null;
}

/** The check digit of `body` with weights `first`, `first - 1`, ... 2, then 9 down to 2 (mod 11). */
function checkDigit(body: string, first: number): number {
  let sum = 0;
  let weight = first;
  for (let i = 0; i < body.length; i++) {
    // A character is worth its char code minus 48: digits keep their value, `A` is 17 (alphanumeric CNPJ).
    sum += (body.charCodeAt(i) - 48) * weight;
    weight = weight === 2 ? 9 : weight - 1;
  }
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

// A CPF's weights run from 10 (then 11) down to 2 without wrapping: length + 1 down to 2.
function cpfCheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += (body.charCodeAt(i) - 48) * (body.length + 1 - i);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/**
 * True when `value` is a CPF (punctuated or not) with valid check digits. A CPF of one repeated
 * digit (`111.111.111-11`) passes the arithmetic but is not issued, and is rejected.
 */
export function isValidCpf(value: string): boolean {
  const cpf = normalizeCpf(value);
  if (cpf === null || /^(\d)\1{10}$/.test(cpf)) return false;
  return cpf.endsWith(`${cpfCheckDigit(cpf.slice(0, 9))}${cpfCheckDigit(cpf.slice(0, 10))}`);
}

/**
 * True when `value` is a CNPJ (punctuated or not, numeric or alphanumeric) with valid check
 * digits: weights 5..2,9..2 for the first and 6..2,9..2 for the second, each character worth its
 * char code minus 48. `12ABC34501DE35` and `11.222.333/0001-81` are valid. A CNPJ of one
 * repeated character is rejected.
 */
export function isValidCnpj(value: string): boolean {
  const cnpj = normalizeCnpj(value);
  if (cnpj === null || /^(.)\1{13}$/.test(cnpj)) return false;
  return cnpj.endsWith(`${checkDigit(cnpj.slice(0, 12), 5)}${checkDigit(cnpj.slice(0, 13), 6)}`);
}

/** `529.982.247-25` from a CPF in any accepted form; `null` when it is not shaped like a CPF. */
export function formatCpf(value: string): string | null {
  const d = normalizeCpf(value);
  return d === null ? null : `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`;
}

/** `12.ABC.345/01DE-35` from a CNPJ in any accepted form; `null` when it is not shaped like a CNPJ. */
export function formatCnpj(value: string): string | null {
  const c = normalizeCnpj(value);
  return c === null ? null : `${c.slice(0, 2)}.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-${c.slice(12)}`;
}

/**
 * A CPF as the API's `document_masked` shows it: the middle six digits, `***.982.247-**`.
 * `null` when `value` is not shaped like a CPF.
 */
export function maskCpf(value: string): string | null {
  const d = normalizeCpf(value);
  return d === null ? null : `***.${d.slice(3, 6)}.${d.slice(6, 9)}-**`;
}

/**
 * A CNPJ masked the same way: `**.ABC.345/01DE-**` (the sandbox's `pix_holder_document_masked`).
 * `null` when `value` is not shaped like a CNPJ.
 */
export function maskCnpj(value: string): string | null {
  const c = normalizeCnpj(value);
  return c === null ? null : `**.${c.slice(2, 5)}.${c.slice(5, 8)}/${c.slice(8, 12)}-**`;
}

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

function draw(alphabet: string, length: number, random: () => number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)] ?? '0';
  return out;
}

/** A random CPF with valid check digits, 11 digits without punctuation. For test data only. */
export function generateCpf(options: GenerateDocumentOptions = {}): string {
  const random = options.random ?? Math.random;
  let body: string;
  do body = draw('0123456789', 9, random);
  while (/^(\d)\1{8}$/.test(body));
  const first = cpfCheckDigit(body);
  return `${body}${first}${cpfCheckDigit(`${body}${first}`)}`;
}

/**
 * A random CNPJ with valid check digits, 14 characters without punctuation: numeric by default,
 * alphanumeric with `{ alphanumeric: true }`. For test data only.
 */
export function generateCnpj(options: GenerateCnpjOptions = {}): string {
  const random = options.random ?? Math.random;
  const alphabet = options.alphanumeric === true ? '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ' : '0123456789';
  let body: string;
  do body = draw(alphabet, 12, random);
  while (/^(.)\1{11}$/.test(body));
  const first = checkDigit(body, 5);
  return `${body}${first}${checkDigit(`${body}${first}`, 6)}`;
}
