/**
 * The retry policy, as data: check it line by line against the reference's "Retry rules for
 * clients" and docs/decisions.md ("Errors and retries"). `decideRetry` is the only reader.
 * @module
 */
import { isKnownErrorCode } from './codes.js';

/** The reference's retry rules. */
export const RETRY_POLICY = {
  /** "Never retry 400, 401, 403, 404, 409 or 422; fix the request and use a new key." Any code. */
  neverRetryStatuses: [400, 401, 403, 404, 409, 422],
  /** "For 500 the backoff is 250 ms, 500 ms, 1 s, 2 s, 4 s, then give up." */
  internalError: { statuses: [500], waitsMs: [250, 500, 1_000, 2_000, 4_000] },
  /**
   * "Retry 429 and 5xx (502, 503, 504); honour Retry-After, and if it is absent back off
   * exponentially from 1 second capped at 30 seconds." `details.retry_after_seconds` counts as Retry-After.
   */
  transient: { statuses: [429, 502, 503, 504], baseMs: 1_000, factor: 2, capMs: 30_000 },
  /** Network errors and per-attempt timeouts: retried like 502/503/504 (exponential, no Retry-After). */
  noAnswer: 'transient',
  /**
   * "An unknown code is treated like internal_error (destructive operations are not retried)."
   * Applies to an error envelope whose `code` is outside the catalog, on a status not in
   * `neverRetryStatuses`. An answer without an envelope (a proxy's page) is judged by status.
   */
  unknownCode: { treatAs: 'internalError', retryDestructive: false },
  /** Other statuses: 5xx as internal_error; anything else (3xx, other 4xx) is never retried. */
  otherServerStatus: 'internalError',
} as const;

/** Why an attempt failed, as the policy needs to know it. */
export type AttemptFailure =
  | { kind: 'network' | 'timeout' }
  | {
      kind: 'status';
      status: number;
      /** `code` of the error envelope; `undefined` when the body had no envelope. */
      code: string | undefined;
      /** Wait asked by the server (Retry-After or details.retry_after_seconds), in ms. */
      retryAfterMs: number | undefined;
    };

/** The policy's answer for one failed attempt. */
export type RetryDecision = { retry: true; delayMs: number; reason: string } | { retry: false; reason: string };

/** What the call knows about itself. */
export interface RetryContext {
  /** Retries already made (0 after the first attempt). */
  retriesDone: number;
  maxRetries: number;
  /** User and webhook-endpoint delete, cancel, liquidate, key and secret rotation. */
  destructive: boolean;
}

/** Exponential backoff of the transient rule: 1 s, 2 s, 4 s, ... capped at 30 s. */
export function exponentialDelay(retriesDone: number): number {
  const { baseMs, factor, capMs } = RETRY_POLICY.transient;
  return Math.min(baseMs * factor ** retriesDone, capMs);
}

function internalErrorDelay(retriesDone: number, reason: string): RetryDecision {
  const delayMs = RETRY_POLICY.internalError.waitsMs[retriesDone];
  return delayMs === undefined ? { retry: false, reason: `${reason}; the 500 schedule is exhausted` } : { retry: true, delayMs, reason };
}

const includes = (list: readonly number[], status: number): boolean => list.includes(status);

/** Decides whether a failed attempt is retried, and after how long. Pure. */
export function decideRetry(failure: AttemptFailure, ctx: RetryContext): RetryDecision {
  if (ctx.retriesDone >= ctx.maxRetries) return { retry: false, reason: `maxRetries (${ctx.maxRetries}) reached` };
  if (failure.kind !== 'status') {
    // The Idempotency-Key makes a retry of a possibly-applied mutation safe, destructive or not.
    return { retry: true, delayMs: exponentialDelay(ctx.retriesDone), reason: failure.kind };
  }
  const { status, code } = failure;
  const label = `${status} ${code ?? '(no error envelope)'}`;
  if (includes(RETRY_POLICY.neverRetryStatuses, status)) return { retry: false, reason: `${label} is never retried` };
  if (code !== undefined && !isKnownErrorCode(code)) {
    if (ctx.destructive) return { retry: false, reason: `${label}: unknown code on a destructive operation` };
    return internalErrorDelay(ctx.retriesDone, `${label}: unknown code, handled as internal_error`);
  }
  if (includes(RETRY_POLICY.internalError.statuses, status)) return internalErrorDelay(ctx.retriesDone, label);
  if (includes(RETRY_POLICY.transient.statuses, status)) {
    return { retry: true, delayMs: failure.retryAfterMs ?? exponentialDelay(ctx.retriesDone), reason: label };
  }
  if (status >= 500) return internalErrorDelay(ctx.retriesDone, label);
  return { retry: false, reason: `${label} is not retryable` };
}

/**
 * The server's requested wait in ms: the Retry-After header (delta seconds or an HTTP date,
 * measured against `now`), else `details.retry_after_seconds`; `undefined` when neither is usable.
 */
export function retryAfterMs(header: string | null, detailsSeconds: unknown, now: number): number | undefined {
  if (header !== null && header.trim() !== '') {
    const value = header.trim();
    if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1_000;
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  if (typeof detailsSeconds === 'number' && Number.isFinite(detailsSeconds) && detailsSeconds >= 0) return detailsSeconds * 1_000;
  return undefined;
}
