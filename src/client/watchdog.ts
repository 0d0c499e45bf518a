/**
 * The per-attempt time limit of every call in flight, kept by one timer for all of them instead
 * of a timer per attempt (issue 34). On Node, `setTimeout` and `clearTimeout` of an attempt that
 * ends before its limit cost more than the rest of an in-process call (the timer list of a
 * duration is rebuilt each time it empties: about 4 us of a 25 us call on a busy machine); here an
 * attempt costs a `Set` entry, and the one timer is armed again only when an earlier limit comes
 * in or the armed one passes.
 *
 * The timer holds a Node process open while an attempt waits, as a timer per attempt did, and
 * no longer: with nothing waiting it is unreferenced (Node, Bun) or cleared (runtimes whose timers
 * have no `unref`: browsers, Deno, Workers). Time is `Date.now()`, which fake timers move together
 * with `setTimeout`; when the timer fires, at least the time it was armed for is taken to have
 * passed, so that timers faked without the clock (Jest's legacy timers) still end attempts.
 * @module
 */

/** One attempt being watched: it ends by `end` (ms since the epoch), else `expire` runs once. */
export interface Watch {
  readonly end: number;
  readonly expire: () => void;
}

type Timer = ReturnType<typeof setTimeout> & { ref?: () => unknown; unref?: () => unknown };

const watches = new Set<Watch>();
let timer: Timer | undefined;
// What the armed timer is for: the earliest end when it was armed; and when it fires (sooner,
// for an end past the largest delay a timer takes).
let armedFor = Infinity;
let firesAt = Infinity;
// The setTimeout that armed it: a test that fakes timers (or stops faking them) replaces the
// global, and a timer of the other clock would never fire.
let armedWith: typeof setTimeout | undefined;

function arm(end: number, now: number): void {
  if (timer !== undefined) clearTimeout(timer);
  armedFor = end;
  armedWith = setTimeout;
  // 2^31 - 1: the largest delay a timer accepts.
  const delay = Math.min(Math.max(end - now, 0), 2_147_483_647);
  firesAt = now + delay;
  timer = setTimeout(fire, delay) as Timer;
}

function fire(): void {
  const now = Math.max(Date.now(), firesAt);
  timer = undefined;
  armedFor = firesAt = Infinity;
  let next = Infinity;
  for (const watch of watches) {
    if (watch.end <= now) {
      watches.delete(watch);
      watch.expire();
    } else if (watch.end < next) {
      next = watch.end;
    }
  }
  if (next !== Infinity) arm(next, now);
}

/** Starts watching an attempt: `expire` runs once `ms` have passed, unless {@link unwatch} came first. */
export function watch(ms: number, expire: () => void): Watch {
  const now = Date.now();
  const entry: Watch = { end: now + ms, expire };
  watches.add(entry);
  if (entry.end < armedFor || armedWith !== setTimeout) arm(entry.end, now);
  else if (watches.size === 1) timer?.ref?.();
  return entry;
}

/** The attempt ended: it is no longer watched. */
export function unwatch(entry: Watch): void {
  if (!watches.delete(entry) || watches.size > 0 || timer === undefined) return;
  // Nothing waits: the armed timer no longer holds the process.
  if (typeof timer.unref === 'function') {
    timer.unref();
  } else {
    clearTimeout(timer);
    timer = undefined;
    armedFor = firesAt = Infinity;
  }
}
