/**
 * A circuit per endpoint (issue 35): an endpoint whose attempts keep ending without an answer
 * (a time-out, a refused connection, no receiver) stops getting attempts for a while, so that
 * its deliveries stop holding delivery slots 10 s at a time. After `failures` such attempts in a
 * row the circuit opens for a cool-down of tenant time (`cooldownSeconds`, times the number of
 * times it opened in a row, at most `maxCooldownSeconds`: Envoy's outlier ejection). Then it is
 * half-open: one attempt goes (the trial), the others due meanwhile wait for its outcome. An
 * answer, any HTTP status, closes it and the deliveries it delayed go at once; a trial without an
 * answer opens it again, for longer.
 *
 * The circuit delays attempts and never makes or drops one: a delayed attempt is made when the
 * circuit lets it go, counts as one attempt of the reference's schedule like any other, and the
 * next wait of the schedule counts from the instant it was sent (docs/decisions.md, "A circuit
 * per endpoint"). This module only keeps the state; the delivery service (service.ts) asks it
 * before each attempt, moves `next_attempt_at` of what it delays, and tells it each outcome.
 * State is per sandbox, in memory: a restarted server starts with every circuit closed.
 * @module
 */

/** When an endpoint's circuit opens and for how long (`createSandbox({ webhooks: { circuit } })`). */
export interface CircuitOptions {
  /** Attempts in a row that end without an answer (time-out, refused, no receiver) before the circuit opens (default 5). */
  failures: number;
  /** How long it stays open the first time, in seconds of the tenant's clock (default 30); each time it opens again in a row adds as much. */
  cooldownSeconds: number;
  /** The longest it stays open, in seconds (default 300). */
  maxCooldownSeconds: number;
}

/** The default circuit: opens after 5 attempts in a row without an answer, for 30 s, then 60 s, 90 s... up to 5 minutes. */
export const DEFAULT_CIRCUIT: Readonly<CircuitOptions> = Object.freeze({ failures: 5, cooldownSeconds: 30, maxCooldownSeconds: 300 });

/** `closed`: attempts go; `open`: none goes until the cool-down ends; `half_open`: one trial goes, the others wait for it. */
export type CircuitState = 'closed' | 'open' | 'half_open';

/** What the inspector shows of an endpoint's circuit. */
export interface CircuitView {
  state: CircuitState;
  /** Attempts in a row that ended without an answer. */
  consecutiveFailures: number;
  /** Until when it is open (ms of the tenant's clock); `null` when closed. */
  openUntil: number | null;
  /** Deliveries it is delaying now. */
  deferred: number;
}

/** What an outcome changed: deliveries to queue again (`release`), or to delay until `until`. */
export type CircuitChange = { release: string[] } | { until: number; deferred: string[] } | null;

interface Circuit {
  url: string;
  failures: number;
  /** Times it opened in a row (a failed trial opens it again). */
  opens: number;
  openUntil: number | null;
  /** The delivery whose attempt is the half-open trial, once it started. */
  trial: string | null;
  /** Deliveries it delayed, with the instant their schedule made them due. */
  deferred: Map<string, number>;
}

const CLOSED: CircuitView = Object.freeze({ state: 'closed', consecutiveFailures: 0, openUntil: null, deferred: 0 });

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`circuit.${name} must be a positive integer.`);
  return value;
}

/** The options of `WebhookDeliveryOptions.circuit`, validated, over the defaults; `null` when turned off. */
export function circuitOptions(options: Partial<CircuitOptions> | false | undefined): CircuitOptions | null {
  if (options === false) return null;
  const o = { ...DEFAULT_CIRCUIT, ...options };
  const failures = positiveInteger(o.failures, 'failures');
  if (!Number.isFinite(o.cooldownSeconds) || o.cooldownSeconds <= 0) throw new RangeError('circuit.cooldownSeconds must be a positive number.');
  if (!Number.isFinite(o.maxCooldownSeconds) || o.maxCooldownSeconds < o.cooldownSeconds) {
    throw new RangeError('circuit.maxCooldownSeconds must be a number no smaller than circuit.cooldownSeconds.');
  }
  return { failures, cooldownSeconds: o.cooldownSeconds, maxCooldownSeconds: o.maxCooldownSeconds };
}

/** The circuits of one sandbox, one per (tenant, endpoint); only those not plainly closed are kept. */
export class Circuits {
  readonly #options: CircuitOptions | null;
  readonly #byEndpoint = new Map<string, Circuit>();

  constructor(options: CircuitOptions | null) {
    this.#options = options;
  }

  #key(tenantId: string, endpointId: string): string {
    return `${tenantId}|${endpointId}`;
  }

  /** The endpoint's circuit; one whose endpoint changed its URL starts again (a new receiver). */
  #find(tenantId: string, endpointId: string, url: string): Circuit | undefined {
    const c = this.#byEndpoint.get(this.#key(tenantId, endpointId));
    return c?.url === url ? c : undefined;
  }

  #state(c: Circuit | undefined, now: number): CircuitState {
    if (c?.openUntil == null) return 'closed';
    return now < c.openUntil ? 'open' : 'half_open';
  }

  /** Drops a circuit that holds nothing any more (closed, no failure, nothing delayed). */
  #tidy(tenantId: string, endpointId: string, c: Circuit): void {
    if (c.openUntil === null && c.failures === 0 && c.deferred.size === 0) this.#byEndpoint.delete(this.#key(tenantId, endpointId));
  }

  /**
   * Whether an attempt of `deliveryId` may go now: always when closed; never while open; when
   * half-open, if no trial has started or it is the trial. Changes nothing.
   */
  allows(tenantId: string, endpointId: string, url: string, deliveryId: string, now: number): boolean {
    const c = this.#find(tenantId, endpointId, url);
    const state = this.#state(c, now);
    if (state === 'closed') return true;
    if (state === 'open') return false;
    return c?.trial === null || c?.trial === deliveryId;
  }

  /**
   * The deliveries an endpoint's circuit held for a URL it no longer has: its URL changed, so
   * the circuit starts closed and they may go (the caller queues them again).
   */
  moved(tenantId: string, endpointId: string, url: string): string[] {
    const c = this.#byEndpoint.get(this.#key(tenantId, endpointId));
    if (c === undefined || c.url === url) return [];
    this.#byEndpoint.delete(this.#key(tenantId, endpointId));
    return [...c.deferred.keys()];
  }

  /** An attempt of `deliveryId` starts: it is no longer delayed, and in a half-open circuit it is the trial. */
  starting(tenantId: string, endpointId: string, url: string, deliveryId: string, now: number): void {
    const c = this.#find(tenantId, endpointId, url);
    if (c === undefined) return;
    c.deferred.delete(deliveryId);
    if (this.#state(c, now) === 'half_open' && c.trial === null) c.trial = deliveryId;
  }

  /**
   * Delays a delivery the circuit does not let go: answers until when (the end of the cool-down,
   * its next attempt), or `null` in a half-open circuit (it waits for the trial's outcome, which
   * releases it or delays it again). `scheduledAt` is when the schedule made it due (kept from
   * the first delay). `undefined` when the circuit lets it go after all.
   */
  defer(tenantId: string, endpointId: string, url: string, deliveryId: string, scheduledAt: number, now: number): number | null | undefined {
    const c = this.#find(tenantId, endpointId, url);
    if (c === undefined || this.allows(tenantId, endpointId, url, deliveryId, now)) return undefined;
    if (!c.deferred.has(deliveryId)) c.deferred.set(deliveryId, scheduledAt);
    return this.#state(c, now) === 'open' ? (c.openUntil as number) : null;
  }

  /** The instant the schedule made a delayed delivery due, or `undefined` when the circuit is not delaying it. */
  deferredSince(tenantId: string, endpointId: string, deliveryId: string): number | undefined {
    return this.#byEndpoint.get(this.#key(tenantId, endpointId))?.deferred.get(deliveryId);
  }

  /** A delivery is no longer delayed (given up without an attempt). */
  forget(tenantId: string, endpointId: string, deliveryId: string): void {
    const c = this.#byEndpoint.get(this.#key(tenantId, endpointId));
    if (c === undefined) return;
    c.deferred.delete(deliveryId);
    if (c.trial === deliveryId) c.trial = null;
    this.#tidy(tenantId, endpointId, c);
  }

  /**
   * The outcome of an attempt: `answered` when the receiver answered (any status). An answer
   * closes the circuit and releases what it delayed; the `failures`-th attempt in a row without
   * one opens it; a trial without one opens it again for longer, and delays what waited for it.
   */
  outcome(tenantId: string, endpointId: string, url: string, deliveryId: string, answered: boolean, now: number): CircuitChange {
    if (this.#options === null) return null;
    const key = this.#key(tenantId, endpointId);
    let c = this.#find(tenantId, endpointId, url);
    if (answered) {
      if (c === undefined) return null;
      const release = c.openUntil === null ? [] : [...c.deferred.keys()];
      c.failures = 0;
      c.opens = 0;
      c.openUntil = null;
      c.trial = null;
      if (release.length > 0) c.deferred.clear();
      this.#tidy(tenantId, endpointId, c);
      return release.length > 0 ? { release } : null;
    }
    if (c === undefined) this.#byEndpoint.set(key, (c = { url, failures: 0, opens: 0, openUntil: null, trial: null, deferred: new Map() }));
    c.failures++;
    const trial = c.trial === deliveryId;
    if (trial) c.trial = null;
    // An attempt that started before the circuit opened and failed meanwhile changes nothing more.
    if (!trial && (c.openUntil !== null || c.failures < this.#options.failures)) return null;
    c.opens++;
    const seconds = Math.min(this.#options.maxCooldownSeconds, this.#options.cooldownSeconds * c.opens);
    c.openUntil = now + seconds * 1000;
    return { until: c.openUntil, deferred: [...c.deferred.keys()] };
  }

  /** The trial started but made no attempt (nothing was sent): another delivery may be the trial. */
  abandoned(tenantId: string, endpointId: string, deliveryId: string): string[] {
    const c = this.#byEndpoint.get(this.#key(tenantId, endpointId));
    if (c?.trial !== deliveryId) return [];
    c.trial = null;
    return [...c.deferred.keys()];
  }

  /** What the inspector shows of an endpoint's circuit. */
  view(tenantId: string, endpointId: string, url: string, now: number): CircuitView {
    const c = this.#find(tenantId, endpointId, url);
    if (c === undefined) return CLOSED;
    return { state: this.#state(c, now), consecutiveFailures: c.failures, openUntil: c.openUntil, deferred: c.deferred.size };
  }
}
