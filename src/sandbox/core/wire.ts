/**
 * Records to wire objects (the shapes of src/models), including the fields derived on
 * output: deposit addresses, Pix BR Codes, Pix and chain transaction ids.
 * @module
 */
import type { ApiKey, ApiKeyWithSecret, Conversion, KycStatusView, Quote, Transaction, User, WalletBalance } from '../../models/index.js';
import { writeBrCode } from '../../pix/brcode.js';
import { maskCpf } from '../../pix/documents.js';
import { SANDBOX_PIX_EVP } from './pix.js';
import { derivedHex, flat } from './random.js';
import { STANDBY_MS } from './settings.js';
import type { ConversionRec, KeyRec, QuoteRec, TransactionRec, UserRec } from './state.js';

// A lifecycle writes the same few instants many times (created, updated, deadlines), in
// several answers and events: a bounded memo of their ISO strings.
const ISO = new Map<number, string>();

/** ISO 8601 in UTC. */
export function iso(ms: number): string {
  let out = ISO.get(ms);
  if (out === undefined) {
    out = new Date(ms).toISOString();
    if (ISO.size >= MEMO_MAX) ISO.clear();
    ISO.set(ms, out);
  }
  return out;
}

// Identifiers derived from a record id (addresses, hashes, Pix ids), kept per id: a lifecycle
// serializes the same conversion several times. Shared by sandboxes, which is safe because the
// results depend on the arguments alone; keyed by the record's own id string, whose hash V8 keeps.
// One object of one shape per id (not a key per kind and argument: `e2e${at}` was a new string
// and a dictionary-mode lookup on every call); the BR Code and the E2E id keep the argument
// they were made for. Both memos (this and ISO) start over when full: deleting the oldest entry
// left a hole at the head of V8's ordered table that every later `keys().next()` walked past
// (about 1.5 us a new id once full, as in a long-running sandbox).
const MEMO_MAX = 4096;

class Derived {
  address: string | null = null;
  pixTx: string | null = null;
  usdt: string | null = null;
  qrAmount: string | null = null;
  qr: string | null = null;
  e2eAt = Number.NaN;
  e2e: string | null = null;
}

const DERIVED = new Map<string, Derived>();

function derivedOf(id: string): Derived {
  let forId = DERIVED.get(id);
  if (forId === undefined) {
    if (DERIVED.size >= MEMO_MAX) DERIVED.clear();
    DERIVED.set(id, (forId = new Derived()));
  }
  return forId;
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

/** The deposit address issued for an offramp conversion: deterministic per id. */
export function depositAddress(id: string): string {
  const d = derivedOf(id);
  return (d.address ??= derivedHex(`address:${id}`, 40, '0x'));
}

/** A Pix BR Code (EMV "copia e cola") for paying `amount` BRL, deterministic per id. */
export function pixQrCode(id: string, amount: string): string {
  const d = derivedOf(id);
  if (d.qr === null || d.qrAmount !== amount) {
    d.qr = flat(brCode(id, amount));
    d.qrAmount = amount;
  }
  return d.qr;
}

// Written by pix-usdt/pix without the read-back check of `buildBrCode` (about 60% of its cost,
// twice an onramp lifecycle): the key, name and city are constants and the amount and txid are
// the sandbox's own, so every code is valid by construction, which test/sandbox/core/wire.test.ts
// holds with `validateBrCode` over any amount. A single-use static code to the sandbox's EVP key.
// Field 54 holds 13 characters at most; an amount a BR Code cannot carry (R$ 10 billion or more,
// only reachable with raised limits) leaves the amount to the payer.
function brCode(id: string, amount: string): string {
  return writeBrCode(
    {
      key: SANDBOX_PIX_EVP,
      merchantName: 'PIX USDT SANDBOX',
      merchantCity: 'SAO PAULO',
      ...(amount.length <= 13 ? { amount } : {}),
      txid: derivedHex(`txid:${id}`, 25).toUpperCase(),
      singleUse: true,
    },
    SANDBOX_PIX_EVP,
  );
}

function pixTxId(id: string): string {
  const d = derivedOf(id);
  return (d.pixTx ??= derivedHex(`pixtx:${id}`, 32));
}

function pixE2eId(id: string, at: number): string {
  const d = derivedOf(id);
  if (d.e2e === null || d.e2eAt !== at) {
    d.e2e = e2eOf(id, at);
    d.e2eAt = at;
  }
  return d.e2e;
}

function e2eOf(id: string, at: number): string {
  const d = new Date(at);
  const stamp = `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}${String(d.getUTCHours()).padStart(2, '0')}${String(d.getUTCMinutes()).padStart(2, '0')}`;
  return derivedHex(`e2e:${id}`, 11, `E00000000${stamp}`);
}

function usdtTxHash(id: string): string {
  const d = derivedOf(id);
  return (d.usdt ??= derivedHex(`usdt:${id}`, 64, '0x'));
}

/** A user on the wire. */
export function userOut(u: UserRec): User {
  return {
    id: u.id,
    external_id: u.externalId,
    name: u.name,
    email: u.email,
    date_of_birth: u.dateOfBirth,
    user_type: 'individual',
    document_type: 'cpf',
    // A `replace` with a callback (pix/documents.ts `layout`) makes one flat string already: no `flat`.
    document_masked: maskCpf(u.cpf) as string,
    risk_profile: 'conservative',
    kyc_status: u.kycStatus,
    kyc_approved_at: isoOrNull(u.kycApprovedAt),
    kyc_expires_at: isoOrNull(u.kycExpiresAt),
    custody_status: 'not_enrolled',
    custody_status_updated_at: iso(u.createdAt),
    metadata: u.metadata,
    created_at: iso(u.createdAt),
    updated_at: iso(u.updatedAt),
  };
}

// A string JSON.stringify writes as it is between quotes: no quote, backslash, control character
// or surrogate (a lone one is escaped; a pair is left to JSON.stringify, which keeps it).
// eslint-disable-next-line no-control-regex
const PLAIN_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

function jsonText(value: string): string {
  return PLAIN_TEXT.test(value) ? `"${value}"` : JSON.stringify(value);
}

function jsonTextOrNull(value: string | null): string {
  return value === null ? 'null' : jsonText(value);
}

function jsonInstant(ms: number | null): string {
  return ms === null ? 'null' : `"${iso(ms)}"`;
}

/**
 * `JSON.stringify(userOut(u))`, byte for byte, written as one template: a new user's answer and
 * every replay of a user's version (about 0.2 us against 1 us for the object and its
 * stringify). A record whose fields are not of their types (none is stored so) goes through
 * `userOut` instead. test/sandbox/core/wire.test.ts holds the two to each other.
 */
export function userJson(u: UserRec): string {
  const { email, dateOfBirth, metadata } = u;
  const masked = maskCpf(u.cpf);
  if (
    typeof u.id !== 'string' ||
    typeof u.externalId !== 'string' ||
    typeof u.name !== 'string' ||
    (email !== null && typeof email !== 'string') ||
    (dateOfBirth !== null && typeof dateOfBirth !== 'string') ||
    typeof u.kycStatus !== 'string' ||
    masked === null ||
    typeof metadata !== 'object' ||
    metadata === null
  ) {
    return JSON.stringify(userOut(u));
  }
  const created = `"${iso(u.createdAt)}"`;
  return `{"id":${jsonText(u.id)},"external_id":${jsonText(u.externalId)},"name":${jsonText(u.name)},"email":${jsonTextOrNull(email)},"date_of_birth":${jsonTextOrNull(dateOfBirth)},"user_type":"individual","document_type":"cpf","document_masked":${jsonText(masked)},"risk_profile":"conservative","kyc_status":${jsonText(u.kycStatus)},"kyc_approved_at":${jsonInstant(u.kycApprovedAt)},"kyc_expires_at":${jsonInstant(u.kycExpiresAt)},"custody_status":"not_enrolled","custody_status_updated_at":${created},"metadata":${isEmptyPlain(metadata) ? '{}' : JSON.stringify(metadata)},"created_at":${created},"updated_at":"${iso(u.updatedAt)}"}`;
}

// A plain object without keys (a user's NO_METADATA, most users' metadata) writes `{}`.
function isEmptyPlain(value: object): boolean {
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const _ in value) return false;
  return true;
}

/** The KYC status view. */
export function kycViewOut(u: UserRec): KycStatusView {
  const s = u.submission;
  return {
    user_id: u.id,
    kyc_status: u.kycStatus,
    kyc_approved_at: isoOrNull(u.kycApprovedAt),
    kyc_expires_at: isoOrNull(u.kycExpiresAt),
    latest_submission: s && {
      id: s.id,
      user_id: u.id,
      provider: 'sandbox',
      external_id: flat(`sandbox_${s.id.slice(0, 8)}`),
      status: s.status,
      submitted_at: isoOrNull(s.submittedAt),
      result_at: isoOrNull(s.resultAt),
      rejection_reason: s.rejectionReason,
      created_at: iso(s.createdAt),
    },
  };
}

/** A user's wallet balance. */
export function walletOut(u: UserRec): WalletBalance {
  return {
    asset: 'USDT',
    balance: u.balance,
    available_balance: u.balance,
    network: 'polygon',
    wallet_id: u.walletId,
    updated_at: iso(u.walletUpdatedAt),
    stale: false,
  };
}

/** A quote on the wire. */
export function quoteOut(q: QuoteRec): Quote {
  const onramp = q.direction === 'onramp';
  return {
    id: q.id,
    user_id: q.userId,
    source_amount: q.sourceAmount,
    source_currency: onramp ? 'BRL' : 'USDT',
    target_amount: q.targetAmount,
    target_currency: onramp ? 'USDT' : 'BRL',
    exchange_rate: q.exchangeRate,
    spread_bps: q.spreadBps,
    withdrawal_fee_usdt: q.feeUsdt,
    net_target_amount: q.netTargetAmount,
    destination_wallet_address: q.walletAddress,
    destination_wallet_network: onramp ? 'polygon' : null,
    pix_key: q.pixKey,
    pix_key_type: q.pixKeyType,
    deposit_network: onramp ? null : 'polygon',
    pix_holder_name: q.holderName,
    pix_holder_document_masked: q.holderDocument,
    pix_key_verified_at: isoOrNull(q.pixVerifiedAt),
    status: q.status,
    expires_at: iso(q.expiresAt),
    consumed_at: isoOrNull(q.consumedAt),
    consumed_by_conversion_id: q.consumedBy,
    created_at: iso(q.createdAt),
  };
}

/** A conversion on the wire. */
export function conversionOut(c: ConversionRec): Conversion {
  const onramp = c.direction === 'onramp';
  return {
    id: c.id,
    user_id: c.userId,
    quote_id: c.quoteId,
    liquidation_quote_id: c.liquidationQuoteId,
    transaction_type: onramp ? 'pix_onramp' : 'pix_offramp',
    status: c.status,
    expected_source_amount: c.expected,
    received_amount: c.received,
    source_currency: onramp ? 'BRL' : 'USDT',
    target_amount: c.targetAmount,
    target_currency: onramp ? 'USDT' : 'BRL',
    deposit_window_expires_at: iso(c.windowExpiresAt),
    standby_at: isoOrNull(c.standbyAt),
    standby_expires_at: c.standbyAt === null ? null : iso(c.standbyAt + STANDBY_MS),
    standby_reason: c.standbyReason,
    deposit_address: onramp ? null : depositAddress(c.id),
    deposit_address_network: onramp ? null : 'polygon',
    pix_qr_code: onramp ? pixQrCode(c.id, c.expected) : null,
    pix_tx_id: c.pixAt === null ? null : pixTxId(c.id),
    pix_e2e_id: c.pixAt === null ? null : pixE2eId(c.id, c.pixAt),
    usdt_tx_hash: c.usdtAt === null ? null : usdtTxHash(c.id),
    completed_at: isoOrNull(c.completedAt),
    failure_reason: c.failureReason,
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
  };
}

/** A transaction on the wire. */
export function transactionOut(t: TransactionRec): Transaction {
  return {
    id: t.id,
    user_id: t.userId,
    quote_id: t.quoteId,
    type: 'pix_onramp',
    status: t.status,
    source_amount: t.sourceAmount,
    source_currency: 'BRL',
    target_amount: t.targetAmount,
    target_currency: 'USDT',
    exchange_rate: t.exchangeRate,
    pix_qr_code: pixQrCode(t.id, t.sourceAmount),
    pix_tx_id: t.pixPaidAt === null ? null : pixTxId(t.id),
    pix_paid_at: isoOrNull(t.pixPaidAt),
    destination_wallet_address: t.walletAddress,
    destination_wallet_network: 'polygon',
    usdt_tx_hash: t.usdtSentAt === null ? null : usdtTxHash(t.id),
    usdt_sent_at: isoOrNull(t.usdtSentAt),
    failure_reason: t.failureReason,
    created_at: iso(t.createdAt),
    updated_at: iso(t.updatedAt),
    completed_at: isoOrNull(t.completedAt),
  };
}

/** An API key without its secret (`key_prefix` shows its first 12 characters). */
export function apiKeyOut(k: KeyRec): ApiKey {
  return { id: k.id, key_prefix: k.secret.slice(0, 12), capabilities: [...k.capabilities], name: k.name, created_at: iso(k.createdAt) };
}

/** An API key with its secret: only the answers that issue one (a rotation, a new tenant or a fork) carry it. */
export function apiKeyWithSecretOut(k: KeyRec): ApiKeyWithSecret {
  return { ...apiKeyOut(k), api_key: k.secret };
}
