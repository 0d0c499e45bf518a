/**
 * Sandbox Pix key resolution (reference "Sandbox Pix key resolution"): CPF and CNPJ keys
 * (numeric or alphanumeric) resolve when their check digits are valid, e-mail, phone and EVP
 * keys only when they are the fixed fixtures below; everything else is pix_key_not_found.
 * The Pix rules themselves (key formats, check digits, masks) are `pix-usdt/pix`'s: this module
 * holds only the sandbox's fixtures and its resolution table.
 * @module
 */
import type { PixKeyType } from '../../models/index.js';
import { maskCnpj, maskCpf } from '../../pix/documents.js';
import { normalizePixKey } from '../../pix/keys.js';
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

const FIXTURE_HOLDER: PixHolder = Object.freeze({ name: personName(FIXTURE_HOLDER_CPF), documentMasked: maskCpf(FIXTURE_HOLDER_CPF) as string });

/** The holder behind a key in the DICT's form (`key` is normalized for `type`). */
const HOLDERS: Record<PixKeyType, (key: string) => PixHolder | null> = {
  cpf: (cpf) => ({ name: personName(cpf), documentMasked: maskCpf(cpf) as string }),
  cnpj: (cnpj) => ({ name: `Empresa ${cnpj.slice(0, 4)} Ltda (Sandbox)`, documentMasked: maskCnpj(cnpj) as string }),
  email: (email) => (email === SANDBOX_PIX_EMAIL ? FIXTURE_HOLDER : null),
  phone: (phone) => (phone === SANDBOX_PIX_PHONE ? FIXTURE_HOLDER : null),
  evp: (evp) => (evp === SANDBOX_PIX_EVP ? FIXTURE_HOLDER : null),
};

/**
 * Resolves a Pix key to a synthetic holder, or throws pix_key_not_found. The key is read as
 * `pix-usdt/pix`'s `normalizePixKey` reads it (punctuated documents, any case of an e-mail or
 * EVP, a phone in national form), so a key a partner validated with that entry resolves here.
 */
export function resolvePixKey(type: PixKeyType, key: string): PixHolder {
  const normalized = Object.hasOwn(HOLDERS, type) ? normalizePixKey(key, type) : null;
  const holder = normalized === null ? null : HOLDERS[type](normalized);
  if (holder === null) throw notFound();
  return holder;
}
