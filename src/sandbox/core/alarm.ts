/**
 * One real timer for the due timers of every tenant whose clock follows real time. Nobody
 * advances such a clock, and a tenant may send no request for minutes (a partner's test waiting
 * for `conversion.completed`): its deposit windows, quote TTLs, settlements and webhook retries
 * must still fire on time. Rather than a real timer per virtual timer, or a tick polling every
 * tenant, the alarm keeps a heap of (real instant, tenant) and arms one real timer for the
 * earliest: the cost follows the tenants that have something due, never the idle ones.
 * Entries are never removed, only outdated: a tenant's entry counts while it is the instant
 * noted for that tenant, and waking a tenant that has nothing due yet costs one `runDue`.
 *
 * The real timer holds the alarm weakly (issue 21): a pending timer is a root of the runtime, and
 * a callback closing over the alarm would keep its platform, every tenant and every record alive
 * until the next due instant (a deposit window: 15 minutes; a standby: 7 days) after the test
 * that made the sandbox dropped it. The callback receives a `WeakRef`; when the alarm is
 * collected, a `FinalizationRegistry` clears its timer. `close()` stops it at once.
 * @module
 */
import { realClearTimeout, realSetTimeout } from './real-time.js';

/** The longest wait `setTimeout` takes (about 24.8 days); a later instant is re-armed on waking. */
const MAX_WAIT_MS = 2_147_000_000;

type Handle = ReturnType<typeof realSetTimeout>;

/** The armed real timer of an alarm, in a box that does not point back at the alarm. */
interface Armed {
  handle: Handle | null;
}

// One registry for every alarm: a registry collected with its alarm would never call back.
const DISARM =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<Armed>((armed) => {
        if (armed.handle !== null) realClearTimeout(armed.handle);
        armed.handle = null;
      })
    : null;

/** The alarm of a platform. */
export class Alarm {
  // Binary heap as parallel arrays: real instant (ms since the epoch) and tenant id.
  readonly #at: number[] = [];
  readonly #id: string[] = [];
  /** The instant each tenant is registered for; a heap entry with another instant is outdated. */
  readonly #noted = new Map<string, number>();
  readonly #armed: Armed = { handle: null };
  #armedAt = Infinity;
  #closed = false;
  /** Fires a tenant's due timers and answers when its next one falls due, in real time (or `null`). */
  readonly #run: (tenantId: string) => number | null;

  constructor(run: (tenantId: string) => number | null) {
    this.#run = run;
    DISARM?.register(this, this.#armed, this.#armed);
  }

  /** The timer's callback: it reaches the alarm through a weak reference only. */
  static #ring(ref: WeakRef<Alarm> | Alarm): void {
    const alarm = ref instanceof Alarm ? ref : ref.deref();
    if (alarm !== undefined) alarm.#wake();
  }

  /** Wakes `tenantId` at `realAt` (ms since the epoch) unless it is already due to wake earlier. */
  note(tenantId: string, realAt: number): void {
    if (this.#closed) return;
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
    if (this.#armed.handle !== null) realClearTimeout(this.#armed.handle);
    this.#armed.handle = null;
    this.#armedAt = Infinity;
    this.#noted.clear();
    this.#at.length = 0;
    this.#id.length = 0;
  }

  /** Disarms for good: later notes are ignored (the sandbox was closed). */
  close(): void {
    this.#closed = true;
    this.clear();
    DISARM?.unregister(this.#armed);
  }

  #arm(): void {
    this.#dropOutdated();
    const next = this.#at.length > 0 ? (this.#at[0] as number) : Infinity;
    if (next >= this.#armedAt) return;
    if (this.#armed.handle !== null) realClearTimeout(this.#armed.handle);
    this.#armedAt = next;
    const ref = typeof WeakRef === 'function' ? new WeakRef(this) : this;
    const handle = realSetTimeout(Alarm.#ring, Math.min(MAX_WAIT_MS, Math.max(0, next - Date.now())), ref);
    (handle as { unref?: () => void }).unref?.();
    this.#armed.handle = handle;
  }

  #wake(): void {
    this.#armed.handle = null;
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
