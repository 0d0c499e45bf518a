/**
 * Where a receiver records which events it processed: claim an event with a lease, then either
 * complete it (the "done" mark, committed with the partner's side effect where the store can) or
 * release it (the handler failed: the platform's retry processes it).
 * @module
 */

/** A claim held on one event: the lease's token fences a handler that outlived its lease. */
export interface EventClaim {
  /** `claimed`: this caller runs the handler. */
  status: 'claimed';
  /** The event id. */
  eventId: string;
  /** Identifies this claim; completing or releasing with another token does nothing. */
  token: string;
  /** How many times the event was claimed, this one included (1 for the first delivery). */
  attempt: number;
}

/** The answer of {@link WebhookEventStore.claim}. */
export type ClaimResult =
  | EventClaim
  /** The event was processed before: a duplicate. */
  | { status: 'processed'; eventId: string }
  /** Another copy holds a live lease (it is being processed right now). */
  | { status: 'in_progress'; eventId: string; leaseExpiresAt: number };

/** Options of {@link WebhookEventStore.claim}. */
export interface ClaimOptions {
  /** How long the claim holds, in ms, before another delivery may take the event over. */
  leaseMs: number;
  /** The event's kind (stored for inspection). */
  eventType?: string;
}

/**
 * The store of a webhook receiver ({@link createWebhookHandler}): claim with a lease, complete,
 * release. `Tx` is what `complete` hands the handler: a SQL transaction for
 * {@link createSqlEventStore}, nothing for {@link createMemoryEventStore}.
 *
 * Contract: `claim` answers `claimed` to one caller at a time per event (until its lease
 * expires or it is released), `processed` once an event was completed, `in_progress` otherwise.
 * `complete(claim, work)` runs `work` and marks the event processed so that both take effect
 * together or not at all (as far as the store can: a SQL store runs both in one transaction), and
 * rejects with {@link WebhookLeaseLostError} when the claim is no longer the event's.
 */
export interface WebhookEventStore<Tx = undefined> {
  /** Claims an event for `leaseMs`. */
  claim(eventId: string, options: ClaimOptions): Promise<ClaimResult>;
  /** Runs `work` and marks the event processed, together. */
  complete<T>(claim: EventClaim, work: (tx: Tx) => T | Promise<T>): Promise<T>;
  /** Gives the event back (the handler failed): the next delivery claims it again. */
  release(claim: EventClaim, error?: string): Promise<void>;
}

/**
 * Thrown by `complete` when the claim was taken over (its lease expired and another delivery
 * claimed the event) or released: the work's effects were not committed by a SQL store.
 */
export class WebhookLeaseLostError extends Error {
  /** The class name, a literal. */
  override readonly name = 'WebhookLeaseLostError' as const;
  /** The event id. */
  readonly eventId: string;

  constructor(eventId: string) {
    super(`The claim on event ${eventId} was lost (its lease expired and another delivery took it over)`);
    this.eventId = eventId;
  }
}

/**
 * What `onEvent` is failed with when it runs past the handler's `onEventTimeoutMs`: the store
 * abandons its unit of work (a SQL store rolls the transaction back; a pg connection is closed, not
 * given back to the pool), the claim is released, and the platform is answered 503 so that it
 * retries. Code that `onEvent` runs after this point writes nothing through the transaction.
 */
export class WebhookHandlerTimeoutError extends Error {
  /** The class name, a literal. */
  override readonly name = 'WebhookHandlerTimeoutError' as const;
  /** The event id. */
  readonly eventId: string;
  /** The time limit that was reached, in ms. */
  readonly timeoutMs: number;

  constructor(eventId: string, timeoutMs: number) {
    super(`onEvent for event ${eventId} ran past its time limit of ${timeoutMs} ms: its claim was released and its transaction abandoned`);
    this.eventId = eventId;
    this.timeoutMs = timeoutMs;
  }
}

/** @internal True for a {@link WebhookHandlerTimeoutError}, from any copy of this package. */
export function isHandlerTimeoutError(error: unknown): error is WebhookHandlerTimeoutError {
  return (error as { name?: unknown } | null)?.name === 'WebhookHandlerTimeoutError';
}

/** @internal True for a {@link WebhookLeaseLostError}, from any copy of this package (checks `name`, as a store of the other build throws it). */
export function isLeaseLostError(error: unknown): error is WebhookLeaseLostError {
  return (error as { name?: unknown } | null)?.name === 'WebhookLeaseLostError';
}

/** @internal A random token (WebCrypto where present; uniqueness, not secrecy, is what counts). */
export function claimToken(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
}

/** Options of {@link createMemoryEventStore}. */
export interface MemoryEventStoreOptions {
  /** How long processed ids are kept, in ms. Default 72 hours (the platform retries for about 31). */
  retainMs?: number;
  /** At most this many ids are kept; the oldest processed ones go first. Default 100,000. */
  maxEntries?: number;
  /** The clock, in ms (tests). Default `Date.now`. */
  now?: () => number;
}

interface Entry {
  state: 'processing' | 'processed';
  token: string | null;
  expiresAt: number;
  attempts: number;
  at: number;
}

/**
 * An in-memory store: right for one process, and for tests. It forgets on restart, and it cannot
 * undo a handler's side effects: when a lease expires while its handler still runs, a second
 * delivery may run it again. Give a handler that writes to a database the SQL store instead
 * ({@link createSqlEventStore}), whose "done" mark commits with the handler's writes.
 */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): WebhookEventStore {
  const retainMs = options.retainMs ?? 72 * 3600_000;
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  // Insertion order is age order: an entry is re-inserted when it changes.
  const entries = new Map<string, Entry>();

  function put(id: string, entry: Entry): void {
    entries.delete(id);
    entries.set(id, entry);
    const oldest = now() - retainMs;
    for (const [key, e] of entries) {
      if (entries.size <= maxEntries && e.at >= oldest) break;
      if (e.state === 'processed' || e.expiresAt <= now()) entries.delete(key);
      else break;
    }
  }

  function owned(claim: EventClaim): Entry {
    const entry = entries.get(claim.eventId);
    if (entry?.state !== 'processing' || entry.token !== claim.token) throw new WebhookLeaseLostError(claim.eventId);
    return entry;
  }

  return {
    async claim(eventId, { leaseMs }) {
      const at = now();
      const entry = entries.get(eventId);
      if (entry?.state === 'processed') return { status: 'processed', eventId };
      if (entry !== undefined && entry.expiresAt > at) return { status: 'in_progress', eventId, leaseExpiresAt: entry.expiresAt };
      const claim: EventClaim = { status: 'claimed', eventId, token: claimToken(), attempt: (entry?.attempts ?? 0) + 1 };
      put(eventId, { state: 'processing', token: claim.token, expiresAt: at + leaseMs, attempts: claim.attempt, at });
      return claim;
    },
    async complete(claim, work) {
      owned(claim);
      const result = await work(undefined);
      const entry = owned(claim);
      put(claim.eventId, { ...entry, state: 'processed', token: null, at: now() });
      return result;
    },
    async release(claim) {
      const entry = entries.get(claim.eventId);
      if (entry?.state === 'processing' && entry.token === claim.token) put(claim.eventId, { ...entry, token: null, expiresAt: 0 });
    },
  };
}
