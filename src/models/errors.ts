/**
 * The error catalog, once: every code the API answers, its HTTP status, and the shape of an
 * envelope's `details`. The client (src/client/codes.ts) and the sandbox (src/sandbox/core/errors.ts)
 * both read it, so they cannot disagree. Depends on nothing of ours.
 * @module
 */

/** Every error code of the API, with its HTTP status (the reference's catalog plus the project's additions, docs/decisions.md). */
export const ERROR_STATUS = {
  validation_error: 400,
  invalid_json: 400,
  invalid_cursor: 400,
  idempotency_key_required: 400,
  invalid_cpf: 400,
  authentication_required: 401,
  authentication_failed: 401,
  api_key_env_mismatch: 401,
  invalid_api_key_format: 401,
  unauthorized: 401,
  missing_capability: 403,
  tenant_limit_exceeded: 403,
  not_found: 404,
  user_not_found: 404,
  quote_not_found: 404,
  transaction_not_found: 404,
  conversion_not_found: 404,
  api_key_not_found: 404,
  webhook_endpoint_not_found: 404,
  webhook_delivery_not_found: 404,
  idempotency_key_reused: 409,
  idempotency_key_in_progress: 409,
  invalid_transaction_state: 409,
  quote_already_consumed: 409,
  quote_expired: 409,
  duplicate_cpf: 409,
  duplicate_external_id: 409,
  pix_key_not_found: 422,
  transaction_limit_exceeded: 422,
  operation_support_required: 422,
  limit_upgrade_not_available: 422,
  rate_limit_exceeded: 429,
  internal_error: 500,
  upstream_unavailable: 502,
  price_feed_unavailable: 503,
  wallet_provider_unavailable: 503,
  storage_unavailable: 503,
} as const;

/** An error code of the catalog. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * `details.reason` of 422 `transaction_limit_exceeded`: `kyc_not_approved` when the user's KYC is
 * not approved (the user level is then 0: approve the KYC first), otherwise the level whose
 * ceiling the conversion would pass.
 */
export type TransactionLimitReason = 'kyc_not_approved' | 'user_daily' | 'user_monthly' | 'partner_daily' | 'partner_monthly' | 'platform_daily' | 'platform_monthly';

/** Details an error response may carry (`details.issues`, `details.retry_after_seconds`, `details.upstream`...). */
export type ErrorDetails = Record<string, unknown> & {
  /** What was invalid: a dotted `path` (empty for the root) and a `message` each (400 `validation_error`). */
  issues?: Array<{ path: string; message: string }>;
  /** Seconds to wait before retrying (429 `rate_limit_exceeded`). */
  retry_after_seconds?: number;
  /** Which upstream is unavailable (502 `upstream_unavailable`). */
  upstream?: string;
  /** Why a conversion is refused (422 `transaction_limit_exceeded`): branch on it (see {@link TransactionLimitReason}). */
  reason?: TransactionLimitReason | (string & {});
  /** The conversion that consumed the quote (409 `quote_already_consumed`); `null` when a transaction did (see `transaction_id`). */
  conversion_id?: string | null;
  /** The transaction that consumed the quote (409 `quote_already_consumed`, quote used by `POST /v1/transactions`). */
  transaction_id?: string | null;
};
