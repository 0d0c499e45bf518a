/**
 * Records and public types of webhook delivery in the sandbox: endpoints, deliveries and their
 * attempts (kept as plain JSON in `tenant.extensions.webhooks`, so snapshots carry them), the
 * injectable transport, and the test helpers on `sandbox.webhooks`.
 * @module
 */
import type { EventJson } from '../../core/event-log.js';
import type { SandboxEvent } from '../../core/state.js';
import type { CircuitOptions } from './circuit.js';
import type { DeliveryConcurrency } from './dispatcher.js';

/** A webhook endpoint as stored. The secrets never leave the sandbox except in the create and rotate answers. */
export interface EndpointRec {
  id: string;
  seq: number;
  url: string;
  status: 'active' | 'disabled';
  eventTypes: string[];
  description: string | null;
  secret: string;
  /** The secret before the last rotation, still signing until `previousSecretExpiresAt`. */
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}

/** One attempt to deliver an event. */
export interface AttemptRec {
  at: number;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

/** The delivery of one event to one endpoint. */
export interface DeliveryRec {
  id: string;
  seq: number;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** The envelope exactly as sent (the signed raw body): its text, or the logged event it is the JSON of (`String(payload)`). */
  payload: string | EventJson;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: AttemptRec[];
  /** Failed attempts since the schedule last started (creation or redelivery). */
  failures: number;
  nextAttemptAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** What the sandbox sends for one attempt. */
export interface WebhookRequest {
  /** The endpoint URL. */
  url: string;
  /** Request headers, the signature and event id headers included. */
  headers: Record<string, string>;
  /** The signed raw JSON body (the event envelope). */
  body: string;
}

/** What a receiver answered. */
export interface WebhookResponse {
  /** HTTP status the receiver answered; a 2xx acknowledges the delivery. */
  status: number;
  /** Body of the answer, if any. */
  body?: string;
}

/** What a transport gets besides the request. */
export interface WebhookTransportContext {
  /** Aborted when the sandbox is closed: stop the attempt (its outcome is no longer recorded). */
  signal: AbortSignal;
}

/**
 * Sends one webhook request. A rejected promise is a transport error (no answer: DNS, TLS,
 * connection refused, timeout); it is recorded and retried like a 5xx. Attempts run
 * concurrently (see {@link WebhookDeliveryOptions.concurrency}).
 */
export type WebhookTransport = (request: WebhookRequest, context: WebhookTransportContext) => Promise<WebhookResponse>;

/** What an in-process receiver gets besides the request. */
export interface ReceiverContext {
  /**
   * The instant the request was signed (its `t`): the real time of sending, or the
   * `signingClock` option's. Pass it as `now` to `constructEvent`, or leave `now` at its default.
   */
  now: Date;
  /** The tenant that owns the endpoint. */
  tenantId: string;
  /** Aborted when the sandbox is closed (`sandbox.close()` waits for receivers in flight to return). */
  signal: AbortSignal;
}

/**
 * An in-process receiver registered with `sandbox.webhooks.listen`. Answering nothing means 200;
 * a number is a status; throwing is answered as a 500.
 */
export type WebhookReceiver = (
  request: Request,
  context: ReceiverContext,
) => Response | number | void | Promise<Response | number | void>;

/** Delivery options of `createSandbox({ webhooks })`. */
export interface WebhookDeliveryOptions {
  /** Sends every successful delivery twice (at-least-once, on purpose). Default false. */
  duplicates?: boolean;
  /**
   * Delivers each batch (the events recorded by one request or one clock advance) in a
   * deterministic shuffled order instead of the order of the log, and keeps no order per object
   * (a later event of an object may overtake an earlier one). `true` or a seed. Default false.
   */
  shuffle?: boolean | number | string;
  /**
   * How many attempts may be in flight at once: to one endpoint (default 4), for one tenant
   * (default 32) and in the whole sandbox (default 256). A free slot goes in turn across tenants,
   * then across a tenant's endpoints, so a slow or dead endpoint holds only its own slots and one
   * tenant's backlog never starves another's. A tenant's own endpoints share its slots: eight of
   * its endpoints that never answer fill them, and its other endpoints then take their turn in
   * each slot that frees. Once more than `total / perTenant - 1` tenants have attempts in flight,
   * each holds at most its share, `max(1, floor(total / (busy + 1)))`, beyond which it takes a
   * slot only while a share stays free: a tenant with nothing in flight finds room, and is served
   * first. `{ perEndpoint: 1 }` delivers to each endpoint one event at a time, in the order of
   * the log.
   */
  concurrency?: Partial<DeliveryConcurrency>;
  /**
   * A circuit per endpoint: after `failures` attempts in a row that end without an answer (a
   * time-out, a refused connection, no receiver; default 5), the endpoint gets no attempt for
   * `cooldownSeconds` of the tenant's clock (default 30; each time it opens again in a row adds
   * as much, up to `maxCooldownSeconds`, default 300). Then one attempt goes as a trial: an
   * answer (any status) closes the circuit, none opens it again. Attempts that fall due meanwhile
   * are delayed, never dropped or counted: their `next_attempt_at` moves to the end of the
   * cool-down and the delivery says why (`deferred`). `false` turns it off.
   */
  circuit?: Partial<CircuitOptions> | false;
  /**
   * Order per object: an event about an object (a user, a conversion, a transaction) is not sent
   * to an endpoint while an earlier event about the same object is in flight to it, or is
   * retrying there and has failed fewer than this many times (default 3: with the default
   * schedule, a later event waits up to about 2.5 minutes of retries behind an earlier one; then
   * it goes, and the receiver sees them out of order). 0 holds only behind an attempt in flight.
   */
  holdBehindFailures?: number;
  /** Waits after a failed attempt, in seconds (default {@link RETRY_SCHEDULE_SECONDS}). */
  retryScheduleSeconds?: readonly number[];
  /** Name of the signature header (default `X-Service-Signature`). */
  signatureHeader?: string;
  /** Name of the event id header (default `X-Service-Event-Id`). */
  eventIdHeader?: string;
  /**
   * The clock that stamps signatures (`t` of the signature header), in ms since the epoch.
   * Default: the real time of sending (`Date.now()`), whatever the sandbox clock says, so that a
   * receiver verifies at its default tolerance; the virtual clock only decides when a delivery is
   * due and stamps the event's `created_at`. Give a fixed clock for byte-identical snapshots.
   */
  signingClock?: () => number;
}

/** Retry waits after each failed attempt, in seconds: 30 s, 2 min, 10 min, 1 h, 6 h, 24 h; then failed. */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [30, 120, 600, 3_600, 21_600, 86_400];

/** Failed attempts of an object's earlier delivery that hold its later ones back, by default ({@link WebhookDeliveryOptions.holdBehindFailures}). */
export const DEFAULT_HOLD_BEHIND_FAILURES = 3;

/** One request a receiver answered with a 2xx, as `sandbox.webhooks.delivered()` lists it. */
export interface DeliveredEvent {
  /** The tenant that owns the endpoint. */
  tenantId: string;
  /** Id of the delivery. */
  deliveryId: string;
  /** Id of the webhook endpoint. */
  endpointId: string;
  /** The endpoint URL. */
  url: string;
  /** The event envelope, parsed. */
  event: SandboxEvent;
  /** The raw body exactly as sent. */
  body: string;
  /** The request headers exactly as sent. */
  headers: Record<string, string>;
  /** The 2xx status the receiver answered. */
  status: number;
  /** Virtual time at which the attempt was sent. */
  at: Date;
  /** True for the copy sent by the `duplicates` test mode. */
  duplicate: boolean;
}

/** Filter of `delivered()`. */
export interface DeliveredFilter {
  /** Only events of this type. */
  type?: string;
  /** Only deliveries to this endpoint URL. */
  url?: string;
  /** Only this event. */
  eventId?: string;
  /** Only this tenant's deliveries. */
  tenantId?: string;
}

/** A delivery still waiting for an attempt, as `pending()` lists it. */
export interface PendingDelivery {
  /** The tenant that owns the endpoint. */
  tenantId: string;
  /** Id of the delivery. */
  deliveryId: string;
  /** Id of the event being delivered. */
  eventId: string;
  /** Type of the event being delivered. */
  eventType: string;
  /** The endpoint URL (empty if the endpoint is gone). */
  url: string;
  /** Attempts made so far. */
  attemptCount: number;
  /** Error of the latest attempt that recorded one; `null` if none did. */
  lastError: string | null;
  /** Virtual time of the next attempt; `null` when none is scheduled. */
  nextAttemptAt: Date | null;
  /**
   * Id of the earlier delivery of the same object to the same endpoint that this one waits
   * behind (order per object, {@link WebhookDeliveryOptions.holdBehindFailures}); `null` if none.
   */
  heldBehind: string | null;
  /**
   * When its endpoint's circuit is delaying it ({@link WebhookDeliveryOptions.circuit}): the
   * instant the retry schedule made it due (it goes at `nextAttemptAt`, or after the circuit's
   * trial); `null` otherwise.
   */
  deferredSince: Date | null;
}

/** Test helpers of webhook delivery, on `sandbox.webhooks`. */
export interface SandboxWebhooks {
  /**
   * Registers an in-process receiver for an endpoint URL (used by the default transport).
   * Returns a function that removes it.
   */
  listen(url: string, receiver: WebhookReceiver): () => void;
  /**
   * The next event of this kind (any kind without one) that a receiver acknowledges with a 2xx.
   * Rejects after `timeoutMs` of real time (default 5,000).
   */
  nextEvent(type?: string, options?: { timeoutMs?: number; tenantId?: string }): Promise<SandboxEvent>;
  /** Requests that receivers acknowledged with a 2xx, oldest first (the last 10,000). */
  delivered(filter?: DeliveredFilter): DeliveredEvent[];
  /** Deliveries waiting for an attempt (every tenant unless one is given). */
  pending(tenantId?: string): PendingDelivery[];
  /** Throws an error listing every pending delivery, if any. Call `flush()` first. */
  assertNothingPending(tenantId?: string): void;
  /** Waits until every due attempt has been made and recorded (later retries stay scheduled). */
  flush(): Promise<void>;
}
