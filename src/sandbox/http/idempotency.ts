/**
 * The idempotency stage: a mutation with an `Idempotency-Key` runs once per key and tenant; a
 * retry with the same request replays the stored answer, a different request under the same
 * key is refused, and records expire after `idempotencyTtlMs` (core/logs.ts keeps them).
 * A replay is the stored answer as it was, `x-request-id` included (the first request's id, the
 * one an error body's `request_id` carries), plus `idempotent-replayed: true`.
 * @module
 */
import type { Platform } from '../core/platform.js';
import { ApiError } from '../core/errors.js';
import { hashHex } from '../core/random.js';
import type { TenantState } from '../core/state.js';
import { type Answer, type Stage, errorAnswer } from './call.js';
import type { RouteDef } from './routes/types.js';

const MUTATIONS = new Set(['POST', 'PATCH', 'DELETE', 'PUT']);
const IN_PROGRESS_MS = 60_000;

/** Drops the records of a tenant older than the TTL (called at authentication). */
export function expireIdempotency(platform: Platform, tenant: TenantState, at: number): void {
  tenant.idempotency.expire(at - platform.settings.idempotencyTtlMs);
}

/** The stage. */
export const idempotency: Stage = async (call, next) => {
  if (!MUTATIONS.has(call.method)) return next();
  const routeDef = call.route as RouteDef;
  const key = call.headers.get('idempotency-key');
  if (key === null || key === '') {
    if (routeDef.idempotency === 'required') {
      throw new ApiError('idempotency_key_required', 'Send an Idempotency-Key header with every POST, PATCH and DELETE.');
    }
    return next();
  }
  if (key.length > 255) {
    throw new ApiError('validation_error', 'The request is invalid.', { issues: [{ path: 'Idempotency-Key', message: 'At most 255 characters' }] });
  }
  const tenant = call.tenant as TenantState;
  const fingerprint = hashHex(`${call.method} ${call.path}${call.search}\n${call.bodyText}`);
  const existing = tenant.idempotency.get(key);
  if (existing) {
    if (existing.running && call.at - existing.startedAt < IN_PROGRESS_MS) {
      throw new ApiError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still running.');
    }
    if (!existing.running) {
      if (existing.fingerprint !== fingerprint) {
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
      }
      return { status: existing.status, body: existing.body, headers: { ...existing.headers, 'idempotent-replayed': 'true' } };
    }
  }
  const rec = { key, fingerprint, running: true, startedAt: call.at, status: 0, body: null as string | null, headers: {} };
  tenant.idempotency.set(key, rec);
  let answer: Answer;
  try {
    answer = await next();
  } catch (error) {
    answer = errorAnswer(error, call.requestId);
  }
  if (answer.status >= 500 || answer.status === 429) {
    // Not stored: a retry with the same key must be able to succeed.
    if (tenant.idempotency.get(key) === rec) tenant.idempotency.delete(key);
  } else {
    rec.running = false;
    rec.status = answer.status;
    rec.body = answer.body;
    // A replay answers as the first request did: its body's `request_id` and its `x-request-id` agree.
    rec.headers = { ...answer.headers, 'x-request-id': call.requestId };
  }
  return answer;
};
