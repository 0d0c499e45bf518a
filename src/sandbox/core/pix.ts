/**
 * Sandbox Pix key resolution (reference "Sandbox Pix key resolution"): CPF and CNPJ keys
 * resolve when their check digits are valid, e-mail, phone and EVP keys only when they are
 * the fixed fixtures below; everything else is pix_key_not_found.
 * @module
 */
import type { PixKeyType } from '../../models/index.js';
import { isValidCnpj, isValidCpf, maskCnpj, maskCpf, normalizeCnpj, normalizeCpf } from './documents.js';
import { ApiError } from './errors.js';
import { hash53 } from './random.js';

/** The e-mail Pix key that resolves in the sandbox. */
export const SANDBOX_PIX_EMAIL = 'pix@sandbox.pix-usdt.com';
/** An e-mail Pix key that never resolves (pix_key_not_found). */
export const SANDBOX_PIX_NOT_FOUND_EMAIL = 'notfound@sandbox.pix-usdt.com';
/** The phone Pix key that resolves in the sandbox. */
export const SANDBOX_PIX_PHONE = '+5511999999999';
/** A phone Pix key that never resolves (pix_key_not_found). */
export const SANDBOX_PIX_NOT_FOUND_PHONE = '+5511000000000';
/** The random (EVP) Pix key that resolves in the sandbox. */
export const SANDBOX_PIX_EVP = '00000000-0000-0000-0000-000000000001';
/** A random (EVP) Pix key that never resolves (pix_key_not_found). */
export const SANDBOX_PIX_NOT_FOUND_EVP = '00000000-0000-0000-0000-000000000000';

/** The document of the holder behind the fixed e-mail, phone and EVP keys (a valid CPF). */
const FIXTURE_HOLDER_CPF = '52998224725';

/** A resolved Pix key. */
export interface PixHolder {
  name: string;
  documentMasked: string;
}

const FIRST = ['Ana', 'Bruno', 'Carla', 'Diego', 'Elisa', 'Fábio', 'Gabriela', 'Heitor'];
const LAST = ['Silva', 'Santos', 'Oliveira', 'Souza', 'Lima', 'Pereira', 'Costa', 'Almeida'];

function personName(key: string): string {
  const h = hash53(key, 5);
  return `${FIRST[h % FIRST.length] as string} ${LAST[Math.floor(h / 8) % LAST.length] as string} (Sandbox)`;
}

function notFound(): ApiError {
  return new ApiError('pix_key_not_found', 'The Pix key does not resolve to an account.');
}

/** Resolves a Pix key to a synthetic holder, or throws pix_key_not_found. */
export function resolvePixKey(type: PixKeyType, key: string): PixHolder {
  switch (type) {
    case 'cpf': {
      const cpf = normalizeCpf(key);
      if (cpf === null || !isValidCpf(cpf)) throw notFound();
      return { name: personName(cpf), documentMasked: maskCpf(cpf) };
    }
    case 'cnpj': {
      const cnpj = normalizeCnpj(key);
      if (cnpj === null || !isValidCnpj(cnpj)) throw notFound();
      return { name: `Empresa ${cnpj.slice(0, 4)} Ltda (Sandbox)`, documentMasked: maskCnpj(cnpj) };
    }
    case 'email':
      if (key.toLowerCase() !== SANDBOX_PIX_EMAIL) throw notFound();
      break;
    case 'phone':
      if (key !== SANDBOX_PIX_PHONE) throw notFound();
      break;
    case 'evp':
      if (key.toLowerCase() !== SANDBOX_PIX_EVP) throw notFound();
      break;
    default:
      throw notFound();
  }
  return { name: personName(FIXTURE_HOLDER_CPF), documentMasked: maskCpf(FIXTURE_HOLDER_CPF) };
}
