/**
 * Typed API errors of the sandbox; codes and statuses come from the one catalog (src/models/errors.ts).
 * @module
 */

import { ERROR_STATUS, type ErrorCode, type ErrorDetails } from '../../models/errors.js';

export { ERROR_STATUS, type ErrorCode, type ErrorDetails } from '../../models/errors.js';

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
