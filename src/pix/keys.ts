/**
 * Pix keys (chaves Pix) as the DICT stores them: CPF (11 digits), CNPJ (14 characters, numeric or
 * alphanumeric), e-mail (lower case, at most 77 characters), phone (`+55`, area code, number) and
 * EVP (a random key: a lower-case UUID). Detect, validate and normalize what a user typed.
 * @module
 */
import type { PixKeyType } from '../models/quotes.js';
import { isValidCnpj, isValidCpf, normalizeCnpj, normalizeCpf } from './documents.js';

export type { PixKeyType };

/** Why {@link validatePixKey} refused a key. */
export type PixKeyReason =
  /** Nothing but whitespace. */
  | 'empty'
  /** Not shaped like a key of the type (wrong length, characters or layout). */
  | 'invalid_format'
  /** A CPF or CNPJ whose check digits do not match. */
  | 'invalid_check_digits'
  /** An e-mail key longer than 77 characters. */
  | 'too_long'
  /** No type given and the key is shaped like none of them. */
  | 'unknown_type';

/** The answer of {@link validatePixKey}: the key as the DICT stores it, or why it is refused. */
export type PixKeyValidation =
  | { valid: true; type: PixKeyType; key: string }
  | { valid: false; reason: PixKeyReason; message: string };

/** The longest e-mail Pix key the DICT accepts. */
export const PIX_EMAIL_MAX_LENGTH = 77;

const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// +55, a two-digit area code (11 to 99, no zero digit), then 8 (landline) or 9 (mobile) digits. The
// DICT itself checks only E.164 shape; the number plan is not checked here, so that a fixture
// such as the sandbox's +5511000000000 is a well-formed key that does not resolve.
const PHONE = /^\+55[1-9]{2}\d{8,9}$/;

/** The phone key in `+55DDNNNNNNNNN` form from what a user typed, or `null`. */
function normalizePhone(value: string): string | null {
  const compact = value.replace(/[\s().-]/g, '');
  if (!/^\+?\d+$/.test(compact)) return null;
  const digits = compact.replace('+', '');
  let full: string;
  if (compact.startsWith('+')) full = `+${digits}`;
  else if (digits.length === 10 || digits.length === 11) full = `+55${digits}`;
  else if (digits.startsWith('55') && (digits.length === 12 || digits.length === 13)) full = `+${digits}`;
  else return null;
  return PHONE.test(full) ? full : null;
}

function invalid(reason: PixKeyReason, message: string): PixKeyValidation {
  return { valid: false, reason, message };
}

function check(value: string, type: PixKeyType): PixKeyValidation {
  switch (type) {
    case 'cpf': {
      const cpf = normalizeCpf(value);
      if (cpf === null) return invalid('invalid_format', 'A CPF key has 11 digits.');
      return isValidCpf(cpf) ? { valid: true, type, key: cpf } : invalid('invalid_check_digits', 'The CPF check digits do not match.');
    }
    case 'cnpj': {
      const cnpj = normalizeCnpj(value);
      if (cnpj === null) return invalid('invalid_format', 'A CNPJ key has 12 characters of 0-9 or A-Z, then 2 check digits.');
      return isValidCnpj(cnpj) ? { valid: true, type, key: cnpj } : invalid('invalid_check_digits', 'The CNPJ check digits do not match.');
    }
    case 'email': {
      const email = value.toLowerCase();
      if (email.length > PIX_EMAIL_MAX_LENGTH) return invalid('too_long', `An e-mail key has at most ${PIX_EMAIL_MAX_LENGTH} characters.`);
      return EMAIL.test(email) ? { valid: true, type, key: email } : invalid('invalid_format', 'Not an e-mail address.');
    }
    case 'phone': {
      const phone = normalizePhone(value);
      return phone === null ? invalid('invalid_format', 'A phone key is +55, a two-digit area code and the number.') : { valid: true, type, key: phone };
    }
    case 'evp': {
      const evp = value.toLowerCase();
      return EVP.test(evp) ? { valid: true, type, key: evp } : invalid('invalid_format', 'A random (EVP) key is a UUID.');
    }
    default:
      return invalid('unknown_type', `Unknown Pix key type ${JSON.stringify(type)}.`);
  }
}

/**
 * The type a key is written in, or `null` when it is none of them. A key of 11 digits is a CPF
 * (a phone key always starts with `+`, as the DICT stores it), 14 characters a CNPJ, one with `@`
 * an e-mail, a UUID an EVP. Punctuated documents are recognized; check digits are not checked here.
 *
 * @example
 * ```ts
 * detectPixKeyType('+5511999999999'); // 'phone'
 * detectPixKeyType('12.ABC.345/01DE-35'); // 'cnpj'
 * ```
 */
export function detectPixKeyType(key: string): PixKeyType | null {
  const value = key.trim();
  if (value.startsWith('+')) return 'phone';
  if (value.includes('@')) return 'email';
  if (EVP.test(value.toLowerCase())) return 'evp';
  if (normalizeCpf(value) !== null) return 'cpf';
  if (normalizeCnpj(value) !== null) return 'cnpj';
  return null;
}

/**
 * Validates a key typed by a user, for `type` or, without it, for the type
 * {@link detectPixKeyType} finds. On success `key` is the key as the DICT stores it (what the
 * API's `pix_key` takes): digits of a CPF, upper-case CNPJ, lower-case e-mail and EVP, `+55...` phone.
 * With an explicit `type: 'phone'`, national forms such as `(11) 99999-9999` are accepted.
 *
 * @example
 * ```ts
 * const result = validatePixKey(input.value, 'cpf');
 * if (!result.valid) showError(result.reason); // 'invalid_check_digits', ...
 * else quote.pix_key = result.key;
 * ```
 */
export function validatePixKey(key: string, type?: PixKeyType): PixKeyValidation {
  const value = key.trim();
  if (value === '') return invalid('empty', 'The Pix key is empty.');
  const resolved = type ?? detectPixKeyType(value);
  if (resolved === null) return invalid('unknown_type', 'The key is not shaped like a CPF, CNPJ, e-mail, phone or random key.');
  return check(value, resolved);
}

/**
 * The key as the DICT stores it (see {@link validatePixKey}), or `null` when it is not a valid
 * key of `type` (or of the detected type).
 */
export function normalizePixKey(key: string, type?: PixKeyType): string | null {
  const result = validatePixKey(key, type);
  return result.valid ? result.key : null;
}
