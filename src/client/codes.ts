/**
 * The error codes of the reference's catalog, with the few the project adds (docs/decisions.md,
 * "Errors and retries"). Branch on `code`, never on status or message.
 * @module
 */

/** Every error code the API is documented to answer. */
export const ERROR_CODES = [
  'validation_error',
  'invalid_json',
  'invalid_cursor',
  'idempotency_key_required',
  'invalid_cpf',
  'authentication_required',
  'authentication_failed',
  'api_key_env_mismatch',
  'invalid_api_key_format',
  'unauthorized',
  'missing_capability',
  'user_not_found',
  'quote_not_found',
  'transaction_not_found',
  'conversion_not_found',
  'webhook_endpoint_not_found',
  'webhook_delivery_not_found',
  'not_found',
  'idempotency_key_reused',
  'idempotency_key_in_progress',
  'invalid_transaction_state',
  'quote_already_consumed',
  'quote_expired',
  'duplicate_cpf',
  'duplicate_external_id',
  'pix_key_not_found',
  'transaction_limit_exceeded',
  'operation_support_required',
  'limit_upgrade_not_available',
  'rate_limit_exceeded',
  'internal_error',
  'upstream_unavailable',
  'price_feed_unavailable',
  'wallet_provider_unavailable',
] as const;

/** An error code of the catalog. */
export type ErrorCode = (typeof ERROR_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES);

/** Whether `code` is in the catalog. An unknown code is handled as `internal_error`. */
export function isKnownErrorCode(code: string | undefined): code is ErrorCode {
  return code !== undefined && KNOWN.has(code);
}
