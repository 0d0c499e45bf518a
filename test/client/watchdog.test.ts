/**
 * The per-attempt time limit (src/client/watchdog.ts): one timer for every attempt in flight
 * instead of one per attempt (issue 34). Each attempt still ends at its own limit, an attempt
 * that answers is never expired, a waiting attempt holds the process as its own timer did and an
 * idle client holds nothing, and timers faked with or without the clock still end attempts.
 * Each test loads a fresh copy of the module (its state is the module's).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

import type * as WatchdogModule from '../../src/client/watchdog.js';

type Watchdog = typeof WatchdogModule;

async function fresh(): Promise<Watchdog> {
  vi.resetModules();
  return import('../../src/client/watchdog.js');
}

const timeouts = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

afterEach(() => {
  // Spies first: a spy taken on a faked setTimeout restores the fake.
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('one timer for every attempt', () => {
  it('ends each attempt at its own limit, and never one that ended first', async () => {
    vi.useFakeTimers();
    const { watch, unwatch } = await fresh();
    const expired: string[] = [];
    watch(300, () => expired.push('long'));
    const answered = watch(100, () => expired.push('answered'));
    watch(200, () => expired.push('short'));
    unwatch(answered);
    vi.advanceTimersByTime(150);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(60);
    expect(expired).toEqual(['short']);
    // A shorter limit that comes in later is kept too.
    watch(20, () => expired.push('later, shorter'));
    vi.advanceTimersByTime(25);
    expect(expired).toEqual(['short', 'later, shorter']);
    vi.advanceTimersByTime(100);
    expect(expired).toEqual(['short', 'later, shorter', 'long']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('arms one timer for many attempts with the same limit, one after the other', async () => {
    vi.useFakeTimers();
    const { watch, unwatch } = await fresh();
    const armed = vi.spyOn(globalThis, 'setTimeout');
    for (let i = 0; i < 100; i++) {
      unwatch(watch(30_000, () => undefined));
      vi.advanceTimersByTime(1);
    }
    expect(armed).toHaveBeenCalledTimes(1);
  });

  it('ends attempts when timers are faked without the clock (legacy fake timers)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // The clock stands still, whatever the machine's load between the two calls.
    vi.spyOn(Date, 'now').mockReturnValue(1_000_000);
    const { watch } = await fresh();
    const expired: number[] = [];
    watch(30_000, () => expired.push(1));
    watch(60_000, () => expired.push(2));
    vi.advanceTimersByTime(30_000);
    expect(expired).toEqual([1]);
    vi.advanceTimersByTime(30_000);
    expect(expired).toEqual([1, 2]);
  });

  it('a limit past the largest delay a timer takes ends no sooner than the limit', async () => {
    vi.useFakeTimers();
    const { watch } = await fresh();
    const expired: string[] = [];
    watch(2 ** 31 + 60_000, () => expired.push('long'));
    vi.advanceTimersByTime(2 ** 31);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(60_000);
    expect(expired).toEqual(['long']);
  });

  it('re-arms with the real timers a timer left by faked ones', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2020-01-01T00:00:00Z'));
    const { watch, unwatch } = await fresh();
    unwatch(watch(30_000, () => undefined)); // a faked timer lingers, armed for 2020
    vi.useRealTimers();
    const outcome = await new Promise<string>((resolve) => {
      watch(20, () => resolve('expired'));
      setTimeout(resolve, 2_000, 'never expired').unref();
    });
    expect(outcome).toBe('expired');
  });
});

describe('the process', () => {
  it('is held while an attempt waits, and not once none does', async () => {
    const { watch, unwatch } = await fresh();
    const before = timeouts();
    const first = watch(30_000, () => undefined);
    const second = watch(30_000, () => undefined);
    expect(timeouts()).toBe(before + 1);
    unwatch(first);
    expect(timeouts()).toBe(before + 1);
    unwatch(second);
    expect(timeouts()).toBe(before);
    // The timer lingers unreferenced and is referenced again for the next attempt.
    const third = watch(30_000, () => undefined);
    expect(timeouts()).toBe(before + 1);
    unwatch(third);
    expect(timeouts()).toBe(before);
  });

  it('where timers cannot be unreferenced (browsers, Deno), the idle timer is cleared', async () => {
    const { watch, unwatch } = await fresh();
    const [realSet, realClear] = [globalThis.setTimeout, globalThis.clearTimeout];
    // A runtime whose timers are numbers, as in a browser.
    const ids = new Map<number, ReturnType<typeof setTimeout>>();
    let next = 1;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms: number) => {
      ids.set(next, realSet(fn, ms));
      return next++;
    }) as unknown as typeof setTimeout);
    vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((id: number) => {
      realClear(ids.get(id));
      ids.delete(id);
    }) as unknown as typeof clearTimeout);
    const before = timeouts();
    const entry = watch(30_000, () => undefined);
    expect([...ids.keys()]).toEqual([1]);
    expect(timeouts()).toBe(before + 1);
    unwatch(entry);
    expect(ids.size).toBe(0);
    expect(timeouts()).toBe(before);
  });
});
