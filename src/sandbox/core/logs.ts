/**
 * The two append-mostly stores of a tenant: its idempotency records and its event log. In memory
 * (the default) they are the classes below, holding records in compact form (a version of a
 * record instead of its JSON: core/versions.ts, core/event-log.ts); a stored tenant (`serve
 * --data`, core/persist.ts) keeps only what is not written yet and reads the rest from storage,
 * so that neither grows with the tenant's age in memory.
 * @module
 */
import type { EventEnvelope } from '../../models/index.js';

/** An answer body kept compact (a version of a record, core/versions.ts): `text()` rebuilds it byte for byte. */
export interface CompactBody {
  text(): string;
}

/** The body of a stored answer as text. */
export function bodyText(body: string | CompactBody | null): string | null {
  return body === null || typeof body === 'string' ? body : body.text();
}

/**
 * An idempotency record: the first answer to a key, or the fact that it is still running. Kept
 * compact, since a tenant holds one per mutation for 24 hours: the request's fingerprint is a
 * number, the answer's headers are only kept when they are not the usual JSON ones, and the
 * `x-request-id` is kept as its value (snapshots and storage rows keep the full form:
 * core/snapshot.ts `IdempotencySnapshot`).
 */
export interface IdempotencyRec {
  key: string;
  /** cyrb53 of method, path, query and body: the same key with another request is refused. */
  fingerprint: number;
  startedAt: number;
  /** HTTP status of the first answer; 0 while the request runs. */
  status: number;
  /** Body of the first answer: its text, or a record's version that rebuilds it (core/versions.ts). */
  body: string | CompactBody | null;
  /** `x-request-id` of the first answer (a replay answers it again). */
  requestId: string;
  /** Headers of the first answer other than `x-request-id`; `null` for `content-type: application/json` alone. */
  headers: Record<string, string> | null;
}

/** A recorded event: the envelope of DESIGN.md. */
export type SandboxEvent = EventEnvelope & { type: string };

/** An entry of a tenant's event log (compact: core/event-log.ts); `envelope()` is the event as emitted. */
export interface LoggedEvent {
  readonly id: string;
  readonly type: string;
  /** The `id` of the event's object. */
  readonly objectId: string;
  envelope(): SandboxEvent;
}

/** A tenant's idempotency records (http/idempotency.ts is the stage that uses them). */
export interface IdempotencyStore {
  /** The record of a key: running, or answered and not expired. */
  get(key: string): IdempotencyRec | undefined;
  /** Stores a new record (running until its answer is set on it). */
  set(key: string, record: IdempotencyRec): void;
  /** Forgets a record that is still running (an answer that is not stored: 5xx, 429). */
  delete(key: string): void;
  /** Drops the records started at or before `cutoff` (the idempotency window has passed). */
  expire(cutoff: number): void;
  /** Every answered record, oldest first (snapshots). */
  answered(): IdempotencyRec[];
  /** Whether a record is still running (a mutation in flight). */
  readonly running: boolean;
}

/** A tenant's event log. */
export interface EventLog {
  /** Appends an event. */
  add(event: LoggedEvent): void;
  /** The last `limit` events, oldest first. */
  recent(limit: number): LoggedEvent[];
}

/**
 * Idempotency records in memory, expired from the head of their creation order. The order is
 * the records themselves (one flat queue, no `[at, key]` pair per record); a record no longer
 * under its key (dropped after a 5xx, replaced since) is skipped.
 */
export class MemoryIdempotency implements IdempotencyStore {
  readonly #records = new Map<string, IdempotencyRec>();
  readonly #order: IdempotencyRec[] = [];
  #head = 0;

  get(key: string): IdempotencyRec | undefined {
    return this.#records.get(key);
  }

  set(key: string, record: IdempotencyRec): void {
    this.#records.set(key, record);
    this.#order.push(record);
  }

  delete(key: string): void {
    this.#records.delete(key);
  }

  expire(cutoff: number): void {
    const order = this.#order;
    while (this.#head < order.length && (order[this.#head] as IdempotencyRec).startedAt <= cutoff) {
      const rec = order[this.#head] as IdempotencyRec;
      if (this.#records.get(rec.key) === rec) this.#records.delete(rec.key);
      this.#head++;
    }
    // Compacted in batches: amortized O(1).
    if (this.#head > 1024 && this.#head * 2 > order.length) {
      order.splice(0, this.#head);
      this.#head = 0;
    }
  }

  answered(): IdempotencyRec[] {
    return [...this.#records.values()].filter((r) => r.status !== 0).sort((a, b) => a.startedAt - b.startedAt);
  }

  get running(): boolean {
    for (const r of this.#records.values()) if (r.status === 0) return true;
    return false;
  }

  /** How many records it holds (tests, the memory bench). */
  get size(): number {
    return this.#records.size;
  }

  /** How long its creation-order queue is, expired entries not yet compacted included (tests). */
  get queued(): number {
    return this.#order.length - this.#head;
  }
}

/** The event log in memory, keeping at least `size` events (trimmed in batches: amortized O(1)). */
export class MemoryEventLog implements EventLog {
  #events: LoggedEvent[];
  readonly #size: number;

  constructor(size: number, events: LoggedEvent[] = []) {
    this.#size = size;
    this.#events = events;
  }

  add(event: LoggedEvent): void {
    const log = this.#events;
    log.push(event);
    if (log.length > this.#size * 2) this.#events = log.slice(log.length - this.#size);
  }

  recent(limit: number): LoggedEvent[] {
    const log = this.#events;
    return log.slice(Math.max(0, log.length - limit));
  }

  /** How many entries it holds now (at most twice its size: tests, the memory bench). */
  get length(): number {
    return this.#events.length;
  }
}
