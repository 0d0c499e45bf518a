/**
 * The virtual clock of a tenant and its timers. The clock is the only time source of the
 * sandbox. It follows real time by default (plus whatever `advance` added) or stays frozen at
 * a start instant; it never goes backwards. Timers are plain data (`{ at, kind, id }`) so that
 * a snapshot can re-create them from state; a timer whose subject moved on is ignored when
 * it fires.
 * @module
 */

/** A span of virtual time. */
export interface Duration {
  /** Milliseconds. */
  ms?: number;
  /** Seconds. */
  seconds?: number;
  /** Minutes. */
  minutes?: number;
  /** Hours. */
  hours?: number;
  /** Days of 24 hours. */
  days?: number;
}

/** Milliseconds in a duration. */
export function durationMs(d: Duration): number {
  const ms =
    (d.ms ?? 0) + (d.seconds ?? 0) * 1000 + (d.minutes ?? 0) * 60_000 + (d.hours ?? 0) * 3_600_000 + (d.days ?? 0) * 86_400_000;
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError('The clock never goes backwards: give a non-negative, finite duration.');
  return ms;
}

/** A scheduled effect: what falls due, when, and on which resource. */
export interface Timer {
  at: number;
  kind: string;
  id: string;
}

/** The public face of a tenant's clock. */
export interface SandboxClock {
  /** The current virtual time. */
  now(): Date;
  /**
   * Moves time forward through the span, stopping at each timer that falls due in it, in
   * timestamp order: the timer fires at its own instant, and the tenant's webhook attempts it
   * makes due are sent, stamped and recorded before time moves on (so one advance of two days
   * walks a failing delivery through every retry of its schedule, each at its instant).
   * Resolves once the tenant's effects have settled; a neighbour tenant's deliveries are not
   * waited for. Never goes backwards.
   */
  advance(duration: Duration): Promise<Date>;
}

/** A tenant's clock with its timer queue (a binary heap ordered by time, then insertion). */
export class Clock implements SandboxClock {
  #frozen: number | null;
  #offset = 0;
  #last = -Infinity;
  // The heap is kept as parallel arrays (time, insertion order, kind, subject): a few bytes per
  // timer instead of an object each, since a tenant may hold millions of them (issue 6).
  #at: number[] = [];
  #order: number[] = [];
  #kind: number[] = [];
  #id: string[] = [];
  #kinds: string[] = [];
  #seq = 0;
  #firing = false;
  readonly #fire: (timer: Timer) => void;
  readonly #settle: () => Promise<void>;
  readonly #moved: () => void;

  /** `moved` runs after an advance, once the timers due in its span have fired. */
  constructor(start: number | null, fire: (timer: Timer) => void, settle: () => Promise<void> = () => Promise.resolve(), moved: () => void = () => undefined) {
    this.#frozen = start;
    this.#fire = fire;
    this.#settle = settle;
    this.#moved = moved;
  }

  /** The current virtual time in milliseconds since the epoch. */
  nowMs(): number {
    const t = (this.#frozen ?? Date.now()) + this.#offset;
    if (t > this.#last) this.#last = t;
    return this.#last;
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** Sets the time (restore); later reads never go below it. */
  set(ms: number): void {
    if (this.#frozen === null) this.#offset = ms - Date.now();
    else {
      this.#frozen = ms;
      this.#offset = 0;
    }
    this.#last = ms;
  }

  /**
   * What a stored tenant keeps of its clock: the offset from real time (a clock that follows
   * real time: it moves on while the process is down), or the frozen instant. It changes only
   * when the clock is advanced or set.
   */
  get state(): { realTime: boolean; at: number } {
    return this.#frozen === null ? { realTime: true, at: this.#offset } : { realTime: false, at: this.#frozen + this.#offset };
  }

  /** Sets the clock from a {@link state} of the same kind (a stored tenant loaded). */
  set state(state: { realTime: boolean; at: number }) {
    if (state.realTime !== (this.#frozen === null)) throw new TypeError('A clock that follows real time cannot take the state of a frozen one, nor the reverse.');
    if (this.#frozen === null) this.#offset = state.at;
    else {
      this.#frozen = state.at;
      this.#offset = 0;
    }
    this.#last = -Infinity;
  }

  /** True when the clock follows real time. */
  get realTime(): boolean {
    return this.#frozen === null;
  }

  async advance(duration: Duration): Promise<Date> {
    const end = this.nowMs() + durationMs(duration);
    // What is due already (the deliveries of the request before) goes at the present instant.
    this.runDue();
    await this.#settle();
    for (let next = this.nextDueMs(); next !== null && next <= end; next = this.nextDueMs()) {
      this.#moveTo(next);
      this.runDue();
      await this.#settle();
    }
    this.#moveTo(end);
    this.runDue();
    this.#moved();
    await this.#settle();
    return this.now();
  }

  /**
   * Moves time forward at once and fires the timers due by the end of the span, without waiting
   * for their effects: the HTTP advance (`POST /v1/test_helpers/clock/advance`), which must not
   * hold its answer for receivers. A webhook attempt it makes due is sent after, at the new time.
   */
  jump(duration: Duration): Date {
    this.#moveTo(this.nowMs() + durationMs(duration));
    this.runDue();
    this.#moved();
    return this.now();
  }

  /** Moves the time forward to `ms` (never back). */
  #moveTo(ms: number): void {
    const now = this.nowMs();
    if (ms > now) this.#offset += ms - now;
  }

  /** Schedules a timer. */
  schedule(timer: Timer): void {
    let kind = this.#kinds.indexOf(timer.kind);
    if (kind < 0) kind = this.#kinds.push(timer.kind) - 1;
    let i = this.#at.length;
    this.#at.push(timer.at);
    this.#order.push(this.#seq++);
    this.#kind.push(kind);
    this.#id.push(timer.id);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(i, parent)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** Drops every timer (reset and restore). */
  clearTimers(): void {
    this.#at = [];
    this.#order = [];
    this.#kind = [];
    this.#id = [];
  }

  /** When the earliest waiting timer falls due, or `null` without one. */
  nextDueMs(): number | null {
    return this.#at.length > 0 ? (this.#at[0] as number) : null;
  }

  /** How many timers are waiting. */
  get pendingTimers(): number {
    return this.#at.length;
  }

  /** Fires, in order, every timer due by now (timers scheduled meanwhile included). */
  runDue(): void {
    if (this.#firing) return;
    this.#firing = true;
    try {
      const now = this.nowMs();
      while (this.#at.length > 0 && (this.#at[0] as number) <= now) this.#fire(this.#pop());
    } finally {
      this.#firing = false;
    }
  }

  #before(a: number, b: number): boolean {
    const x = this.#at[a] as number;
    const y = this.#at[b] as number;
    return x < y || (x === y && (this.#order[a] as number) < (this.#order[b] as number));
  }

  #swap(a: number, b: number): void {
    const at = this.#at[a] as number;
    this.#at[a] = this.#at[b] as number;
    this.#at[b] = at;
    const order = this.#order[a] as number;
    this.#order[a] = this.#order[b] as number;
    this.#order[b] = order;
    const kind = this.#kind[a] as number;
    this.#kind[a] = this.#kind[b] as number;
    this.#kind[b] = kind;
    const id = this.#id[a] as string;
    this.#id[a] = this.#id[b] as string;
    this.#id[b] = id;
  }

  #pop(): Timer {
    const top: Timer = { at: this.#at[0] as number, kind: this.#kinds[this.#kind[0] as number] as string, id: this.#id[0] as string };
    const last = this.#at.length - 1;
    this.#swap(0, last);
    this.#at.pop();
    this.#order.pop();
    this.#kind.pop();
    this.#id.pop();
    let i = 0;
    const n = this.#at.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.#before(l, m)) m = l;
      if (r < n && this.#before(r, m)) m = r;
      if (m === i) break;
      this.#swap(i, m);
      i = m;
    }
    return top;
  }
}
