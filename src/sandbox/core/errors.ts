/**
 * Typed API errors of the sandbox and the one table of their HTTP statuses.
 * @module
 */

/** Every error code the sandbox answers, with its HTTP status (docs/decisions.md). */
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
  not_found: 404,
  user_not_found: 404,
  quote_not_found: 404,
  transaction_not_found: 404,
  conversion_not_found: 404,
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
} as const;

/** An error code the sandbox can answer. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Details of an error envelope. */
export interface ErrorDetails {
  /** What was invalid: a dotted `path` and a `message` each (`validation_error`). */
  issues?: Array<{ path: string; message: string }>;
  /** Seconds to wait before retrying (`rate_limit_exceeded`). */
  retry_after_seconds?: number;
  /** Which upstream is unavailable (`upstream_unavailable`). */
  upstream?: string;
  [key: string]: unknown;
}

/** An error a handler throws; the pipeline turns it into the reference's envelope. */
export class ApiError extends Error {
  /** The class name. */
  override readonly name = 'ApiError';
  /** HTTP status of the answer, from {@link ERROR_STATUS}. */
  readonly status: number;
  constructor(
    /** The catalog code of the envelope. */
    readonly code: ErrorCode,
    message: string,
    /** `details` of the envelope. */
    readonly details?: ErrorDetails,
    /** Extra response headers (e.g. `Retry-After`). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

/** A validation error with one issue. */
export function invalid(path: string, message: string): ApiError {
  return new ApiError('validation_error', 'The request is invalid.', { issues: [{ path, message }] });
}
