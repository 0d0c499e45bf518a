// Deliveries signed as the platform signs them, for the receiver kit's tests.
import { signPayload } from '../../src/webhooks/index.js';
import { SECRET } from './helpers.js';

let counter = 0;

/** A fresh event id (a UUID-shaped string, unique per call). */
export function eventId(): string {
  counter += 1;
  return `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`;
}

/** A conversion event envelope, as JSON text with spaces (a re-serialized body would differ). */
export function eventBody(id: string, type = 'conversion.completed', object: Record<string, unknown> = {}): string {
  const envelope = {
    id,
    type,
    created_at: '2026-01-01T00:00:00.000Z',
    data: { object: { id: 'c0000000-0000-4000-8000-000000000001', status: 'completed', updated_at: '2026-01-01T00:00:00.000Z', note: 'ação ✓', ...object } },
  };
  return JSON.stringify(envelope, null, 1);
}

/** The headers of a delivery of `body`, signed now with `secret`. */
export async function signedHeaders(body: string, id: string, secret = SECRET): Promise<Record<string, string>> {
  return { 'content-type': 'application/json', 'x-service-signature': await signPayload(body, secret), 'x-service-event-id': id };
}

/** A signed delivery as a web Request. */
export async function delivery(id = eventId(), type?: string, object?: Record<string, unknown>, url = 'https://partner.example/webhooks'): Promise<Request> {
  const body = eventBody(id, type, object);
  return new Request(url, { method: 'POST', body, headers: await signedHeaders(body, id) });
}

/** A promise and the function that resolves it. */
export function latch(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
