/**
 * `pix-usdt`: the client of the Pix and USDT Conversion Partner API, its errors, pagination,
 * and the zod schemas and types of every resource, body and query.
 * @module
 */
export { PixUsdt } from './client/client.js';
export {
  SANDBOX_BASE_URL,
  PRODUCTION_BASE_URL,
  DEFAULT_OPTIONS,
  type ClientOptions,
  type FetchLike,
} from './client/options.js';
export type {
  RequestOptions,
  HttpMethod,
  ClientEvents,
  BaseEvent,
  RequestEvent,
  ResponseEvent,
  RetryEvent,
  WarningEvent,
} from './client/types.js';
export { Page, PagePromise, type PageFetcher, type ToArrayOptions } from './client/pagination.js';
export { ApiPromise, type ResponseInfo, type WithResponse } from './client/api-promise.js';
export { RETRY_POLICY, type RetryDecision } from './client/retry.js';
export { ERROR_CODES, isKnownErrorCode, type ErrorCode } from './client/codes.js';
export {
  PixUsdtError,
  PixUsdtApiError,
  ValidationError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  UpstreamError,
  ConnectionError,
  TimeoutError,
  AbortError,
  ResponseValidationError,
  ClientValidationError,
  InvalidOptionsError,
  isPixUsdtError,
  isApiError,
  isApiErrorCode,
  isValidationError,
  isAuthenticationError,
  isPermissionError,
  isNotFoundError,
  isConflictError,
  isUnprocessableEntityError,
  isRateLimitError,
  isInternalServerError,
  isUpstreamError,
  isConnectionError,
  isTimeoutError,
  isAbortError,
  isResponseValidationError,
  isClientValidationError,
  isInvalidOptionsError,
  type ErrorDetails,
  type ErrorFields,
  type TransactionLimitReason,
} from './client/errors.js';
export type {
  ApiKeys,
  Users,
  Quotes,
  Conversions,
  Transactions,
  WebhookEndpoints,
  WebhookDeliveries,
  TestHelpers,
  ConversionTestHelpers,
  TransactionTestHelpers,
  UserTestHelpers,
  TenantTestHelpers,
  ClockTestHelpers,
  EventTestHelpers,
} from './resources/index.js';
export * from './models/index.js';
