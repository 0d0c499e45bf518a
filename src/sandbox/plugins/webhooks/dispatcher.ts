/**
 * Who sends next: delivery attempts run concurrently under three caps (per endpoint, per tenant,
 * in all), and a free slot goes round-robin, first across tenants, then across the endpoints of
 * the tenant chosen, then to that endpoint's oldest attempt. So a slow or dead endpoint fills
 * only its own slots, a tenant with a backlog of thousands takes its turn like one with a single
 * event, and a tenant whose endpoints all hang holds at most its own share (issue 21: one queue
 * awaited in turn let one dead receiver hold every tenant's deliveries for 10 s an attempt).
 *
 * A tenant's share of the total shrinks with the number of busy tenants (those with an attempt
 * in flight), and one share is kept free for a tenant that has nothing in flight (issue 35: ten
 * tenants whose endpoints never answered held 255 of the 256 slots, and a new tenant's
 * deliveries waited 8 s for one). With `b` busy tenants the share is `max(1, floor(total /
 * (b + 1)))`: a busy tenant below its share may take a free slot while a few stay free after
 * it ({@link idleReserve}: 4 of 256), at or above it only while a share's worth stays free. A
 * tenant with nothing in flight may take any free slot, and is served first. Slots are never
 * taken back, so tenants that become busy one after another could otherwise eat the reserve as
 * the share shrinks (the first seven fill their 32 while the share is above it, the eighth took
 * the rest): the few kept free let a tenant that starts sending start an attempt at once, and
 * a tenant whose receiver answers fast gets its slot back as each attempt ends (it has nothing
 * in flight again), whatever the others hold. Up to `total / perTenant - 1` busy tenants (7
 * with the defaults) the share is above the per-tenant cap and the few are free anyway: nothing
 * changes.
 *
 * An endpoint's attempts start in the order they were queued. The owner may say that the
 * oldest one must `wait` (an earlier event of its object is in flight to the same endpoint: the
 * endpoint's queue waits behind it, so later events do not overtake it) or be taken out to
 * `hold` (an earlier event of its object is retrying: the owner queues it again when that one
 * ends, and the rest go on).
 *
 * Every operation is O(1) but the owner's check: an endpoint is in its tenant's ring only while
 * its oldest attempt may start and it has a free slot, a tenant in the ring of tenants only while
 * one of its endpoints is. Rings are insertion-ordered sets: taking the first and adding it back
 * puts it last. A tenant found with no room for it (beyond the reserve that applies) is parked aside
 * (not scanned again at every free slot); it comes back when one of its own attempts ends, when
 * the share grows above what a parked tenant holds, or when room beyond the reserve appears.
 * @module
 */

/** Caps on attempts in flight at once. */
export interface DeliveryConcurrency {
  /** Attempts in flight to one endpoint (default 4). */
  perEndpoint: number;
  /** Attempts in flight for one tenant, all its endpoints together (default 32). */
  perTenant: number;
  /** Attempts in flight in the whole sandbox (default 256). */
  total: number;
}

/**
 * The default caps of webhook attempts in flight: 4 per endpoint (a receiver answering in 1 ms
 * takes 4,000 a second), 32 per tenant (so eight tenants whose endpoints all hang leave room for
 * the others), 256 in all (the server's open sockets).
 */
export const DEFAULT_DELIVERY_CONCURRENCY: Readonly<DeliveryConcurrency> = Object.freeze({ perEndpoint: 4, perTenant: 32, total: 256 });

/** What the dispatcher schedules: an attempt of some tenant to some endpoint. */
export interface DispatchJob {
  tenantId: string;
  endpointId: string;
}

/** Whether an endpoint's oldest queued attempt may start now. */
export type StartVerdict = 'go' | 'wait' | 'hold';

/** What the owner of a dispatcher does. */
export interface DispatchOwner<J> {
  /** Makes one attempt; the promise settles when it has ended (its slot frees then). */
  run(job: J): Promise<void>;
  /** Whether the oldest attempt of its endpoint may start (called before each start). */
  check(job: J): StartVerdict;
  /** The attempt was taken out of its queue on a `hold` verdict: the owner queues it again later. */
  held(job: J): void;
}

/** A first-in first-out queue with O(1) shift (an array's `shift` moves every element). */
class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  peek(): T | undefined {
    return this.#head === this.#items.length ? undefined : this.#items[this.#head];
  }

  shift(): T | undefined {
    if (this.#head === this.#items.length) return undefined;
    const item = this.#items[this.#head] as T;
    this.#items[this.#head++] = undefined as T;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  drain(): T[] {
    const rest = this.#items.slice(this.#head);
    this.#items = [];
    this.#head = 0;
    return rest;
  }
}

interface EndpointQueue<J> {
  id: string;
  running: number;
  jobs: Fifo<J>;
}

interface TenantQueue<J> {
  id: string;
  running: number;
  endpoints: Map<string, EndpointQueue<J>>;
  /** Endpoints with an attempt waiting and a free slot, in turn order. */
  ready: Set<EndpointQueue<J>>;
}

function first<T>(set: Set<T>): T | undefined {
  for (const item of set) return item;
  return undefined;
}

/**
 * The share of the total one busy tenant may hold while others wait: `max(1, floor(total /
 * (busy + 1)))`, one share kept for a tenant with nothing in flight.
 */
export function fairShare(total: number, busy: number): number {
  return Math.max(1, Math.floor(total / (busy + 1)));
}

/**
 * The slots a busy tenant below its share leaves free for tenants with nothing in flight:
 * `max(1, floor(total / 64))`, 4 of the default 256 (never more than the share itself).
 */
export function idleReserve(total: number): number {
  return Math.max(1, Math.floor(total / 64));
}

/** Fair, capped scheduling of attempts. */
export class Dispatcher<J extends DispatchJob> {
  readonly #limits: DeliveryConcurrency;
  /** {@link idleReserve} of the total. */
  readonly #reserve: number;
  readonly #owner: DispatchOwner<J>;
  readonly #tenants = new Map<string, TenantQueue<J>>();
  /** Tenants with nothing in flight and an endpoint in their ready ring, in turn order: served first. */
  readonly #idle = new Set<TenantQueue<J>>();
  /** Tenants with attempts in flight, an endpoint in their ready ring and a free slot, in turn order. */
  readonly #ready = new Set<TenantQueue<J>>();
  /** Tenants of the ring found with no room for them (beyond the idle reserve, or a share when at or above their share). */
  readonly #parked = new Set<TenantQueue<J>>();
  /** The fewest attempts a parked tenant holds (a share above it lets one go again); may be stale low. */
  #parkedLeast = Infinity;
  #running = 0;
  #queued = 0;
  /** Tenants with at least one attempt in flight. */
  #busy = 0;

  constructor(limits: DeliveryConcurrency, owner: DispatchOwner<J>) {
    this.#limits = limits;
    this.#reserve = idleReserve(limits.total);
    this.#owner = owner;
  }

  /** Attempts in flight. */
  get running(): number {
    return this.#running;
  }

  /** Attempts waiting for a slot. */
  get queued(): number {
    return this.#queued;
  }

  /** Tenants with an attempt in flight. */
  get busy(): number {
    return this.#busy;
  }

  /** What one busy tenant may hold while a share stays free for others ({@link fairShare}). */
  get share(): number {
    return fairShare(this.#limits.total, this.#busy);
  }

  /** Attempts in flight of one tenant. */
  runningOf(tenantId: string): number {
    return this.#tenants.get(tenantId)?.running ?? 0;
  }

  /** Queues an attempt and starts what the caps allow. */
  push(job: J): void {
    let tenant = this.#tenants.get(job.tenantId);
    if (!tenant) this.#tenants.set(job.tenantId, (tenant = { id: job.tenantId, running: 0, endpoints: new Map(), ready: new Set() }));
    let endpoint = tenant.endpoints.get(job.endpointId);
    if (!endpoint) tenant.endpoints.set(job.endpointId, (endpoint = { id: job.endpointId, running: 0, jobs: new Fifo() }));
    endpoint.jobs.push(job);
    this.#queued++;
    this.#offer(tenant, endpoint);
    this.#pump();
  }

  /** Drops every attempt still waiting for a slot and returns them (those in flight run on). */
  clear(): J[] {
    const dropped: J[] = [];
    for (const tenant of this.#tenants.values()) {
      for (const endpoint of tenant.endpoints.values()) dropped.push(...endpoint.jobs.drain());
      tenant.ready.clear();
    }
    this.#idle.clear();
    this.#ready.clear();
    this.#parked.clear();
    this.#parkedLeast = Infinity;
    this.#queued = 0;
    return dropped;
  }

  /** The endpoint's oldest attempt if it may start now; held ones are taken out on the way. */
  #head(endpoint: EndpointQueue<J>): J | undefined {
    for (let job = endpoint.jobs.peek(); job !== undefined; job = endpoint.jobs.peek()) {
      const verdict = this.#owner.check(job);
      if (verdict === 'go') return job;
      if (verdict === 'wait') return undefined; // an attempt of this endpoint ends first, and offers it again
      endpoint.jobs.shift();
      this.#queued--;
      this.#owner.held(job);
    }
    return undefined;
  }

  /** Puts an endpoint (and its tenant) in turn if its oldest attempt may start and it has a free slot. */
  #offer(tenant: TenantQueue<J>, endpoint: EndpointQueue<J>): void {
    if (endpoint.running < this.#limits.perEndpoint && this.#head(endpoint) !== undefined) tenant.ready.add(endpoint);
    else tenant.ready.delete(endpoint);
    if (tenant.ready.size > 0 && tenant.running < this.#limits.perTenant) {
      this.#parked.delete(tenant);
      if (tenant.running === 0) {
        this.#ready.delete(tenant);
        this.#idle.add(tenant);
      } else {
        this.#idle.delete(tenant);
        this.#ready.add(tenant);
      }
    }
  }

  /**
   * May the tenant start one more attempt now: with nothing in flight, always; below its share,
   * leaving the idle reserve free; at or above it, leaving a share free.
   */
  #mayTake(tenant: TenantQueue<J>): boolean {
    if (tenant.running === 0) return true;
    const share = this.share;
    const freeAfter = this.#limits.total - this.#running - 1;
    return freeAfter >= (tenant.running < share ? Math.min(share, this.#reserve) : share);
  }

  /** Brings parked tenants back into the ring if one of them may take a slot now; false when none may. */
  #unpark(): boolean {
    if (this.#parked.size === 0) return false;
    const share = this.share;
    const freeAfter = this.#limits.total - this.#running - 1;
    if (freeAfter < (this.#parkedLeast < share ? Math.min(share, this.#reserve) : share)) return false;
    for (const tenant of this.#parked) this.#ready.add(tenant);
    this.#parked.clear();
    this.#parkedLeast = Infinity;
    return true;
  }

  #pump(): void {
    while (this.#running < this.#limits.total) {
      // A tenant with nothing in flight first: the reserve is for it.
      const tenant = first(this.#idle) ?? first(this.#ready);
      if (tenant === undefined) {
        if (this.#unpark()) continue;
        return;
      }
      this.#idle.delete(tenant);
      this.#ready.delete(tenant);
      if (!this.#mayTake(tenant)) {
        // No room for it: aside until it may take one again (its own attempt ends, or room appears).
        if (tenant.ready.size > 0) {
          this.#parked.add(tenant);
          this.#parkedLeast = Math.min(this.#parkedLeast, tenant.running);
        }
        continue;
      }
      const endpoint = first(tenant.ready);
      if (endpoint === undefined) continue;
      tenant.ready.delete(endpoint);
      // Checked again: the verdict may have changed since the endpoint was put in turn.
      const job = this.#head(endpoint);
      if (job === undefined) {
        this.#offer(tenant, endpoint);
        continue;
      }
      endpoint.jobs.shift();
      this.#queued--;
      endpoint.running++;
      if (tenant.running++ === 0) this.#busy++;
      this.#running++;
      // Back in turn, last: the next slot goes to another endpoint, and another tenant.
      this.#offer(tenant, endpoint);
      this.#start(job, tenant, endpoint);
    }
  }

  #start(job: J, tenant: TenantQueue<J>, endpoint: EndpointQueue<J>): void {
    let attempt: Promise<void>;
    try {
      attempt = this.#owner.run(job);
    } catch {
      attempt = Promise.resolve();
    }
    void attempt
      .catch(() => undefined)
      .then(() => {
        endpoint.running--;
        if (--tenant.running === 0) this.#busy--;
        this.#running--;
        if (endpoint.running === 0 && endpoint.jobs.size === 0) tenant.endpoints.delete(endpoint.id);
        if (tenant.running === 0 && tenant.endpoints.size === 0) {
          this.#tenants.delete(tenant.id);
          this.#idle.delete(tenant);
          this.#ready.delete(tenant);
          this.#parked.delete(tenant);
        } else this.#offer(tenant, endpoint);
        this.#pump();
      });
  }
}
