/**
 * Users (the partner's end customers), their KYC view and wallet balance.
 * @module
 */
import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { AnsweredMetadata, Decimal, ListParams, Metadata, NullableString, OptionalTimestamp, Timestamp, openEnum } from './common.js';

/** KYC states of a user, as the reference lists them. */
export const KYC_STATUSES = ['not_started', 'pending', 'approved', 'rejected', 'expired', 'blocked'] as const;
/** KYC state of a user. */
export type KycStatus = (typeof KYC_STATUSES)[number];

/** An end customer of the partner. The document number is never returned in full. */
export const User = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    id: z.string(),
    external_id: z.string(),
    name: z.string(),
    email: NullableString,
    date_of_birth: NullableString,
    user_type: openEnum(['individual']),
    document_type: openEnum(['cpf']),
    document_masked: z.string(),
    risk_profile: NullableString,
    kyc_status: openEnum(KYC_STATUSES),
    kyc_approved_at: OptionalTimestamp,
    kyc_expires_at: OptionalTimestamp,
    custody_status: NullableString,
    custody_status_updated_at: OptionalTimestamp,
    metadata: AnsweredMetadata,
    created_at: Timestamp,
    updated_at: Timestamp,
  }));
/** An end customer of the partner. */
export type User = z.infer<typeof User>;

const Email = /* @__PURE__ */ lazy(() =>
  z.string().check(z.maxLength(254), z.regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'Expected an e-mail address')));
const DateOfBirth = /* @__PURE__ */ lazy(() =>
  z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date as YYYY-MM-DD')));
const Name = /* @__PURE__ */ lazy(() =>
  z.string().check(z.minLength(1), z.maxLength(200)));

/**
 * Body of `POST /v1/users`. `document_number` is a CPF, with or without punctuation;
 * its format and check digits are validated (invalid_cpf) and it is immutable afterwards.
 */
export const CreateUserBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    external_id: z.string().check(z.minLength(1), z.maxLength(255)),
    name: Name,
    document_type: z.enum(['cpf']),
    document_number: z.string().check(z.minLength(1), z.maxLength(32)),
    email: z.optional(Email),
    date_of_birth: z.optional(DateOfBirth),
    user_type: z.optional(z.enum(['individual'])),
    metadata: z.optional(Metadata),
    /** Open a KYC submission at creation (default `true`); `false` leaves the user `not_started`. */
    start_kyc: z.optional(z.boolean()),
  }));
/** Body of `POST /v1/users`. */
export type CreateUserBody = z.infer<typeof CreateUserBody>;

/** Body of `PATCH /v1/users/{id}`: the document is immutable and so absent here. */
export const UpdateUserBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    external_id: z.optional(z.string().check(z.minLength(1), z.maxLength(255))),
    name: z.optional(Name),
    email: z.optional(z.nullable(Email)),
    date_of_birth: z.optional(z.nullable(DateOfBirth)),
    metadata: z.optional(Metadata),
  }));
/** Body of `PATCH /v1/users/{id}`. */
export type UpdateUserBody = z.infer<typeof UpdateUserBody>;

/** Query of `GET /v1/users`. `cpf` looks a user up by document (digits, punctuation allowed). */
export const ListUsersParams = /* @__PURE__ */ lazy(() =>
  z.extend(ListParams, {
    kyc_status: z.optional(z.enum(KYC_STATUSES)),
    cpf: z.optional(z.string().check(z.maxLength(32))),
    external_id: z.optional(z.string().check(z.maxLength(255))),
  }));
/** Query of `GET /v1/users`. */
export type ListUsersParams = z.infer<typeof ListUsersParams>;

/** A user's USDT wallet balance. */
export const WalletBalance = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    asset: openEnum(['USDT']),
    balance: z.string(),
    available_balance: z.string(),
    network: openEnum(['polygon']),
    wallet_id: z.string(),
    updated_at: Timestamp,
    stale: z.boolean(),
  }));
/** A user's USDT wallet balance. */
export type WalletBalance = z.infer<typeof WalletBalance>;

/** Body of `POST /v1/users/{user_id}/limit-upgrade-requests`. */
export const LimitUpgradeRequestBody = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    requested_daily_limit_brl: z.optional(Decimal),
    requested_monthly_limit_brl: z.optional(Decimal),
    reason: z.optional(z.string().check(z.maxLength(1000))),
  }));
/** Body of `POST /v1/users/{user_id}/limit-upgrade-requests`. */
export type LimitUpgradeRequestBody = z.infer<typeof LimitUpgradeRequestBody>;

/** A limit-upgrade request (the platform answers limit_upgrade_not_available for now). */
export const LimitUpgradeRequest = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    id: z.string(),
    user_id: z.string(),
    status: openEnum(['pending', 'approved', 'rejected']),
    requested_daily_limit_brl: NullableString,
    requested_monthly_limit_brl: NullableString,
    reason: NullableString,
    created_at: Timestamp,
  }));
/** A limit-upgrade request. */
export type LimitUpgradeRequest = z.infer<typeof LimitUpgradeRequest>;

/** KYC submission states; the reference shows `initiated`. */
export const KYC_SUBMISSION_STATUSES = ['initiated', 'in_review', 'approved', 'rejected', 'expired'] as const;

/** A KYC submission of a user. */
export const KycSubmission = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    id: z.string(),
    user_id: z.string(),
    provider: z.string(),
    external_id: NullableString,
    status: openEnum(KYC_SUBMISSION_STATUSES),
    submitted_at: OptionalTimestamp,
    result_at: OptionalTimestamp,
    rejection_reason: NullableString,
    created_at: Timestamp,
  }));
/** A KYC submission of a user. */
export type KycSubmission = z.infer<typeof KycSubmission>;

/** The KYC status view returned by the KYC test helper. */
export const KycStatusView = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    user_id: z.string(),
    kyc_status: openEnum(KYC_STATUSES),
    kyc_approved_at: OptionalTimestamp,
    kyc_expires_at: OptionalTimestamp,
    latest_submission: z.nullable(KycSubmission),
  }));
/** The KYC status view returned by the KYC test helper. */
export type KycStatusView = z.infer<typeof KycStatusView>;

