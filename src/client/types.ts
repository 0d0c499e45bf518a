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
  method: HttpMethod;
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
  status: number;
  requestId: string | null;
}

/** Emitted before a backoff wait. */
export interface RetryEvent extends BaseEvent {
  /** The wait before the next attempt, in ms. */
  delayMs: number;
  /** Why: `network`, `timeout`, or the status and code of the answer. */
  reason: string;
  status: number | undefined;
  code: string | undefined;
  requestId: string | null;
}

/** Emitted in `warn` validation mode when an answer does not match its model (the data is returned as received). */
export interface WarningEvent extends BaseEvent {
  message: string;
  status: number;
  requestId: string | null;
  issues: Array<{ path: string; message: string }>;
}

/** The client's events and their payloads. Never the API key. */
export interface ClientEvents {
  request: [event: RequestEvent];
  response: [event: ResponseEvent];
  retry: [event: RetryEvent];
  warning: [event: WarningEvent];
}
