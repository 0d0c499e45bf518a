/**
 * What the API reference promises, as data: the field set and type of every resource the
 * scenarios read, and the HTTP status of every catalog code that has one. Only the reference's
 * own words go here; the project's answers to its "not shown" gaps are findings, never promises.
 * @module
 */

/** The type of a JSON value as the comparison sees it: ids and timestamps by their form, never their value. */
export type ValueKind = 'uuid' | 'timestamp' | 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'array' | 'object';

/** A resource's field set: each field and its kind. */
export type FieldSet = Readonly<Record<string, ValueKind>>;

/** User (reference: Resources, User). */
export const USER_FIELDS: FieldSet = {
  id: 'uuid', external_id: 'string', name: 'string', email: 'string', date_of_birth: 'string', user_type: 'string',
  document_type: 'string', document_masked: 'string', risk_profile: 'string', kyc_status: 'string',
  kyc_approved_at: 'timestamp', kyc_expires_at: 'timestamp', custody_status: 'string', custody_status_updated_at: 'timestamp',
  metadata: 'object', created_at: 'timestamp', updated_at: 'timestamp',
};

/** Quote (reference: Resources, Quote). */
export const QUOTE_FIELDS: FieldSet = {
  id: 'uuid', user_id: 'uuid', source_amount: 'string', source_currency: 'string', target_amount: 'string', target_currency: 'string',
  exchange_rate: 'string', spread_bps: 'integer', withdrawal_fee_usdt: 'string', net_target_amount: 'string',
  destination_wallet_address: 'string', destination_wallet_network: 'string', pix_key: 'string', pix_key_type: 'string',
  deposit_network: 'string', pix_holder_name: 'string', pix_holder_document_masked: 'string', pix_key_verified_at: 'timestamp',
  status: 'string', expires_at: 'timestamp', consumed_at: 'timestamp', consumed_by_conversion_id: 'uuid', created_at: 'timestamp',
};

/** Conversion (reference: Resources, Conversion). */
export const CONVERSION_FIELDS: FieldSet = {
  id: 'uuid', user_id: 'uuid', quote_id: 'uuid', liquidation_quote_id: 'uuid', transaction_type: 'string', status: 'string',
  expected_source_amount: 'string', received_amount: 'string', source_currency: 'string', target_amount: 'string', target_currency: 'string',
  deposit_window_expires_at: 'timestamp', standby_at: 'timestamp', standby_expires_at: 'timestamp', standby_reason: 'string',
  deposit_address: 'string', deposit_address_network: 'string', pix_qr_code: 'string', pix_tx_id: 'string', pix_e2e_id: 'string',
  usdt_tx_hash: 'string', completed_at: 'timestamp', failure_reason: 'string', created_at: 'timestamp', updated_at: 'timestamp',
};

/** KYC status view (reference: Resources, KYC status view). */
export const KYC_VIEW_FIELDS: FieldSet = {
  user_id: 'uuid', kyc_status: 'string', kyc_approved_at: 'timestamp', kyc_expires_at: 'timestamp', latest_submission: 'object',
};

/** Wallet balance (reference: Resources, Wallet balance). */
export const WALLET_FIELDS: FieldSet = {
  asset: 'string', balance: 'string', available_balance: 'string', network: 'string', wallet_id: 'uuid', updated_at: 'timestamp', stale: 'boolean',
};

/** Webhook endpoint (reference: Resources, Webhook endpoint; its timestamps are typed "string" there). */
export const WEBHOOK_ENDPOINT_FIELDS: FieldSet = {
  id: 'uuid', url: 'string', status: 'string', event_types: 'array', description: 'string',
  secret_prefix: 'string', secret_last_four: 'string', created_at: 'string', updated_at: 'string',
};

/** The error envelope's required fields. */
export const ERROR_ENVELOPE_FIELDS: FieldSet = { code: 'string', message: 'string', request_id: 'string' };

/** HTTP status of every catalog code the reference gives one (Errors). */
export const CATALOG_STATUS: Readonly<Record<string, number>> = {
  validation_error: 400, invalid_json: 400, invalid_cursor: 400, idempotency_key_required: 400,
  authentication_required: 401, authentication_failed: 401, api_key_env_mismatch: 401, invalid_api_key_format: 401, unauthorized: 401,
  missing_capability: 403,
  user_not_found: 404, quote_not_found: 404, transaction_not_found: 404, conversion_not_found: 404,
  idempotency_key_reused: 409, idempotency_key_in_progress: 409, invalid_transaction_state: 409, quote_already_consumed: 409,
  quote_expired: 409, duplicate_cpf: 409, duplicate_external_id: 409,
  pix_key_not_found: 422, rate_limit_exceeded: 429, internal_error: 500, upstream_unavailable: 502,
};

/** User.kyc_status values. */
export const KYC_STATUSES = ['not_started', 'pending', 'approved', 'rejected', 'expired', 'blocked'] as const;
/** Quote.status values. */
export const QUOTE_STATUSES = ['active', 'expired', 'consumed', 'cancelled'] as const;
/** Conversion.standby_reason values. */
export const STANDBY_REASONS = ['under_funded', 'over_funded', 'window_expired', 'duplicate_deposit', 'wrong_address', 'late_post_window'] as const;
/** Reasons the fail helper takes. */
export const FAIL_HELPER_REASONS = ['pix_expired', 'pix_rejected', 'crypto_deposit_expired', 'crypto_deposit_rejected', 'settlement_failed', 'compliance_rejected'] as const;

/** The Pix keys of the reference's sandbox resolution table that are given as literal values. */
export const PIX_EVP_RESOLVES = '00000000-0000-0000-0000-000000000001';
/** The EVP key that never resolves. */
export const PIX_EVP_NOT_FOUND = '00000000-0000-0000-0000-000000000000';

/**
 * The fixed e-mail and phone keys of the sandbox Pix table. The reference shows them only as
 * placeholders, so these defaults are the project's sandbox values (docs/sandbox.md); pass the
 * platform's own with `pixFixtures` when it publishes them.
 */
export interface PixFixtures {
  /** The e-mail key that resolves. */
  email: string;
  /** The e-mail key that never resolves. */
  notFoundEmail: string;
  /** The phone key that resolves. */
  phone: string;
  /** The phone key that never resolves. */
  notFoundPhone: string;
}

/** The project's sandbox values (kept equal to the sandbox's exported constants by a test). */
export const DEFAULT_PIX_FIXTURES: PixFixtures = {
  email: 'pix@sandbox.pix-usdt.com',
  notFoundEmail: 'notfound@sandbox.pix-usdt.com',
  phone: '+5511999999999',
  notFoundPhone: '+5511000000000',
};
