/**
 * The two append-mostly stores of a tenant: its idempotency records and its event log. In memory
 * (the default) they are the classes below; a stored tenant (`serve --data`, core/persist.ts)
 * keeps only what is not written yet and reads the rest from storage, so that neither grows
 * with the tenant's age in memory.
 * @module
 */
import type { EventEnvelope } from '../../models/index.js';

/** An idempotency record: the first answer to a key, or the fact that it is still running. */
export interface IdempotencyRec {
  key: string;
  fingerprint: string;
  running: boolean;
  startedAt: number;
  status: number;
  body: string | null;
  headers: Record<string, string>;
}

/** A recorded event: the envelope of DESIGN.md. */
export type SandboxEvent = EventEnvelope & { type: string };

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
  add(event: SandboxEvent): void;
  /** The last `limit` events, oldest first. */
  recent(limit: number): SandboxEvent[];
}

/** Idempotency records in memory, expired from the head of their creation order. */
export class MemoryIdempotency implements IdempotencyStore {
  readonly #records = new Map<string, IdempotencyRec>();
  // Keys in creation order, for expiry from the head (compacted in batches).
  readonly #order: Array<[at: number, key: string]> = [];
  #head = 0;

  get(key: string): IdempotencyRec | undefined {
    return this.#records.get(key);
  }

  set(key: string, record: IdempotencyRec): void {
    this.#records.set(key, record);
    this.#order.push([record.startedAt, key]);
  }

  delete(key: string): void {
    this.#records.delete(key);
  }

  expire(cutoff: number): void {
    const order = this.#order;
    while (this.#head < order.length && (order[this.#head] as [number, string])[0] <= cutoff) {
      const [createdAt, key] = order[this.#head] as [number, string];
      const rec = this.#records.get(key);
      if (rec && rec.startedAt === createdAt) this.#records.delete(key);
      this.#head++;
    }
    if (this.#head > 1024 && this.#head * 2 > order.length) {
      order.splice(0, this.#head);
      this.#head = 0;
    }
  }

  answered(): IdempotencyRec[] {
    return [...this.#records.values()].filter((r) => !r.running).sort((a, b) => a.startedAt - b.startedAt);
  }

  get running(): boolean {
    for (const r of this.#records.values()) if (r.running) return true;
    return false;
  }
}

/** The event log in memory, keeping at least `size` events (trimmed in batches: amortized O(1)). */
export class MemoryEventLog implements EventLog {
  #events: SandboxEvent[];
  readonly #size: number;

  constructor(size: number, events: SandboxEvent[] = []) {
    this.#size = size;
    this.#events = events;
  }

  add(event: SandboxEvent): void {
    const log = this.#events;
    log.push(event);
    if (log.length > this.#size * 2) this.#events = log.slice(log.length - this.#size);
  }

  recent(limit: number): SandboxEvent[] {
    const log = this.#events;
    return log.slice(Math.max(0, log.length - limit));
  }
}
