/**
 * The error codes of the reference's catalog, with the few the project adds (docs/decisions.md,
 * "Errors and retries"). Branch on `code`, never on status or message.
 * @module
 */

import { ERROR_STATUS, type ErrorCode } from '../models/errors.js';

export type { ErrorCode } from '../models/errors.js';

/** Every error code the API is documented to answer (the keys of the catalog in src/models/errors.ts). */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as readonly ErrorCode[] as readonly [ErrorCode, ...ErrorCode[]];

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES);

/** Whether `code` is in the catalog. An unknown code is handled as `internal_error`. */
export function isKnownErrorCode(code: string | undefined): code is ErrorCode {
  return code !== undefined && KNOWN.has(code);
}
