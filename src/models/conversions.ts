/**
 * Conversions (an accepted quote followed to its end) and transactions (the settlement leg).
 * @module
 */
import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { Decimal, ListParams, NullableString, OptionalTimestamp, Timestamp, Uuid, openEnum } from './common.js';
import { NETWORKS } from './quotes.js';

/** Conversion states. `liquidated` is transient, on the way to completed or failed. */
export const CONVERSION_STATUSES = [
  'awaiting_deposit',
  'funded',
  'standby',
  'liquidated',
  'completed',
  'failed',
  'expired',
  'canceled',
  'abandoned',
] as const;
/** A conversion's state. */
export type ConversionStatus = (typeof CONVERSION_STATUSES)[number];

/** Why a conversion waits in standby for a manual decision. */
export const STANDBY_REASONS = [
  'under_funded',
  'over_funded',
  'window_expired',
  'duplicate_deposit',
  'wrong_address',
  'late_post_window',
] as const;
/** Why a conversion is in standby. */
export type StandbyReason = (typeof STANDBY_REASONS)[number];

/** Reasons the fail helper accepts. */
export const FAIL_REASONS = [
  'pix_expired',
  'pix_rejected',
  'crypto_deposit_expired',
  'crypto_deposit_rejected',
  'settlement_failed',
  'compliance_rejected',
] as const;
/** A reason the fail helper accepts. */
export type FailReason = (typeof FAIL_REASONS)[number];

/** Failure reasons a conversion can carry (the fail-helper reasons and `pix_send_failed`). */
export const FAILURE_REASONS = [...FAIL_REASONS, 'pix_send_failed'] as const;
/** A failure reason. */
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Conversion directions: `pix_onramp` (BRL to USDT) and `pix_offramp` (USDT to BRL). */
export const TRANSACTION_TYPES = ['pix_onramp', 'pix_offramp'] as const;
/** A conversion direction. */
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** An accepted quote, followed from the deposit to its end. */
export const Conversion = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    id: z.string(),
    user_id: z.string(),
    quote_id: z.string(),
    liquidation_quote_id: NullableString,
    transaction_type: openEnum(TRANSACTION_TYPES),
    status: openEnum(CONVERSION_STATUSES),
    expected_source_amount: z.string(),
    received_amount: z.string(),
    source_currency: z.string(),
    target_amount: z.string(),
    target_currency: z.string(),
    deposit_window_expires_at: OptionalTimestamp,
    standby_at: OptionalTimestamp,
    standby_expires_at: OptionalTimestamp,
    standby_reason: z.nullable(openEnum(STANDBY_REASONS)),
    deposit_address: NullableString,
    deposit_address_network: z.nullable(openEnum(NETWORKS)),
    pix_qr_code: NullableString,
    pix_tx_id: NullableString,
    pix_e2e_id: NullableString,
    usdt_tx_hash: NullableString,
    completed_at: OptionalTimestamp,
    failure_reason: z.nullable(openEnum(FAILURE_REASONS)),
    created_at: Timestamp,
    updated_at: Timestamp,
  }));
/** An accepted quote, followed from the deposit to its end. */
export type Conversion = z.infer<typeof Conversion>;

/** Query of `GET /v1/conversions`. */
export const ListConversionsParams = /* @__PURE__ */ lazy(() =>
  z.extend(ListParams, {
    status: z.optional(z.enum(CONVERSION_STATUSES)),
    user_id: z.optional(Uuid),
    transaction_type: z.optional(z.enum(TRANSACTION_TYPES)),
  }));
/** Query of `GET /v1/conversions`. */
export type ListConversionsParams = z.infer<typeof ListConversionsParams>;

/** Transaction (settlement leg) states. */
export const TRANSACTION_STATUSES = [
  'pending_payment',
  'payment_received',
  'buying_crypto',
  'sending_crypto',
  'completed',
  'failed',
  'refunded',
  'cancelled',
  'expired',
] as const;
/** A transaction's state. */
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** The settlement leg of a conversion. */
export const Transaction = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    id: z.string(),
    user_id: z.string(),
    quote_id: z.string(),
    type: openEnum(TRANSACTION_TYPES),
    status: openEnum(TRANSACTION_STATUSES),
    source_amount: z.string(),
    source_currency: z.string(),
    target_amount: z.string(),
    target_currency: z.string(),
    exchange_rate: z.string(),
    pix_qr_code: NullableString,
    pix_tx_id: NullableString,
    pix_paid_at: OptionalTimestamp,
    destination_wallet_address: NullableString,
    destination_wallet_network: z.nullable(openEnum(NETWORKS)),
    usdt_tx_hash: NullableString,
    usdt_sent_at: OptionalTimestamp,
    failure_reason: NullableString,
    created_at: Timestamp,
    updated_at: Timestamp,
    completed_at: OptionalTimestamp,
  }));
/** The settlement leg of a conversion. */
export type Transaction = z.infer<typeof Transaction>;

/** Body of `POST /v1/transactions`. */
export const CreateTransactionBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({ quote_id: Uuid }));
/** Body of `POST /v1/transactions`. */
export type CreateTransactionBody = z.infer<typeof CreateTransactionBody>;

/** Query of `GET /v1/transactions`. */
export const ListTransactionsParams = /* @__PURE__ */ lazy(() =>
  z.extend(ListParams, {
    user_id: z.optional(Uuid),
    status: z.optional(z.enum(TRANSACTION_STATUSES)),
  }));
/** Query of `GET /v1/transactions`. */
export type ListTransactionsParams = z.infer<typeof ListTransactionsParams>;

/** Body of the onramp-paid and offramp-deposit helpers. */
export const SimulatePaymentBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    /** Amount paid or deposited; omitted means the quoted amount. */
    amount: z.optional(Decimal),
    /** Also settle the conversion in the same call. */
    settle: z.optional(z.boolean()),
    /** Sandbox: `false` records a detected, not yet confirmed deposit (the state waits). Default `true`. */
    confirmed: z.optional(z.boolean()),
    /** Sandbox, offramp: the address the USDT was sent to; another than the issued one gives standby `wrong_address`. */
    deposit_address: z.optional(z.string().check(z.maxLength(100))),
    /** Sandbox: `true` confirms the deposit after the window closed, before the expiry was applied: standby `late_post_window`. */
    late: z.optional(z.boolean()),
  }));
/** Body of the onramp-paid and offramp-deposit helpers. */
export type SimulatePaymentBody = z.infer<typeof SimulatePaymentBody>;

/** Body of the deposit alias helper (`/deposit`): the amount is required there. */
export const SimulateDepositBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    amount: Decimal,
    settle: z.optional(z.boolean()),
    confirmed: z.optional(z.boolean()),
    deposit_address: z.optional(z.string().check(z.maxLength(100))),
    late: z.optional(z.boolean()),
  }));
/** Body of the deposit alias helper. */
export type SimulateDepositBody = z.infer<typeof SimulateDepositBody>;

/** Body of the expire helper. */
export const ExpireConversionBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({ occurred_at: z.optional(z.iso.datetime()) }));
/** Body of the expire helper. */
export type ExpireConversionBody = z.infer<typeof ExpireConversionBody>;

/** Body of the fail helper. */
export const FailConversionBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    reason: z.enum(FAIL_REASONS),
    occurred_at: z.optional(z.iso.datetime()),
  }));
/** Body of the fail helper. */
export type FailConversionBody = z.infer<typeof FailConversionBody>;

/** Body of the fail-crypto and fail-pix alias helpers: the reason is implied by the path. */
export const FailAliasBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({ occurred_at: z.optional(z.iso.datetime()) }));
/** Body of the fail-crypto and fail-pix alias helpers. */
export type FailAliasBody = z.infer<typeof FailAliasBody>;

/** KYC outcomes the KYC helper forces (`expired` comes from the webhook testing guide). */
export const KYC_HELPER_STATUSES = ['approved', 'rejected', 'in_review', 'expired'] as const;

/** Body of `POST /v1/test_helpers/users/{id}/kyc`. */
export const ForceKycBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    status: z.enum(KYC_HELPER_STATUSES),
    rejection_reason: z.optional(z.string().check(z.maxLength(500))),
  }));
/** Body of `POST /v1/test_helpers/users/{id}/kyc`. */
export type ForceKycBody = z.infer<typeof ForceKycBody>;
