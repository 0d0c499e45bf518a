/**
 * The dispatcher of webhook attempts (issue 21): caps per endpoint, per tenant and in all, and
 * free slots in turn across tenants and endpoints. Attempts are controlled promises: the test
 * decides when each ends, and asserts which started (no timing).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_CONCURRENCY, Dispatcher, type DispatchJob, type StartVerdict, fairShare, idleReserve } from '../../../../src/sandbox/plugins/webhooks/dispatcher.js';

interface Job extends DispatchJob {
  name: string;
}

/** A dispatcher whose attempts end when the test says so. */
function harness(
  limits: { perEndpoint: number; perTenant: number; total: number },
  check: (job: Job) => StartVerdict = () => 'go',
  /** Called as each attempt starts (the dispatcher has counted it). */
  observe?: (job: Job, dispatcher: Dispatcher<Job>) => void,
) {
  const started: string[] = [];
  const running = new Map<string, () => void>();
  const held: string[] = [];
  const dispatcher: Dispatcher<Job> = new Dispatcher<Job>(limits, {
    run: (job) =>
      new Promise<void>((resolve) => {
        observe?.(job, dispatcher);
        started.push(job.name);
        running.set(job.name, resolve);
      }),
    check,
    held: (job) => void held.push(job.name),
  });
  const push = (tenantId: string, endpointId: string, name: string): void => dispatcher.push({ tenantId, endpointId, name });
  /** Ends an attempt and lets the dispatcher start the next ones. */
  const end = async (name: string): Promise<void> => {
    const resolve = running.get(name);
    if (!resolve) throw new Error(`${name} is not running`);
    running.delete(name);
    resolve();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { dispatcher, started, running, held, push, end };
}

describe('the dispatcher of webhook attempts', () => {
  it('never runs more than the cap per endpoint, per tenant and in all', async () => {
    const h = harness({ perEndpoint: 2, perTenant: 3, total: 5 });
    for (let i = 0; i < 10; i++) {
      h.push('A', 'a1', `a1-${i}`);
      h.push('A', 'a2', `a2-${i}`);
      h.push('B', 'b1', `b1-${i}`);
      h.push('C', 'c1', `c1-${i}`);
    }
    // A: 2 (its share of 5 while B arrives), B: 1, C: 1; the fifth slot is kept for a tenant with nothing in flight.
    expect(h.dispatcher.running).toBe(4);
    expect(h.dispatcher.share).toBe(1);
    h.push('D', 'd1', 'd1-0');
    expect(h.started.at(-1)).toBe('d1-0');
    expect(h.dispatcher.running).toBe(5);
    const count = (prefix: string): number => [...h.running.keys()].filter((n) => n.startsWith(prefix)).length;
    expect(count('a1') + count('a2')).toBeLessThanOrEqual(3);
    for (const e of ['a1', 'a2', 'b1', 'c1']) expect(count(e)).toBeLessThanOrEqual(2);
    // Ending every attempt one by one keeps the caps at each step, and runs all 41.
    let steps = 0;
    while (h.running.size > 0) {
      await h.end([...h.running.keys()][0] as string);
      expect(h.dispatcher.running).toBeLessThanOrEqual(5);
      expect(count('a1') + count('a2')).toBeLessThanOrEqual(3);
      for (const e of ['a1', 'a2', 'b1', 'c1']) expect(count(e)).toBeLessThanOrEqual(2);
      steps++;
    }
    expect(steps).toBe(41);
    expect(h.started).toHaveLength(41);
    expect(h.dispatcher.queued).toBe(0);
    expect(h.dispatcher.busy).toBe(0);
  });

  it('gives a free slot in turn: a tenant with a backlog of 1,000 does not starve one with a single attempt', async () => {
    const h = harness({ perEndpoint: 4, perTenant: 8, total: 6 });
    for (let i = 0; i < 1000; i++) h.push('A', `a${i % 50}`, `A-${i}`);
    // A alone holds its share, floor(6 / 2): the rest is kept for a tenant with nothing in flight.
    expect(h.started).toHaveLength(3);
    h.push('B', 'b', 'B-0');
    h.push('B', 'b', 'B-1');
    h.push('B', 'b', 'B-2');
    // B starts at once, up to its own share, floor(6 / 3).
    expect(h.started.slice(3)).toEqual(['B-0', 'B-1']);
    // With both at their share, a slot that frees stays free (one share kept for a newcomer):
    // A-0 ends and nothing starts; B-0 ends and B, below its share again, takes it.
    await h.end('A-0');
    expect(h.started.slice(5)).toEqual([]);
    await h.end('B-0');
    expect(h.started.slice(5)).toEqual(['B-2']);
    expect(h.dispatcher.queued).toBe(997);
    // B done: A has its share back, floor(6 / 2).
    await h.end('B-1');
    await h.end('B-2');
    expect(h.started.slice(6)).toEqual(['A-3']);
    expect(h.dispatcher.runningOf('A')).toBe(3);
  });

  it('takes turns across the endpoints of a tenant, oldest attempt first in each', async () => {
    const h = harness({ perEndpoint: 1, perTenant: 1, total: 1 });
    for (let i = 0; i < 3; i++) for (const e of ['x', 'y', 'z']) h.push('A', e, `${e}${i}`);
    const order: string[] = [];
    while (h.running.size > 0) {
      const name = [...h.running.keys()][0] as string;
      order.push(name);
      await h.end(name);
    }
    expect(order).toEqual(['x0', 'y0', 'z0', 'x1', 'y1', 'z1', 'x2', 'y2', 'z2']);
  });

  it('lets an endpoint wait behind its oldest attempt, and takes held ones out of the queue', async () => {
    const verdicts = new Map<string, StartVerdict>([['e1', 'wait']]);
    const h = harness({ perEndpoint: 4, perTenant: 8, total: 8 }, (job) => verdicts.get(job.name) ?? 'go');
    h.push('A', 'e', 'e0');
    h.push('A', 'e', 'e1');
    h.push('A', 'e', 'e2');
    h.push('A', 'f', 'f0');
    // e1 waits, and e2 behind it; the other endpoint goes on.
    expect(h.started).toEqual(['e0', 'f0']);
    verdicts.set('e1', 'hold');
    await h.end('e0');
    expect(h.held).toEqual(['e1']);
    expect(h.started).toEqual(['e0', 'f0', 'e2']);
    expect(h.dispatcher.queued).toBe(0);
  });

  it('clear() drops what waits and leaves what runs', () => {
    const h = harness({ perEndpoint: 1, perTenant: 1, total: 1 });
    for (let i = 0; i < 5; i++) h.push('A', 'e', `e${i}`);
    expect(h.dispatcher.clear().map((j) => j.name)).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(h.dispatcher.running).toBe(1);
    expect(h.dispatcher.queued).toBe(0);
  });
});

describe('the reserve for tenants with nothing in flight (issue 35)', () => {
  const TENANTS = 10;
  const ENDPOINTS = 8;
  const of = (name: string): string => name.split(':')[0] as string;

  /** Ten tenants, eight endpoints each, ten attempts an endpoint: the ten-tenant attack, none of them ending by itself. */
  function attack() {
    const h = harness({ ...DEFAULT_DELIVERY_CONCURRENCY });
    for (let t = 0; t < TENANTS; t++) for (let e = 0; e < ENDPOINTS; e++) for (let i = 0; i < 10; i++) h.push(`T${t}`, `T${t}/e${e}`, `T${t}:e${e}:${i}`);
    return h;
  }
  const held = (h: ReturnType<typeof attack>, tenant: string): number => [...h.running.keys()].filter((n) => of(n) === tenant).length;

  it('a new tenant starts an attempt at once whatever the attackers hold, and gets its slot back as each ends', async () => {
    const h = attack();
    const reserve = idleReserve(256);
    expect(reserve).toBe(4);
    // Set up one after another: the first seven filled their 32 while the share was above it, the
    // eighth took all but the idle reserve, the last two one slot each (they had nothing in flight).
    // (Before the reserve, the eighth and ninth took all 256 and a new tenant waited for a time-out.)
    expect(h.dispatcher.running).toBe(256 - reserve + 2);
    expect([held(h, 'T7'), held(h, 'T8'), held(h, 'T9')]).toEqual([32 - reserve, 1, 1]);
    // A new tenant: its first attempt starts at once.
    for (let i = 0; i < 3; i++) h.push('N', 'N/e', `N:${i}`);
    expect(h.started.at(-1)).toBe('N:0');
    expect(h.running.has('N:1')).toBe(false);
    // An attacker's time-out frees a slot: no busy tenant takes it (the reserve refills).
    const before = h.started.length;
    await h.end([...h.running.keys()].find((n) => of(n) === 'T0') as string);
    expect(h.started.length).toBe(before);
    expect(256 - h.dispatcher.running).toBe(2);
    // N's receiver answers: with nothing in flight again, N takes the next slot, ahead of everyone.
    await h.end('N:0');
    expect(h.started.at(-1)).toBe('N:1');
    await h.end('N:1');
    expect(h.started.at(-1)).toBe('N:2');
    expect(h.started.length).toBe(before + 2);
  });

  it('once the attackers hold their share, a new tenant gets its share but the idle reserve at once', async () => {
    const h = attack();
    // Every attempt of the first wave times out once: each tenant is then refilled to its share only.
    for (const name of [...h.running.keys()]) await h.end(name);
    expect(h.dispatcher.busy).toBe(TENANTS);
    const share = fairShare(256, TENANTS);
    expect(share).toBe(23);
    for (let t = 0; t < TENANTS; t++) expect(held(h, `T${t}`)).toBeGreaterThan(0);
    // A share stays free for a tenant with nothing in flight.
    expect(256 - h.dispatcher.running).toBe(share);
    const before = h.started.length;
    for (let i = 0; i < 40; i++) h.push('N', `N/e${i % 8}`, `N:${i}`);
    const startedN = h.started.slice(before);
    // N's first attempt at once; then, below its share of 11 busy tenants (floor(256 / 12) = 21),
    // the free share but the idle reserve (an attacker below its share may take one too).
    expect(startedN[0]).toBe('N:0');
    const others = startedN.filter((n) => of(n) !== 'N').length;
    expect(others).toBeLessThanOrEqual(1);
    expect(startedN.filter((n) => of(n) === 'N')).toHaveLength(share - idleReserve(256) - others);
    expect(256 - h.dispatcher.running).toBe(idleReserve(256));
  });

  it('keeps the caps and the reserve rule at every step of random pushes and ends', async () => {
    const limits = { perEndpoint: 3, perTenant: 6, total: 12 };
    const step = fc.oneof(
      { arbitrary: fc.record({ push: fc.integer({ min: 0, max: 5 }), endpoint: fc.integer({ min: 0, max: 2 }) }), weight: 3 },
      { arbitrary: fc.record({ end: fc.nat() }), weight: 2 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 20, maxLength: 150 }), async (steps) => {
        const violations: string[] = [];
        let n = 0;
        const h = harness(limits, () => 'go', (job, d) => {
          // What held before this attempt started.
          const mine = d.runningOf(job.tenantId) - 1;
          const busyBefore = d.busy - (mine === 0 ? 1 : 0);
          const share = fairShare(limits.total, busyBefore);
          const freeBefore = limits.total - (d.running - 1);
          if (mine > 0 && mine >= share && freeBefore - 1 < share) violations.push(`${job.name}: ${mine} held, share ${share}, ${freeBefore} free`);
          // Below its share, a busy tenant leaves the idle reserve free.
          if (mine > 0 && mine < share && freeBefore - 1 < Math.min(share, idleReserve(limits.total))) violations.push(`${job.name}: took the idle reserve (${freeBefore} free)`);
          if (d.running > limits.total || d.runningOf(job.tenantId) > limits.perTenant) violations.push(`${job.name}: over a cap`);
        });
        const pushed = new Map<string, number>();
        const startedOf = (t: string): number => h.started.filter((x) => of(x) === t).length;
        for (const s of steps) {
          if ('push' in s) {
            const t = `T${s.push}`;
            pushed.set(t, (pushed.get(t) ?? 0) + 1);
            h.push(t, `${t}/e${s.endpoint}`, `${t}:${n++}`);
          } else if (h.running.size > 0) await h.end([...h.running.keys()][s.end % h.running.size] as string);
          // A tenant with nothing in flight and an attempt waiting never leaves a slot unused.
          for (const [t, count] of pushed) {
            if (count > startedOf(t) && h.dispatcher.runningOf(t) === 0 && h.dispatcher.running < limits.total) violations.push(`${t} waits with nothing in flight beside a free slot`);
          }
        }
        expect(violations).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
