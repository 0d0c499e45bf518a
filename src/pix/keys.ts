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
  | {
      valid: false;
      /** What is wrong: branch on it, and word it for the user. */
      reason: PixKeyReason;
      /** The reason in words, for a developer's log. */
      message: string;
    };

/** The longest e-mail Pix key the DICT accepts. */
export const PIX_EMAIL_MAX_LENGTH = 77;

/** The key types, in the order a key is tried when none is given. */
export const KEY_TYPES: readonly PixKeyType[] = ['cpf', 'cnpj', 'email', 'phone', 'evp'];

// Lower case, a local part, @, and a domain of at least two labels; no spaces.
const EMAIL = /^[^\s@]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;
const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// +55, a two-digit area code (11 to 99, no zero digit), then 8 (landline) or 9 (mobile) digits. The
// DICT itself checks only E.164 shape; the number plan is not checked here, so that a fixture
// such as the sandbox's +5511000000000 is a well-formed key that does not resolve.
const PHONE = /^\+55[1-9]{2}\d{8,9}$/;

/** The phone key in `+55DDNNNNNNNNN` form from what a user typed, or `null`. */
function normalizePhone(value: string): string | null {
  const compact = value.replace(/[\s().-]/g, '');
  const digits = compact.replace(/^\+/, '');
  // National forms (area code and number) get +55; 55 and 12 or 13 digits get the +.
  const full = compact.startsWith('+') ? compact : `+${digits.length < 12 ? '55' : ''}${digits}`;
  return PHONE.test(full) ? full : null;
}

/**
 * The key as the DICT stores it when `value` is a valid key of `type`, else `null`; no message,
 * so that the BR Code checks can use it without carrying validatePixKey's texts.
 * @internal
 */
export function canonicalPixKey(value: string, type: PixKeyType): string | null {
  const lower = value.toLowerCase();
  return type === 'cpf' ? (isValidCpf(value) ? normalizeCpf(value) : null)
    : type === 'cnpj' ? (isValidCnpj(value) ? normalizeCnpj(value) : null)
    : type === 'email' ? (lower.length <= PIX_EMAIL_MAX_LENGTH && EMAIL.test(lower) ? lower : null)
    : type === 'phone' ? normalizePhone(value)
    : type === 'evp' && EVP.test(lower) ? lower
    : null;
}

const invalid = (reason: PixKeyReason): PixKeyValidation => ({ valid: false, reason, message: `Pix key: ${reason.replace(/_/g, ' ')}` });

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
  if (value === '') return invalid('empty');
  const resolved = type ?? detectPixKeyType(value);
  if (resolved === null || !KEY_TYPES.includes(resolved)) return invalid('unknown_type');
  const stored = canonicalPixKey(value, resolved);
  if (stored !== null) return { valid: true, type: resolved, key: stored };
  if (resolved === 'email' && value.length > PIX_EMAIL_MAX_LENGTH) return invalid('too_long');
  // Shaped like the document it claims to be (detection reads the shape only): the check digits are wrong.
  if ((resolved === 'cpf' || resolved === 'cnpj') && detectPixKeyType(value) === resolved) return invalid('invalid_check_digits');
  return invalid('invalid_format');
}

/**
 * The key as the DICT stores it (see {@link validatePixKey}), or `null` when it is not a valid
 * key of `type` (or of the detected type).
 */
export function normalizePixKey(key: string, type?: PixKeyType): string | null {
  const result = validatePixKey(key, type);
  return result.valid ? result.key : null;
}
