/**
 * The log of acknowledged deliveries (`sandbox.webhooks.delivered()`) and the waiters of
 * `nextEvent`: an entry is handed to the first waiter that matches it, or kept for a later call.
 * @module
 */
import { realClearTimeout, realSetTimeout } from '../../core/real-time.js';
import type { SandboxEvent } from '../../core/state.js';
import type { EventJson } from '../../core/event-log.js';
import type { DeliveredEvent, DeliveredFilter, DeliveryRec, WebhookRequest } from './types.js';

const DELIVERED_LOG = 10_000;

/**
 * An acknowledged request as `delivered()` lists it. The body is the delivery's (the logged
 * event rebuilds it) and the event is parsed from it on first read: the log holds up to 20,000
 * entries, and a parsed event costs more than a kilobyte each.
 */
export class DeliveredEntry implements DeliveredEvent {
  readonly deliveryId: string;
  /** The event's id and type, for the filters (read without parsing the body). */
  readonly eventId: string;
  readonly eventType: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly at: Date;
  readonly #payload: string | EventJson;
  #event: SandboxEvent | undefined;

  constructor(
    readonly tenantId: string,
    delivery: DeliveryRec,
    readonly endpointId: string,
    request: WebhookRequest,
    readonly status: number,
    at: number,
    readonly duplicate: boolean,
  ) {
    this.deliveryId = delivery.id;
    this.eventId = delivery.eventId;
    this.eventType = delivery.eventType;
    this.url = request.url;
    this.headers = { ...request.headers };
    this.at = new Date(at);
    this.#payload = delivery.payload;
  }

  get body(): string {
    return String(this.#payload);
  }

  get event(): SandboxEvent {
    return (this.#event ??= JSON.parse(this.body) as SandboxEvent);
  }
}

interface Waiter {
  type: string | undefined;
  tenantId: string | undefined;
  resolve: (event: SandboxEvent) => void;
  reject: (error: Error) => void;
}

function matches(e: DeliveredEntry, type: string | undefined, tenantId: string | undefined): boolean {
  return (type === undefined || e.eventType === type) && (tenantId === undefined || e.tenantId === tenantId);
}

/** Acknowledged deliveries, newest last (at least the latest 10,000), and who waits for one. */
export class DeliveredLog {
  #delivered: DeliveredEntry[] = [];
  readonly #consumed = new WeakSet<DeliveredEntry>();
  #waiters: Waiter[] = [];

  /** Records an acknowledged delivery; a first delivery (not a duplicate) may wake a waiter. */
  add(entry: DeliveredEntry): void {
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
        (filter.eventId === undefined || e.eventId === filter.eventId),
    );
  }
}
