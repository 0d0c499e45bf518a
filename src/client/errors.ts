/**
 * Errors thrown by the client. Every class has a literal `name` and a guard (`isX(err)`) that
 * checks a cross-realm brand and the name, so the guards keep working where `instanceof`
 * does not (two copies of the package, a vm context, a worker).
 *
 * None of them carries a secret: messages and details pass through {@link redactSecrets},
 * and `JSON.stringify(error)` shows only the documented fields.
 * @module
 */
import type { ErrorDetails } from '../models/errors.js';
import { summarizeIssues } from '../models/issues.js';
import type { ErrorCode } from './codes.js';

// Symbol.for is shared by every realm of the process, unlike a class identity.
const BRAND = Symbol.for('pix-usdt.error');

/** Details an error response may carry (the catalog's type, src/models/errors.ts). */
export type { ErrorDetails, TransactionLimitReason } from '../models/errors.js';

/** Fields every error of the client can carry. */
export interface ErrorFields {
  /** HTTP status of the answer; omitted when there was no answer. */
  status?: number | undefined;
  /** Machine-readable code (the API's, or the client's own such as `timeout`). */
  code?: string | undefined;
  /** `request_id` of the answer; `null` or omitted without one. */
  requestId?: string | null | undefined;
  /** `details` of the error envelope (secrets are redacted when the error is built). */
  details?: ErrorDetails | undefined;
  /** The Idempotency-Key the call used (mutations only). */
  idempotencyKey?: string | undefined;
  /** The mutation may have been applied (sent, no definitive answer). Default `false`. */
  indeterminate?: boolean | undefined;
  /** The underlying error, kept as the standard `Error.cause`. */
  cause?: unknown;
}

// Up to a space, a quote or a delimiter: keys and secrets contain none of them.
const SECRET = /\b(sk_(?:test|live)_|whsec_)[^\s"'`<>,;()[\]{}]+/g;

/** Replaces anything shaped like an API key or a webhook secret by its prefix and `[redacted]`. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET, '$1[redacted]');
}

function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactDeep);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v)]));
  }
  return value;
}

/** The base class of every error the client throws. */
export class PixUsdtError extends Error {
  /** The class name; subclasses narrow it to their own literal name. */
  override readonly name: string = 'PixUsdtError';
  /** HTTP status of the answer; `undefined` when there was no answer. */
  readonly status: number | undefined;
  /** Machine-readable code: the API's code, or the client's (`connection_error`, `timeout`, `aborted`, ...). */
  readonly code: string | undefined;
  /** `request_id` of the answer (body, or the `x-request-id` header); `null` without one. */
  readonly requestId: string | null;
  /** `details` of the error envelope. */
  readonly details: ErrorDetails | undefined;
  /** The Idempotency-Key the call used (mutations only); retry with it to stay safe. */
  readonly idempotencyKey: string | undefined;
  /**
   * `true` when a mutation was sent and no definitive answer came back: it may have been
   * applied. Retry with the same `idempotencyKey` to learn the outcome without applying it twice.
   */
  readonly indeterminate: boolean;

  constructor(message: string, fields: ErrorFields = {}) {
    super(redactSecrets(message), fields.cause === undefined ? undefined : { cause: fields.cause });
    this.status = fields.status;
    this.code = fields.code;
    this.requestId = fields.requestId ?? null;
    this.details = fields.details === undefined ? undefined : (redactDeep(fields.details) as ErrorDetails);
    this.idempotencyKey = fields.idempotencyKey;
    this.indeterminate = fields.indeterminate ?? false;
  }

  /** The documented fields only (no stack, no cause, no headers). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      requestId: this.requestId,
      details: this.details,
      idempotencyKey: this.idempotencyKey,
      indeterminate: this.indeterminate,
    };
  }
}
Object.defineProperty(PixUsdtError.prototype, BRAND, { value: true });

/** An error answer of the API (any non-2xx status). Subclasses name the family. */
export class PixUsdtApiError extends PixUsdtError {
  /** The class name; subclasses narrow it to their own literal name. */
  override readonly name: string = 'PixUsdtApiError';
  declare readonly status: number;
  declare readonly code: string;
}

/** 400: the request was refused as invalid (`validation_error`, `invalid_cursor`, ...). */
export class ValidationError extends PixUsdtApiError {
  /** The class name, a literal. */
  override readonly name = 'ValidationError' as const;
}
/** 401: missing, malformed, unknown or revoked API key, or a key of the other environment. */
export class AuthenticationError extends PixUsdtApiError {
  /** The class name, a literal. */
  override readonly name = 'AuthenticationError' as const;
}
/** 403: the key lacks the endpoint's capability (`missing_capability`). */
export class PermissionError extends PixUsdtApiError {
  /** The class name, a literal. */
  override readonly name = 'PermissionError' as const;
}
/** 404: the resource does not exist or belongs to another tenant. */
export class NotFoundError extends PixUsdtApiError {
  /** The class name, a literal. */
  override readonly name = 'NotFoundError' as const;
}
/** 409: a conflict with the current state (idempotency, state machine, duplicates, expired quote). */
export class ConflictError extends PixUsdtApiError {
  /** The class name, a literal. */
  override readonly name = 'ConflictError' as const;
}
/** 422: a business refusal a retry cannot fix (`pix_key_not_found`, `transaction_limit_exceeded`, ...). */
export class UnprocessableEntityError extends PixUsdtApiError {
  /** The class name, a literal. */
  override readonly name = 'UnprocessableEntityError' as const;
}
/** 429: rate limited; the client already waited as told and retried before throwing this. */
export class RateLimitError extends PixUsdtApiError {
  /** The class name, a literal. */
  override readonly name = 'RateLimitError' as const;
}
/** 5xx: the platform failed; retried per the reference's rules before being thrown. */
export class InternalServerError extends PixUsdtApiError {
  /** The class name (`UpstreamError` in the subclass). */
  override readonly name: string = 'InternalServerError';
}
/** 502 (`upstream_unavailable`): the Pix bank, the exchange or the blockchain is unreachable. */
export class UpstreamError extends InternalServerError {
  /** The class name, a literal. */
  override readonly name = 'UpstreamError' as const;
  /** Which upstream failed (`details.upstream`). */
  get upstream(): string | undefined {
    return this.details?.upstream;
  }
}

/** The request could not reach the API, or the connection broke before an answer. */
export class ConnectionError extends PixUsdtError {
  /** The class name, a literal. */
  override readonly name = 'ConnectionError' as const;
}
/** An attempt or the call's overall deadline ran out. */
export class TimeoutError extends PixUsdtError {
  /** The class name, a literal. */
  override readonly name = 'TimeoutError' as const;
}
/** The caller's AbortSignal aborted the call (during an attempt or a backoff wait). */
export class AbortError extends PixUsdtError {
  /** The class name, a literal. */
  override readonly name = 'AbortError' as const;
}
/** Strict validation mode: a successful answer did not match the model. `details.issues` says where. */
export class ResponseValidationError extends PixUsdtError {
  /** The class name, a literal. */
  override readonly name = 'ResponseValidationError' as const;
}
/** Refused before sending: an argument is invalid (a page `limit` out of 1..100, an empty id). No request was made. */
export class ClientValidationError extends PixUsdtError {
  /** The class name, a literal. */
  override readonly name = 'ClientValidationError' as const;
  constructor(message: string, issues: Array<{ path: string; message: string }>) {
    super(message, { code: 'validation_error', details: { issues } });
  }
}
/**
 * A {@link ClientValidationError} for one argument: `Invalid <path>: Expected <expected>, received <received>`,
 * with the same issue in `details.issues`.
 */
export function invalidArgument(path: string, expected: string, received: string): ClientValidationError {
  const message = `Expected ${expected}, received ${received}`;
  return new ClientValidationError(`Invalid ${path}: ${message}`, [{ path, message }]);
}

/** The client options are invalid (missing or malformed `apiKey`, a non-https `baseUrl`, ...). */
export class InvalidOptionsError extends PixUsdtError {
  /** The class name, a literal. */
  override readonly name = 'InvalidOptionsError' as const;
  constructor(message: string) {
    super(message, { code: 'invalid_options' });
  }
}

type ApiErrorClass = new (message: string, fields: ErrorFields) => PixUsdtApiError;

// One line per status family; every API error is built by `makeApiError` from this table.
const BY_STATUS: Readonly<Record<number, ApiErrorClass>> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  502: UpstreamError,
};

/** What {@link makeApiError} needs from one error answer. */
export interface ApiErrorInput {
  status: number;
  body: unknown;
  headerRequestId: string | null;
  idempotencyKey: string | undefined;
  indeterminate?: boolean;
}

/** Builds the error of one non-2xx answer: status selects the class, the envelope fills it. */
export function makeApiError(input: ApiErrorInput): PixUsdtApiError {
  const envelope = isObject(input.body) ? input.body : undefined;
  const code = typeof envelope?.['code'] === 'string' ? envelope['code'] : 'unknown_error';
  const serverMessage = typeof envelope?.['message'] === 'string' ? envelope['message'] : `HTTP ${input.status} without an error envelope`;
  const requestId = typeof envelope?.['request_id'] === 'string' ? envelope['request_id'] : input.headerRequestId;
  const details = isObject(envelope?.['details']) ? (envelope['details'] as ErrorDetails) : undefined;
  const Class = BY_STATUS[input.status] ?? (input.status >= 500 ? InternalServerError : PixUsdtApiError);
  // The first issues in the message itself: a failing test or an uncaught error shows the cause.
  const issues = details?.issues;
  const summary = Array.isArray(issues) && issues.length > 0 ? ` ${summarizeIssues(issues)}` : '';
  return new Class(`${code}: ${serverMessage}${summary}`, {
    status: input.status,
    code,
    requestId,
    details,
    idempotencyKey: input.idempotencyKey,
    indeterminate: input.indeterminate,
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---- guards (cross-realm: brand + literal name) ----

/** Any error thrown by this client. */
export function isPixUsdtError(error: unknown): error is PixUsdtError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}

function named<T extends PixUsdtError>(...names: string[]): (error: unknown) => error is T {
  return (error: unknown): error is T => isPixUsdtError(error) && names.includes(error.name);
}

const API_ERROR_NAMES = [
  'PixUsdtApiError',
  'ValidationError',
  'AuthenticationError',
  'PermissionError',
  'NotFoundError',
  'ConflictError',
  'UnprocessableEntityError',
  'RateLimitError',
  'InternalServerError',
  'UpstreamError',
];

/** An error answer of the API (it has a `status` and a `code`). */
export const isApiError = named<PixUsdtApiError>(...API_ERROR_NAMES);
/** A 400 answer. */
export const isValidationError = named<ValidationError>('ValidationError');
/** A 401 answer. */
export const isAuthenticationError = named<AuthenticationError>('AuthenticationError');
/** A 403 answer. */
export const isPermissionError = named<PermissionError>('PermissionError');
/** A 404 answer. */
export const isNotFoundError = named<NotFoundError>('NotFoundError');
/** A 409 answer. */
export const isConflictError = named<ConflictError>('ConflictError');
/** A 422 answer. */
export const isUnprocessableEntityError = named<UnprocessableEntityError>('UnprocessableEntityError');
/** A 429 answer. */
export const isRateLimitError = named<RateLimitError>('RateLimitError');
/** A 5xx answer (502 included). */
export const isInternalServerError = named<InternalServerError>('InternalServerError', 'UpstreamError');
/** A 502 answer. */
export const isUpstreamError = named<UpstreamError>('UpstreamError');
/** No answer: the connection failed. */
export const isConnectionError = named<ConnectionError>('ConnectionError');
/** No answer in time. */
export const isTimeoutError = named<TimeoutError>('TimeoutError');
/** Aborted by the caller's signal. */
export const isAbortError = named<AbortError>('AbortError');
/** Strict mode refused an answer. */
export const isResponseValidationError = named<ResponseValidationError>('ResponseValidationError');
/** Refused before sending. */
export const isClientValidationError = named<ClientValidationError>('ClientValidationError');
/** Invalid client options. */
export const isInvalidOptionsError = named<InvalidOptionsError>('InvalidOptionsError');

/**
 * Narrows an error on its catalog code, whatever its class:
 * `if (isApiErrorCode(err, 'quote_expired')) ...` or `isApiErrorCode(err, ['duplicate_cpf', 'duplicate_external_id'])`.
 */
export function isApiErrorCode<C extends ErrorCode>(
  error: unknown,
  code: C | readonly C[],
): error is PixUsdtError & { code: C } {
  if (!isPixUsdtError(error) || error.code === undefined) return false;
  return typeof code === 'string' ? error.code === code : (code as readonly string[]).includes(error.code);
}
