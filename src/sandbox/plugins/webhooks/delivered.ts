/**
 * The log of acknowledged deliveries (`sandbox.webhooks.delivered()`) and the waiters of
 * `nextEvent`: an entry is handed to the first waiter that matches it, or kept for a later call.
 * @module
 */
import { realClearTimeout, realSetTimeout } from '../../core/real-time.js';
import type { SandboxEvent } from '../../core/state.js';
import type { DeliveredEvent, DeliveredFilter } from './types.js';

const DELIVERED_LOG = 10_000;

interface Waiter {
  type: string | undefined;
  tenantId: string | undefined;
  resolve: (event: SandboxEvent) => void;
  reject: (error: Error) => void;
}

function matches(e: DeliveredEvent, type: string | undefined, tenantId: string | undefined): boolean {
  return (type === undefined || e.event.type === type) && (tenantId === undefined || e.tenantId === tenantId);
}

/** Acknowledged deliveries, newest last (at least the latest 10,000), and who waits for one. */
export class DeliveredLog {
  #delivered: DeliveredEvent[] = [];
  readonly #consumed = new WeakSet<DeliveredEvent>();
  #waiters: Waiter[] = [];

  /** Records an acknowledged delivery; a first delivery (not a duplicate) may wake a waiter. */
  add(entry: DeliveredEvent): void {
    this.#delivered.push(entry);
    if (this.#delivered.length > DELIVERED_LOG * 2) this.#delivered.splice(0, this.#delivered.length - DELIVERED_LOG);
    if (entry.duplicate) return;
    const waiter = this.#waiters.find((w) => matches(entry, w.type, w.tenantId));
    if (waiter) {
      this.#waiters = this.#waiters.filter((w) => w !== waiter);
      this.#consumed.add(entry);
      waiter.resolve(entry.event);
    }
  }

  /** The next matching event not handed out yet; rejects after `timeoutMs` with `why()` in the message. */
  next(type: string | undefined, tenantId: string | undefined, timeoutMs: number, why: () => string): Promise<SandboxEvent> {
    const ready = this.#delivered.find((e) => !e.duplicate && !this.#consumed.has(e) && matches(e, type, tenantId));
    if (ready) {
      this.#consumed.add(ready);
      return Promise.resolve(ready.event);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        type,
        tenantId,
        resolve: (event) => {
          realClearTimeout(timer);
          resolve(event);
        },
        reject: (error) => {
          realClearTimeout(timer);
          reject(error);
        },
      };
      const timer = realSetTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`No ${type ?? 'webhook'} event was delivered within ${timeoutMs} ms (${why()}).`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Rejects every waiter with `error` (the sandbox closed: nothing more will be delivered). */
  rejectWaiters(error: Error): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w.reject(error);
  }

  /** The entries that match a filter. */
  filter(filter: DeliveredFilter = {}): DeliveredEvent[] {
    return this.#delivered.filter(
      (e) =>
        matches(e, filter.type, filter.tenantId) &&
        (filter.url === undefined || e.url === filter.url) &&
        (filter.eventId === undefined || e.event.id === filter.eventId),
    );
  }
}
