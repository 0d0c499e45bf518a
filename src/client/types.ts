/**
 * Per-call options and the events the client emits.
 * @module
 */

/** The last, optional argument of every method. */
export interface RequestOptions {
  /** The Idempotency-Key of this mutation (default: a new UUID v4 per call, reused by every retry). */
  idempotencyKey?: string | undefined;
  /** Aborts the call, during an attempt or a backoff wait. */
  signal?: AbortSignal | undefined;
  /** Time limit of one attempt, in ms (overrides the client's). */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt, at most (overrides the client's). */
  maxRetries?: number | undefined;
  /** Time limit of the whole call, in ms (overrides the client's). */
  deadlineMs?: number | undefined;
}

/** HTTP methods the API uses. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Fields common to every event. `path` never includes the query (it may hold a CPF). */
export interface BaseEvent {
  /** HTTP method of the call. */
  method: HttpMethod;
  /** Path of the call (`/v1/...`), without the query string. */
  path: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The Idempotency-Key of a mutation; `undefined` on GET. */
  idempotencyKey: string | undefined;
  /** Milliseconds since the call started. */
  elapsedMs: number;
}

/** Emitted before each attempt is sent. */
export type RequestEvent = BaseEvent;

/** Emitted when an attempt gets an answer, success or error. */
export interface ResponseEvent extends BaseEvent {
  /** HTTP status of the answer. */
  status: number;
  /** The answer's `x-request-id` header; `null` without one. */
  requestId: string | null;
}

/** Emitted before a backoff wait. */
export interface RetryEvent extends BaseEvent {
  /** The wait before the next attempt, in ms. */
  delayMs: number;
  /** Why: `network`, `timeout`, or the status and code of the answer. */
  reason: string;
  /** HTTP status of the failed attempt; `undefined` when there was no answer (network error, timeout). */
  status: number | undefined;
  /** The error `code` of the answer's envelope; `undefined` without an answer or a code. */
  code: string | undefined;
  /** `request_id` of the failed answer; `null` without one. */
  requestId: string | null;
}

/** Emitted in `warn` validation mode when an answer does not match its model (the data is returned as received). */
export interface WarningEvent extends BaseEvent {
  /**
   * `The answer to <method> <path> does not match the model`, or (with no `issues`) `... could
   * not be checked: the answer models did not load (...)` when the models could not be loaded.
   */
  message: string;
  /** HTTP status of the (successful) answer. */
  status: number;
  /** The answer's `x-request-id` header; `null` without one. */
  requestId: string | null;
  /** Where the answer differs from the model: a dotted `path` (empty for the root) and a `message` each. */
  issues: Array<{ path: string; message: string }>;
}

/** The client's events and their payloads. Never the API key. */
export interface ClientEvents {
  /** Before each attempt is sent (retries included). */
  request: [event: RequestEvent];
  /** When an attempt gets an HTTP answer, whatever its status. */
  response: [event: ResponseEvent];
  /** Before the backoff wait that precedes a retry. */
  retry: [event: RetryEvent];
  /** In `warn` validation mode, when a successful answer does not match its model. */
  warning: [event: WarningEvent];
}
