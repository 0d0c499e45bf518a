/**
 * Webhook delivery: every recorded event goes to each active endpoint of its tenant that
 * subscribes to its kind (or `*`), as one delivery record per (event, endpoint). An attempt that
 * falls due (a new delivery, a retry timer, a redelivery, a delivery released from behind an
 * earlier event of its object) is queued after the request that caused it (a later task), then
 * sent when the dispatcher gives it a slot (dispatcher.ts: caps per endpoint, per tenant and in
 * all, turns across tenants and endpoints). Each is tracked by `platform.waitUntil` for its
 * tenant, so that the tenant's `clock.advance` and `flush` wait for it. Retries are timers on the
 * tenant's virtual clock, counted from the instant the attempt was sent. An endpoint whose
 * attempts keep ending without an answer has its attempts delayed by its circuit (circuit.ts).
 * Ordering and at-least-once: docs/sandbox-webhooks-and-faults.md.
 * @module
 */
import { EVENT_ID_HEADER, SIGNATURE_HEADER } from '../../../webhooks/construct.js';
import { signPayload } from '../../../webhooks/signature.js';
import type { Platform } from '../../core/platform.js';
import { hash53 } from '../../core/random.js';
import { realSetTimeout } from '../../core/real-time.js';
import type { SandboxEvent, TenantState } from '../../core/state.js';
import { type TimerTable, timer } from '../../core/timers.js';
import { EventJson } from '../../core/event-log.js';
import { type CircuitChange, type CircuitView, Circuits, circuitOptions } from './circuit.js';
import { DeliveredEntry, DeliveredLog } from './delivered.js';
import { DEFAULT_DELIVERY_CONCURRENCY, type DeliveryConcurrency, Dispatcher, type StartVerdict } from './dispatcher.js';
import { type WebhookStore, WebhookStores } from './store.js';
import { Receivers } from './transport.js';
import {
  type DeliveryRec,
  type EndpointRec,
  DEFAULT_HOLD_BEHIND_FAILURES,
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

/** An attempt waiting for (or holding) a slot of the dispatcher. */
interface Job {
  tenantId: string;
  endpointId: string;
  deliveryId: string;
  /** Resolves the promise the tenant's `settle` waits for. */
  end: () => void;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer.`);
  return n;
}

/** The caps of `WebhookDeliveryOptions.concurrency`, validated, over the defaults. */
export function deliveryConcurrency(options: Partial<DeliveryConcurrency> = {}): DeliveryConcurrency {
  return {
    perEndpoint: positiveInteger(options.perEndpoint, DEFAULT_DELIVERY_CONCURRENCY.perEndpoint, 'concurrency.perEndpoint'),
    perTenant: positiveInteger(options.perTenant, DEFAULT_DELIVERY_CONCURRENCY.perTenant, 'concurrency.perTenant'),
    total: positiveInteger(options.total, DEFAULT_DELIVERY_CONCURRENCY.total, 'concurrency.total'),
  };
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
  readonly #holdBehind: number;
  readonly #headerNames: { signature: string; eventId: string };
  readonly #signingClock: () => number;
  readonly #dispatcher: Dispatcher<Job>;
  readonly #circuits: Circuits;
  /** Attempts that fell due since the last task: handed to the dispatcher together (a batch). */
  #incoming: Job[] = [];
  #incomingScheduled = false;
  #batches = 0;
  /** Deliveries queued or in flight (one attempt at a time per delivery). */
  readonly #active = new Set<string>();
  /** Deliveries whose attempt is in flight. */
  readonly #running = new Set<string>();
  /** Attempts in flight, for `close()` to wait on. */
  readonly #inFlight = new Set<Promise<void>>();
  /** Signatures are computed one after another, so that attempts leave in the order they were given a slot. */
  #signing: Promise<unknown> = Promise.resolve();
  /** Why the service closed (`close()`), once it has. */
  #closedWith: Error | null = null;
  /**
   * One abort signal per attempt in flight, aborted by `close()`: a transport (ours, or the
   * partner's) adds a listener to the signal it is given, and one signal shared by every attempt
   * would gather them past the runtime's leak warning at ten deliveries in flight.
   */
  readonly #attempts = new Set<AbortController>();

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
    const hold = options.holdBehindFailures ?? DEFAULT_HOLD_BEHIND_FAILURES;
    if (!Number.isInteger(hold) || hold < 0) throw new RangeError('holdBehindFailures must be a non-negative integer.');
    this.#holdBehind = hold;
    this.#circuits = new Circuits(circuitOptions(options.circuit));
    this.#dispatcher = new Dispatcher(deliveryConcurrency(options.concurrency), {
      run: (job) => this.#run(job),
      check: (job) => this.#check(job),
      held: (job) => {
        this.#active.delete(job.deliveryId);
        job.end();
        // Held for its endpoint's circuit (not behind an earlier event of its object): delayed.
        this.#deferIfBlocked(job.tenantId, job.deliveryId);
      },
    });
    this.#signingClock = options.signingClock ?? (() => Date.now());
    this.#headerNames = { signature: options.signatureHeader ?? SIGNATURE_HEADER, eventId: options.eventIdHeader ?? EVENT_ID_HEADER };
    platform.on('event', (event, tenantId) => this.#onEvent(event, tenantId));
  }

  /** The webhook store of a tenant. */
  store(tenant: TenantState): WebhookStore {
    return this.stores.of(tenant);
  }

  /** The webhook store of a tenant that ever had an endpoint, or `undefined` (nothing is added to the tenant). */
  storeIfAny(tenant: TenantState): WebhookStore | undefined {
    return this.stores.find(tenant);
  }

  // --- delivery -------------------------------------------------------------------------

  #onEvent(event: SandboxEvent, tenantId: string): void {
    const tenant = this.#platform.tenants.get(tenantId);
    // No endpoint was ever created in this tenant: nothing to do (and nothing added to its state).
    const store = tenant === undefined ? undefined : this.storeIfAny(tenant);
    if (tenant === undefined || store === undefined) return;
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
      this.#due(tenant, delivery);
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

  /** A delivery made pending again (redelivery): an attempt now, unless an earlier event of its object holds it. */
  enqueue(tenantId: string, deliveryId: string): void {
    const tenant = this.#platform.tenants.get(tenantId);
    const delivery = tenant === undefined ? undefined : this.store(tenant).deliveries.get(deliveryId);
    if (tenant && delivery) this.#due(tenant, delivery);
  }

  /**
   * The earlier pending delivery of the same object and endpoint that holds `d` out of the queue,
   * if any: one retrying (or itself held) that has failed fewer times than the bound allows.
   */
  heldBehind(tenant: TenantState, d: DeliveryRec): DeliveryRec | null {
    if (this.#shuffleSeed !== null) return null; // a reordering test mode: no order to keep
    for (const earlier of this.store(tenant).lanes.of(d)) {
      if (earlier === d) return null;
      if (this.#holds(earlier)) return earlier;
    }
    return null;
  }

  #holds(earlier: DeliveryRec): boolean {
    return earlier.status === 'pending' && !this.#active.has(earlier.id) && earlier.failures < this.#holdBehind;
  }

  /**
   * May the oldest queued attempt of an endpoint start? It waits (and its endpoint's queue with
   * it) while an earlier event of its object is in flight to the endpoint, and is taken out to
   * be held while one is retrying: an endpoint receives an object's events in order.
   */
  #check(job: Job): StartVerdict {
    if (this.#shuffleSeed !== null) return 'go';
    const tenant = this.#platform.tenants.get(job.tenantId);
    const d = tenant === undefined ? undefined : this.store(tenant).deliveries.get(job.deliveryId);
    if (!tenant || d?.status !== 'pending') return 'go'; // the attempt finds nothing to do
    for (const earlier of this.store(tenant).lanes.of(d)) {
      if (earlier === d) break;
      if (this.#running.has(earlier.id)) return 'wait';
      if (this.#holds(earlier)) return 'hold';
    }
    const endpoint = this.store(tenant).endpoints.get(d.endpointId);
    if (endpoint && !this.#circuits.allows(tenant.id, endpoint.id, endpoint.url, d.id, tenant.clock.nowMs())) return 'hold';
    return 'go';
  }

  /** The circuit of an endpoint as the inspector shows it. */
  circuitOf(tenant: TenantState, endpoint: EndpointRec): CircuitView {
    return this.#circuits.view(tenant.id, endpoint.id, endpoint.url, tenant.clock.nowMs());
  }

  /** When the schedule made a delivery due, if its endpoint's circuit is delaying it; `null` otherwise. */
  deferredSince(tenantId: string, d: DeliveryRec): number | null {
    return d.status === 'pending' ? (this.#circuits.deferredSince(tenantId, d.endpointId, d.id) ?? null) : null;
  }

  /**
   * A due delivery that its endpoint's circuit does not let go: its next attempt moves to the
   * end of the cool-down (a timer), or it waits for the half-open trial's outcome. No attempt is
   * recorded and none is dropped. Answers whether it was delayed.
   */
  #deferIfBlocked(tenantId: string, deliveryId: string): boolean {
    const tenant = this.#platform.tenants.get(tenantId);
    const store = tenant === undefined ? undefined : this.storeIfAny(tenant);
    const d = store?.deliveries.get(deliveryId);
    if (!tenant || !store || d?.status !== 'pending' || d.nextAttemptAt === null || this.#platform.closed) return false;
    const endpoint = store.endpoints.get(d.endpointId);
    if (!endpoint || endpoint.deletedAt !== null || endpoint.status !== 'active') return false;
    const now = tenant.clock.nowMs();
    const already = this.#circuits.deferredSince(tenant.id, endpoint.id, d.id) !== undefined;
    const until = this.#circuits.defer(tenant.id, endpoint.id, endpoint.url, d.id, d.nextAttemptAt, now);
    if (until === undefined) return false;
    const moved = until !== null && until !== d.nextAttemptAt;
    if (moved) {
      store.deliveries.update(d, (x) => {
        x.nextAttemptAt = until;
      });
      this.#platform.schedule(tenant, until, ATTEMPT_TIMER, d.id);
    }
    if (moved || !already) this.#changed(tenantId, d);
    return true;
  }

  /** What an outcome of the circuit asks: queue again what it released, or delay what waited for its trial. */
  #applyCircuit(tenant: TenantState, change: CircuitChange): void {
    if (change === null) return;
    const store = this.store(tenant);
    if ('release' in change) {
      const now = tenant.clock.nowMs();
      for (const id of change.release) {
        const d = store.deliveries.get(id);
        if (d?.status !== 'pending' || d.nextAttemptAt === null) continue;
        // Due now (it waited past its instant): the timer of the cool-down's end is outdated.
        if (d.nextAttemptAt > now) store.deliveries.update(d, (x) => void (x.nextAttemptAt = now));
        this.#changed(tenant.id, d);
        this.#due(tenant, d);
      }
      return;
    }
    for (const id of change.deferred) {
      const d = store.deliveries.get(id);
      if (d?.status !== 'pending' || d.nextAttemptAt === null || this.#active.has(id)) continue;
      if (d.nextAttemptAt < change.until) {
        store.deliveries.update(d, (x) => void (x.nextAttemptAt = change.until));
        this.#platform.schedule(tenant, change.until, ATTEMPT_TIMER, d.id);
      }
      this.#changed(tenant.id, d);
    }
  }

  /**
   * A pending delivery fell due: queue its attempt, unless it is queued already, held behind its
   * object's earlier event, or delayed by its endpoint's circuit.
   */
  #due(tenant: TenantState, d: DeliveryRec): void {
    if (this.#platform.closed || d.status !== 'pending' || this.#active.has(d.id)) return;
    const store = this.store(tenant);
    store.lanes.add(d);
    if (this.heldBehind(tenant, d) !== null) return; // released when the earlier one ends (#release)
    const endpoint = store.endpoints.get(d.endpointId);
    if (endpoint) {
      // An endpoint whose URL changed has a new receiver: what its old circuit delayed may go.
      const moved = this.#circuits.moved(tenant.id, endpoint.id, endpoint.url).filter((id) => id !== d.id);
      if (moved.length > 0) this.#applyCircuit(tenant, { release: moved });
      if (this.#deferIfBlocked(tenant.id, d.id)) return; // the cool-down's timer, or the trial's outcome, brings it back
    }
    this.#queue(tenant.id, d);
  }

  #queue(tenantId: string, d: DeliveryRec): void {
    this.#active.add(d.id);
    let end!: () => void;
    this.#platform.waitUntil(new Promise<void>((resolve) => (end = resolve)), tenantId);
    this.#incoming.push({ tenantId, endpointId: d.endpointId, deliveryId: d.id, end });
    if (this.#incomingScheduled) return;
    this.#incomingScheduled = true;
    // A later task, so that the request that caused the event answers first.
    realSetTimeout(() => this.#dispatchIncoming(), 0);
  }

  #dispatchIncoming(): void {
    this.#incomingScheduled = false;
    const batch = this.#incoming;
    this.#incoming = [];
    if (this.#platform.closed) {
      for (const job of batch) job.end();
      return;
    }
    const order = this.#shuffleSeed === null ? batch : permute(batch, `${this.#shuffleSeed}:${this.#batches++}`);
    for (const job of order) this.#dispatcher.push(job);
  }

  /** Runs one attempt in the slot the dispatcher gave it, then frees the delivery and what waited behind it. */
  async #run(job: Job): Promise<void> {
    this.#running.add(job.deliveryId);
    const tenant = this.#platform.tenants.get(job.tenantId);
    const endpoint = tenant === undefined ? undefined : this.storeIfAny(tenant)?.endpoints.get(job.endpointId);
    // No longer delayed; in a half-open circuit, this attempt is the trial.
    if (tenant && endpoint) this.#circuits.starting(tenant.id, endpoint.id, endpoint.url, job.deliveryId, tenant.clock.nowMs());
    const attempt = this.#attempt(job.tenantId, job.deliveryId).catch((error: unknown) => this.#platform.reportError(error));
    this.#inFlight.add(attempt);
    try {
      await attempt;
    } finally {
      this.#inFlight.delete(attempt);
      this.#running.delete(job.deliveryId);
      this.#active.delete(job.deliveryId);
      if (!this.#platform.closed) {
        // A trial that sent nothing (the delivery had nothing to do): another delayed one may be the trial.
        const retry = this.#circuits.abandoned(job.tenantId, job.endpointId, job.deliveryId);
        const current = this.#platform.tenants.get(job.tenantId);
        if (retry.length > 0 && current) this.#applyCircuit(current, { release: retry });
        this.#release(job.tenantId, job.deliveryId);
      }
      job.end();
    }
  }

  /**
   * After an attempt of `deliveryId` ended: the due deliveries of its lane that it no longer
   * holds go, and so does the delivery itself if it is due again (a retry wait of 0, or a restore
   * that brought it back while its attempt was in flight, whose timer fired meanwhile).
   */
  #release(tenantId: string, deliveryId: string): void {
    const tenant = this.#platform.tenants.get(tenantId);
    const d = tenant === undefined ? undefined : this.store(tenant).deliveries.get(deliveryId);
    if (!tenant || !d) return;
    const store = this.store(tenant);
    const lane = store.lanes.of(d);
    const candidates = lane.length > 0 ? [...lane] : [d];
    if (d.status !== 'pending') store.lanes.remove(d);
    const now = tenant.clock.nowMs();
    for (const x of candidates) {
      if (x.status === 'pending' && x.nextAttemptAt !== null && x.nextAttemptAt <= now) this.#due(tenant, x);
    }
  }

  /** The timer of a delivery attempt: due while the delivery is pending (restore re-creates it). */
  readonly timers: TimerTable = {
    [ATTEMPT_TIMER]: timer<DeliveryRec>({
      load: (tenant) => this.storeIfAny(tenant)?.deliveries,
      due: (d) => (d.status === 'pending' ? d.nextAttemptAt : null),
      fire: ({ tenant }, d) => this.#due(tenant, d),
    }),
  };

  async #send(request: WebhookRequest, signedAt: number, tenantId: string): Promise<WebhookResponse> {
    const attempt = new AbortController();
    if (this.#closedWith !== null) attempt.abort(this.#closedWith);
    this.#attempts.add(attempt);
    const { signal } = attempt;
    try {
      if (this.#transport) return await this.#transport(request, { signal });
      return await this.receivers.send(request, { now: new Date(signedAt), tenantId, signal });
    } finally {
      this.#attempts.delete(attempt);
    }
  }

  /** Signs in the order attempts were given their slots (WebCrypto may finish out of order). */
  #sign(payload: string, secrets: string[], signedAt: number): Promise<string> {
    const signature = this.#signing.then(() => signPayload(payload, secrets, { timestamp: Math.floor(signedAt / 1000) }));
    this.#signing = signature.catch(() => undefined);
    return signature;
  }

  async #attempt(tenantId: string, deliveryId: string): Promise<void> {
    const tenant = this.#platform.tenants.get(tenantId);
    if (!tenant || this.#platform.closed) return;
    const store = this.store(tenant);
    const delivery = store.deliveries.get(deliveryId);
    // Not pending any more, or not due yet (a restore brought back an earlier state meanwhile).
    if (delivery?.status !== 'pending' || delivery.nextAttemptAt === null || delivery.nextAttemptAt > tenant.clock.nowMs()) return;
    const endpoint = store.endpoints.get(delivery.endpointId);
    if (!endpoint || endpoint.deletedAt !== null || endpoint.status !== 'active') {
      // No attempt to record: the delivery is given up (it can be redelivered once the endpoint is active).
      this.#circuits.forget(tenantId, delivery.endpointId, delivery.id);
      const at = tenant.clock.nowMs();
      store.deliveries.update(delivery, (d) => {
        d.status = 'failed';
        d.nextAttemptAt = null;
        d.updatedAt = Math.max(d.updatedAt, at);
      });
      this.#changed(tenantId, delivery);
      return;
    }
    // The virtual clock decides when a delivery is due; the signature carries the real time of sending.
    const signedAt = this.#signingClock();
    // The body is rebuilt from the logged event (the same bytes each time) when the delivery holds it.
    const body = String(delivery.payload);
    const signature = await this.#sign(body, signingSecrets(endpoint, tenant.clock.nowMs()), signedAt);
    if (this.#platform.closed) return;
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
    // `attempted_at` is the instant the attempt leaves (the tenant's clock then), not the instant it fell due.
    const at = tenant.clock.nowMs();
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
    // A closed sandbox records nothing more (the delivery stays as it was: pending, for a restore to retry).
    if (this.#platform.closed) return;
    const latencyMs = Math.max(0, Math.round(performance.now() - started));
    const ok = error === null;
    // No answer at all (time-out, refused, no receiver) counts towards the endpoint's circuit; any answer closes it.
    const circuit = this.#circuits.outcome(tenantId, endpoint.id, endpoint.url, delivery.id, status !== null, tenant.clock.nowMs());
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
    this.#applyCircuit(tenant, circuit);
    if (ok) {
      this.#record(tenantId, delivery, endpoint, request, status as number, at, false);
      if (this.#duplicates) {
        // At-least-once on purpose: the same request (same event id, same signature) again.
        const copy = await this.#send(request, signedAt, tenantId).catch(() => null);
        if (copy && copy.status >= 200 && copy.status <= 299 && !this.#platform.closed) this.#record(tenantId, delivery, endpoint, request, copy.status, at, true);
      }
    }
    if (delivery.status === 'pending' && delivery.nextAttemptAt !== null && this.#platform.tenants.get(tenantId) === tenant) {
      // (Due already, with a retry wait of 0 or a clock that moved on meanwhile: #release queues it.)
      this.#platform.schedule(tenant, delivery.nextAttemptAt, ATTEMPT_TIMER, delivery.id);
    }
  }

  /**
   * Stops delivering at once: nothing queued is sent, attempts in flight are aborted (their
   * transport gets the abort signal) and not recorded. Resolves once those attempts have ended.
   */
  async close(reason: Error): Promise<void> {
    this.#closedWith ??= reason;
    for (const attempt of this.#attempts) attempt.abort(reason);
    this.log.rejectWaiters(reason);
    for (const job of this.#incoming) job.end();
    this.#incoming = [];
    for (const job of this.#dispatcher.clear()) {
      this.#active.delete(job.deliveryId);
      job.end();
    }
    await Promise.allSettled([...this.#inFlight]);
  }

  #record(tenantId: string, d: DeliveryRec, e: EndpointRec, request: WebhookRequest, status: number, at: number, duplicate: boolean): void {
    this.log.add(new DeliveredEntry(tenantId, d, e.id, request, status, at, duplicate));
  }
}
