/**
 * Brazilian documents: CPF and CNPJ check digits (the CNPJ check accepts the alphanumeric
 * CNPJ the Receita Federal issues from July 2026), normalization and masking.
 * @module
 */

/** The 11 digits of a CPF written with or without punctuation; `null` when malformed. */
export function normalizeCpf(input: string): string | null {
  if (!/^\d{3}\.?\d{3}\.?\d{3}-?\d{2}$/.test(input)) return null;
  return input.replace(/\D/g, '');
}

/** True when an 11-digit CPF has valid check digits (and is not one repeated digit). */
export function isValidCpf(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || /^(\d)\1{10}$/.test(digits)) return false;
  const d = [...digits].map(Number);
  for (const length of [9, 10]) {
    let sum = 0;
    for (let i = 0; i < length; i++) sum += (d[i] as number) * (length + 1 - i);
    const check = ((sum * 10) % 11) % 10;
    if (check !== d[length]) return false;
  }
  return true;
}

/** `***.456.789-**`: the middle six digits of a CPF. */
export function maskCpf(digits: string): string {
  return `***.${digits.slice(3, 6)}.${digits.slice(6, 9)}-**`;
}

/** The 14 characters of a CNPJ (numeric or alphanumeric) without punctuation; `null` when malformed. */
export function normalizeCnpj(input: string): string | null {
  const upper = input.toUpperCase();
  if (!/^[0-9A-Z]{2}\.?[0-9A-Z]{3}\.?[0-9A-Z]{3}\/?[0-9A-Z]{4}-?\d{2}$/.test(upper)) return null;
  return upper.replace(/[./-]/g, '');
}

/**
 * True when a 14-character CNPJ has valid check digits. Each character is worth its char code
 * minus 48 (digits keep their value, `A` is 17), weights 2 to 9 cycle from the right, mod 11;
 * a classic numeric CNPJ is the special case with digits only.
 */
export function isValidCnpj(value: string): boolean {
  if (!/^[0-9A-Z]{12}\d{2}$/.test(value) || /^(.)\1{13}$/.test(value)) return false;
  for (const length of [12, 13]) {
    let sum = 0;
    for (let i = 0; i < length; i++) sum += (value.charCodeAt(length - 1 - i) - 48) * ((i % 8) + 2);
    const rest = sum % 11;
    const check = rest < 2 ? 0 : 11 - rest;
    if (check !== value.charCodeAt(length) - 48) return false;
  }
  return true;
}

/** `**.345.678/0001-**`: the middle of a CNPJ. */
export function maskCnpj(value: string): string {
  return `**.${value.slice(2, 5)}.${value.slice(5, 8)}/${value.slice(8, 12)}-**`;
}
