/**
 * One real timer for the due timers of every tenant whose clock follows real time. Nobody
 * advances such a clock, and a tenant may send no request for minutes (a partner's test waiting
 * for `conversion.completed`): its deposit windows, quote TTLs, settlements and webhook retries
 * must still fire on time. Rather than a real timer per virtual timer, or a tick polling every
 * tenant, the alarm keeps a heap of (real instant, tenant) and arms one real timer for the
 * earliest: the cost follows the tenants that have something due, never the idle ones.
 * Entries are never removed, only outdated: a tenant's entry counts while it is the instant
 * noted for that tenant, and waking a tenant that has nothing due yet costs one `runDue`.
 * @module
 */
import { realClearTimeout, realSetTimeout } from './real-time.js';

/** The longest wait `setTimeout` takes (about 24.8 days); a later instant is re-armed on waking. */
const MAX_WAIT_MS = 2_147_000_000;

/** The alarm of a platform. */
export class Alarm {
  // Binary heap as parallel arrays: real instant (ms since the epoch) and tenant id.
  readonly #at: number[] = [];
  readonly #id: string[] = [];
  /** The instant each tenant is registered for; a heap entry with another instant is outdated. */
  readonly #noted = new Map<string, number>();
  #handle: ReturnType<typeof realSetTimeout> | null = null;
  #armedAt = Infinity;
  /** Fires a tenant's due timers and answers when its next one falls due, in real time (or `null`). */
  readonly #run: (tenantId: string) => number | null;

  constructor(run: (tenantId: string) => number | null) {
    this.#run = run;
  }

  /** Wakes `tenantId` at `realAt` (ms since the epoch) unless it is already due to wake earlier. */
  note(tenantId: string, realAt: number): void {
    const known = this.#noted.get(tenantId);
    if (known !== undefined && known <= realAt) return;
    this.#noted.set(tenantId, realAt);
    this.#push(realAt, tenantId);
    this.#arm();
  }

  /** How many tenants are waiting to be woken (tests and diagnostics). */
  get size(): number {
    return this.#noted.size;
  }

  /** Disarms the real timer and forgets every tenant. */
  clear(): void {
    if (this.#handle !== null) realClearTimeout(this.#handle);
    this.#handle = null;
    this.#armedAt = Infinity;
    this.#noted.clear();
    this.#at.length = 0;
    this.#id.length = 0;
  }

  #arm(): void {
    this.#dropOutdated();
    const next = this.#at.length > 0 ? (this.#at[0] as number) : Infinity;
    if (next >= this.#armedAt) return;
    if (this.#handle !== null) realClearTimeout(this.#handle);
    this.#armedAt = next;
    const handle = realSetTimeout(() => this.#wake(), Math.min(MAX_WAIT_MS, Math.max(0, next - Date.now())));
    (handle as { unref?: () => void }).unref?.();
    this.#handle = handle;
  }

  #wake(): void {
    this.#handle = null;
    this.#armedAt = Infinity;
    const now = Date.now();
    const woken: string[] = [];
    while (this.#at.length > 0 && (this.#at[0] as number) <= now) {
      const [at, id] = this.#pop();
      if (this.#noted.get(id) !== at) continue;
      this.#noted.delete(id);
      woken.push(id);
    }
    for (const id of woken) {
      const next = this.#run(id);
      if (next !== null) this.note(id, next);
    }
    this.#arm();
  }

  #dropOutdated(): void {
    while (this.#at.length > 0 && this.#noted.get(this.#id[0] as string) !== this.#at[0]) this.#pop();
  }

  #push(at: number, id: string): void {
    let i = this.#at.length;
    this.#at.push(at);
    this.#id.push(id);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((this.#at[parent] as number) <= at) break;
      this.#at[i] = this.#at[parent] as number;
      this.#id[i] = this.#id[parent] as string;
      i = parent;
    }
    this.#at[i] = at;
    this.#id[i] = id;
  }

  #pop(): [number, string] {
    const top: [number, string] = [this.#at[0] as number, this.#id[0] as string];
    const lastAt = this.#at.pop() as number;
    const lastId = this.#id.pop() as string;
    const n = this.#at.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && (this.#at[r] as number) < (this.#at[l] as number) ? r : l;
      if ((this.#at[m] as number) >= lastAt) break;
      this.#at[i] = this.#at[m] as number;
      this.#id[i] = this.#id[m] as string;
      i = m;
    }
    this.#at[i] = lastAt;
    this.#id[i] = lastId;
    return top;
  }
}
