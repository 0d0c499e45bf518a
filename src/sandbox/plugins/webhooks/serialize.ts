/**
 * Webhook records to wire objects (src/models/platform.ts shapes).
 * @module
 */
import type { WebhookDelivery, WebhookEndpoint } from '../../../models/index.js';
import { iso } from '../../core/wire.js';
import type { DeliveryRec, EndpointRec } from './types.js';

/** An endpoint without its secret: `secret_prefix` and `secret_last_four` only. */
export function endpointOut(e: EndpointRec): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    status: e.status,
    event_types: [...e.eventTypes],
    description: e.description,
    secret_prefix: e.secret.slice(0, 10),
    secret_last_four: e.secret.slice(-4),
    created_at: iso(e.createdAt),
    updated_at: iso(e.updatedAt),
  };
}

/**
 * A delivery record with every attempt. `deferredSince`: the instant its schedule made it due,
 * when its endpoint's circuit is delaying it (`deferred`), else `null`.
 */
export function deliveryOut(d: DeliveryRec, deferredSince: number | null = null): WebhookDelivery {
  const last = d.attempts[d.attempts.length - 1];
  let lastError: string | null = null;
  for (let i = d.attempts.length - 1; i >= 0 && lastError === null; i--) lastError = (d.attempts[i] as { error: string | null }).error;
  return {
    id: d.id,
    webhook_endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempt_count: d.attempts.length,
    response_status: last?.status ?? null,
    latency_ms: last ? last.latencyMs : null,
    last_error: lastError,
    next_attempt_at: d.nextAttemptAt === null ? null : iso(d.nextAttemptAt),
    deferred: deferredSince === null ? null : { reason: 'circuit_open', scheduled_at: iso(deferredSince) },
    attempts: d.attempts.map((a) => ({ attempted_at: iso(a.at), response_status: a.status, latency_ms: a.latencyMs, error: a.error })),
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  };
}
