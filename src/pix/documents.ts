/**
 * Brazilian documents: CPF (11 digits) and CNPJ, numeric or the alphanumeric CNPJ the Receita
 * Federal issues from July 2026 (12 characters of [0-9A-Z], then two numeric check digits).
 * Validate, normalize, format and mask (as the API's `document_masked`); test-data generators are
 * in `pix-usdt/pix/testing` (testing.ts), so that a checkout does not ship them.
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

// The check digit of the first `n` characters of `text`: the weighted sum mod 11 (0 when the rest
// is below 2, else 11 minus it), each character worth its char code minus 48, weights from `weight`
// down to 2 then from 9 down.
function checkDigit(text: string, weight: number, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++, weight = weight === 2 ? 9 : weight - 1) sum += (text.charCodeAt(i) - 48) * weight;
  return sum % 11 < 2 ? 0 : 11 - (sum % 11);
}

/**
 * `body` followed by its two check digits. A check digit is the weighted sum mod 11 (0 when the
 * rest is below 2, else 11 minus it), each character worth its char code minus 48 (digits keep
 * their value, `A` of the alphanumeric CNPJ is 17), weights from `first` down to 2 then from 9 down:
 * a CPF's 10..2 and 11..2, a CNPJ's 5..2,9..2 and 6..2,9..2.
 * @internal
 */
export function withCheckDigits(body: string, first: number): string {
  body += checkDigit(body, first, body.length);
  return body + checkDigit(body, first + 1, body.length);
}

/**
 * True when a normalized document (not one repeated character) ends with its two check digits,
 * read from it in place (no document written again: a new user's CPF is checked on every create).
 */
const hasCheckDigits = (doc: string | null, first: number): boolean =>
  doc !== null && !/^(.)\1*$/.test(doc) && checkDigit(doc, first, doc.length - 2) * 10 + checkDigit(doc, first + 1, doc.length - 1) === +doc.slice(-2);

/**
 * True when `value` is a CPF (punctuated or not) with valid check digits. A CPF of one repeated
 * digit (`111.111.111-11`) passes the arithmetic but is not issued, and is rejected.
 */
export function isValidCpf(value: string): boolean {
  return hasCheckDigits(normalizeCpf(value), 10);
}

/**
 * True when `value` is a CNPJ (punctuated or not, numeric or alphanumeric) with valid check
 * digits: weights 5..2,9..2 for the first and 6..2,9..2 for the second, each character worth its
 * char code minus 48. `12ABC34501DE35` and `11.222.333/0001-81` are valid. A CNPJ of one
 * repeated character is rejected.
 */
export function isValidCnpj(value: string): boolean {
  return hasCheckDigits(normalizeCnpj(value), 5);
}

/**
 * `value` (normalized) rewritten by `to` (a `replace` of `shape` with `$n` groups): one native
 * `replace`, no callback per character (a user's mask is written on every answer of a user).
 */
function layout(value: string | null, shape: RegExp, to: string): string | null {
  return value === null ? null : value.replace(shape, to);
}

/** `529.982.247-25` from a CPF in any accepted form; `null` when it is not shaped like a CPF. */
export function formatCpf(value: string): string | null {
  return layout(normalizeCpf(value), /(...)(...)(...)/, '$1.$2.$3-');
}

/** `12.ABC.345/01DE-35` from a CNPJ in any accepted form; `null` when it is not shaped like a CNPJ. */
export function formatCnpj(value: string): string | null {
  return layout(normalizeCnpj(value), /(..)(...)(...)(....)/, '$1.$2.$3/$4-');
}

/**
 * A CPF as the API's `document_masked` shows it: the middle six digits, `***.982.247-**`.
 * `null` when `value` is not shaped like a CPF.
 */
export function maskCpf(value: string): string | null {
  return layout(normalizeCpf(value), /...(...)(...)../, '***.$1.$2-**');
}

/**
 * A CNPJ masked the same way: `**.ABC.345/01DE-**` (the sandbox's `pix_holder_document_masked`).
 * `null` when `value` is not shaped like a CNPJ.
 */
export function maskCnpj(value: string): string | null {
  return layout(normalizeCnpj(value), /..(...)(...)(....)../, '**.$1.$2/$3-**');
}
