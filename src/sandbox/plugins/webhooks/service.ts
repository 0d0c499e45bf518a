/**
 * Webhook delivery: every recorded event goes to each active endpoint of its tenant that
 * subscribes to its kind (or `*`), as one delivery record per (event, endpoint). Attempts run
 * after the request that caused the event (deferred to a later task, tracked by
 * `platform.waitUntil` so that `clock.advance` and `flush` wait for them); retries are timers on
 * the tenant's virtual clock. Ordering and at-least-once: docs/sandbox-webhooks-and-faults.md.
 * @module
 */
import { EVENT_ID_HEADER, SIGNATURE_HEADER } from '../../../webhooks/construct.js';
import { signPayload } from '../../../webhooks/signature.js';
import type { Platform } from '../../core/platform.js';
import { hash53 } from '../../core/random.js';
import { realSetTimeout } from '../../core/real-time.js';
import type { SandboxEvent, TenantState } from '../../core/state.js';
import { type TimerTable, timer } from '../../core/timers.js';
import { DeliveredEntry, DeliveredLog } from './delivered.js';
import { EventJson } from '../../core/event-log.js';
import { type WebhookStore, WebhookStores } from './store.js';
import { Receivers } from './transport.js';
import {
  type DeliveryRec,
  type EndpointRec,
  RETRY_SCHEDULE_SECONDS,
  type WebhookDeliveryOptions,
  type WebhookRequest,
  type WebhookResponse,
  type WebhookTransport,
} from './types.js';

/** The timer kind of a delivery attempt on a tenant's clock. */
export const ATTEMPT_TIMER = 'webhook.attempt';
const USER_AGENT = 'pix-usdt-sandbox/1.0 (+webhooks)';
const MAX_ERROR = 300;

function truncate(text: string): string {
  return text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR)}...` : text;
}

function subscribed(endpoint: EndpointRec, type: string): boolean {
  return endpoint.eventTypes.includes('*') || endpoint.eventTypes.includes(type);
}

/** The secrets that sign at `at`: the current one, and the previous one during its grace period. */
export function signingSecrets(endpoint: EndpointRec, at: number): string[] {
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret !== null && endpoint.previousSecretExpiresAt !== null && at < endpoint.previousSecretExpiresAt) {
    secrets.push(endpoint.previousSecret);
  }
  return secrets;
}

/** A deterministic permutation of `items` that is never the identity (for two items or more). */
function permute<T>(items: T[], seed: string): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = hash53(`${seed}:${i}`) % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  if (out.length > 1 && out.every((x, i) => x === items[i])) out.reverse();
  return out;
}

/** The webhook layer of one sandbox. */
export class WebhookService {
  readonly stores: WebhookStores;
  readonly receivers = new Receivers();
  /** Acknowledged deliveries and the waiters of `nextEvent`. */
  readonly log = new DeliveredLog();
  /** Listeners told of each new delivery and each recorded attempt (the inspector's live feed). */
  readonly changes = new Set<(tenantId: string, delivery: DeliveryRec) => void>();
  readonly #platform: Platform;
  readonly #transport: WebhookTransport | undefined;
  readonly #duplicates: boolean;
  readonly #shuffleSeed: string | null;
  readonly #schedule: readonly number[];
  readonly #headerNames: { signature: string; eventId: string };
  readonly #signingClock: () => number;
  #batch: Array<[tenantId: string, deliveryId: string]> = [];
  #batchScheduled = false;
  #batches = 0;
  readonly #inFlight = new Set<string>();

  /** `deliveryLogSize`: finished deliveries kept per tenant (store.ts). */
  constructor(platform: Platform, transport: WebhookTransport | undefined, options: WebhookDeliveryOptions = {}, deliveryLogSize?: number) {
    this.#platform = platform;
    this.stores = new WebhookStores(deliveryLogSize);
    this.#transport = transport;
    this.#duplicates = options.duplicates === true;
    const shuffle = options.shuffle ?? false;
    this.#shuffleSeed = shuffle === false ? null : shuffle === true ? String(platform.settings.seed ?? 'shuffle') : String(shuffle);
    const schedule = options.retryScheduleSeconds ?? RETRY_SCHEDULE_SECONDS;
    if (!schedule.every((s) => Number.isFinite(s) && s >= 0)) throw new RangeError('retryScheduleSeconds must be non-negative numbers.');
    this.#schedule = [...schedule];
    this.#signingClock = options.signingClock ?? (() => Date.now());
    this.#headerNames = { signature: options.signatureHeader ?? SIGNATURE_HEADER, eventId: options.eventIdHeader ?? EVENT_ID_HEADER };
    platform.on('event', (event, tenantId) => this.#onEvent(event, tenantId));
  }

  /** The webhook store of a tenant. */
  store(tenant: TenantState): WebhookStore {
    return this.stores.of(tenant);
  }

  // --- delivery -------------------------------------------------------------------------

  #onEvent(event: SandboxEvent, tenantId: string): void {
    const tenant = this.#platform.tenants.get(tenantId);
    // No endpoint was ever created in this tenant: nothing to do (and nothing added to its state).
    if (!tenant || tenant.extensions['webhooks'] === undefined) return;
    const store = this.store(tenant);
    const at = Date.parse(event.created_at);
    // The deliveries of an event share its log entry, which rebuilds the body (not a copy each).
    const logged = this.#platform.lastLogged;
    let payload: string | EventJson | undefined;
    for (const endpoint of store.endpoints.all()) {
      if (endpoint.deletedAt !== null || endpoint.status !== 'active' || !subscribed(endpoint, event.type)) continue;
      payload ??= logged?.id === event.id ? new EventJson(logged) : JSON.stringify(event);
      const delivery = store.addDelivery({
        id: this.#platform.random.uuid(),
        seq: 0,
        endpointId: endpoint.id,
        eventId: event.id,
        eventType: event.type,
        payload,
        status: 'pending',
        attempts: [],
        failures: 0,
        nextAttemptAt: at,
        createdAt: at,
        updatedAt: at,
      });
      this.#changed(tenantId, delivery);
      this.enqueue(tenantId, delivery.id);
    }
  }

  #changed(tenantId: string, delivery: DeliveryRec): void {
    for (const listener of this.changes) {
      try {
        listener(tenantId, delivery);
      } catch (error) {
        this.#platform.reportError(error);
      }
    }
  }

  /** Queues an attempt now (after the current request): a new delivery or a redelivery. */
  enqueue(tenantId: string, deliveryId: string): void {
    this.#batch.push([tenantId, deliveryId]);
    if (this.#batchScheduled) return;
    this.#batchScheduled = true;
    // A later task, so that the request that caused the event answers first.
    this.#platform.waitUntil(new Promise((resolve) => realSetTimeout(resolve, 0)).then(() => this.#runBatch()));
  }

  async #runBatch(): Promise<void> {
    this.#batchScheduled = false;
    const batch = this.#batch;
    this.#batch = [];
    const order = this.#shuffleSeed === null ? batch : permute(batch, `${this.#shuffleSeed}:${this.#batches++}`);
    // One at a time: receivers see a batch in the order of the log (or of the permutation).
    for (const [tenantId, deliveryId] of order) {
      try {
        await this.#attempt(tenantId, deliveryId);
      } catch (error) {
        // One broken attempt must not hold back the rest of the batch.
        this.#platform.reportError(error);
      }
    }
  }

  /** The timer of a delivery attempt: due while the delivery is pending (restore re-creates it). */
  readonly timers: TimerTable = {
    [ATTEMPT_TIMER]: timer<DeliveryRec>({
      load: (tenant) => (tenant.extensions['webhooks'] === undefined ? undefined : this.store(tenant).deliveries),
      due: (d) => (d.status === 'pending' ? d.nextAttemptAt : null),
      fire: ({ tenant }, d) => this.#platform.waitUntil(this.#attempt(tenant.id, d.id)),
    }),
  };

  async #send(request: WebhookRequest, signedAt: number, tenantId: string): Promise<WebhookResponse> {
    if (this.#transport) return this.#transport(request);
    return this.receivers.send(request, { now: new Date(signedAt), tenantId });
  }

  async #attempt(tenantId: string, deliveryId: string): Promise<void> {
    const tenant = this.#platform.tenants.get(tenantId);
    if (!tenant || this.#inFlight.has(deliveryId)) return;
    const store = this.store(tenant);
    const delivery = store.deliveries.get(deliveryId);
    if (delivery?.status !== 'pending') return;
    const endpoint = store.endpoints.get(delivery.endpointId);
    const at = delivery.nextAttemptAt ?? tenant.clock.nowMs();
    if (!endpoint || endpoint.deletedAt !== null || endpoint.status !== 'active') {
      // No attempt to record: the delivery is given up (it can be redelivered once the endpoint is active).
      store.deliveries.update(delivery, (d) => {
        d.status = 'failed';
        d.nextAttemptAt = null;
        d.updatedAt = Math.max(d.updatedAt, at);
      });
      this.#changed(tenantId, delivery);
      return;
    }
    this.#inFlight.add(deliveryId);
    try {
      // The virtual clock decides when a delivery is due; the signature carries the time of sending.
      const signedAt = this.#signingClock();
      const body = String(delivery.payload);
      const signature = await signPayload(body, signingSecrets(endpoint, at), { timestamp: Math.floor(signedAt / 1000) });
      const request: WebhookRequest = {
        url: endpoint.url,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          [this.#headerNames.eventId]: delivery.eventId,
          [this.#headerNames.signature]: signature,
        },
        body,
      };
      const started = performance.now();
      let status: number | null = null;
      let error: string | null = null;
      try {
        const response = await this.#send(request, signedAt, tenantId);
        status = response.status;
        if (status < 200 || status > 299) error = truncate(`The receiver answered ${status}${response.body ? `: ${response.body}` : ''}`);
      } catch (cause) {
        error = truncate(`Transport error: ${cause instanceof Error ? cause.message : String(cause)}`);
      }
      const latencyMs = Math.max(0, Math.round(performance.now() - started));
      const ok = error === null;
      delivery.attempts.push({ at, status, latencyMs, error });
      store.deliveries.update(delivery, (d) => {
        d.updatedAt = Math.max(d.updatedAt, at);
        if (ok) {
          d.status = 'succeeded';
          d.nextAttemptAt = null;
          return;
        }
        const wait = this.#schedule[d.failures];
        d.failures++;
        if (wait === undefined) {
          d.status = 'failed'; // dead letter: redeliver to try again
          d.nextAttemptAt = null;
        } else {
          d.nextAttemptAt = at + wait * 1000;
        }
      });
      this.#changed(tenantId, delivery);
      if (ok) {
        this.#record(tenantId, delivery, endpoint, request, status as number, at, false);
        if (this.#duplicates) {
          // At-least-once on purpose: the same request (same event id, same signature) again.
          const copy = await this.#send(request, signedAt, tenantId).catch(() => null);
          if (copy && copy.status >= 200 && copy.status <= 299) this.#record(tenantId, delivery, endpoint, request, copy.status, at, true);
        }
      }
    } finally {
      this.#inFlight.delete(deliveryId);
    }
    if (delivery.status === 'pending' && delivery.nextAttemptAt !== null && this.#platform.tenants.get(tenantId) === tenant) {
      this.#platform.schedule(tenant, delivery.nextAttemptAt, ATTEMPT_TIMER, delivery.id);
      // Due already (one `advance` spanning several retries): fire it now, in order.
      if (delivery.nextAttemptAt <= tenant.clock.nowMs()) tenant.clock.runDue();
    }
  }

  #record(tenantId: string, d: DeliveryRec, e: EndpointRec, request: WebhookRequest, status: number, at: number, duplicate: boolean): void {
    this.log.add(new DeliveredEntry(tenantId, d, e.id, request, status, at, duplicate));
  }
}
