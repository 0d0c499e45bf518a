/**
 * The dispatcher of webhook attempts (issue 21): caps per endpoint, per tenant and in all, and
 * free slots in turn across tenants and endpoints. Attempts are controlled promises: the test
 * decides when each ends, and asserts which started (no timing).
 */
import { describe, expect, it } from 'vitest';
import { Dispatcher, type DispatchJob, type StartVerdict } from '../../../../src/sandbox/plugins/webhooks/dispatcher.js';

interface Job extends DispatchJob {
  name: string;
}

/** A dispatcher whose attempts end when the test says so. */
function harness(limits: { perEndpoint: number; perTenant: number; total: number }, check: (job: Job) => StartVerdict = () => 'go') {
  const started: string[] = [];
  const running = new Map<string, () => void>();
  const held: string[] = [];
  const dispatcher = new Dispatcher<Job>(limits, {
    run: (job) =>
      new Promise<void>((resolve) => {
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
    // A: 3 (its cap, over two endpoints of 2); B: 2 (its endpoint's cap); in all 5.
    expect(h.dispatcher.running).toBe(5);
    const count = (prefix: string): number => [...h.running.keys()].filter((n) => n.startsWith(prefix)).length;
    expect(count('a1') + count('a2')).toBeLessThanOrEqual(3);
    for (const e of ['a1', 'a2', 'b1', 'c1']) expect(count(e)).toBeLessThanOrEqual(2);
    // Ending every attempt one by one keeps the caps at each step, and runs all 40.
    let steps = 0;
    while (h.running.size > 0) {
      await h.end([...h.running.keys()][0] as string);
      expect(h.dispatcher.running).toBeLessThanOrEqual(5);
      expect(count('a1') + count('a2')).toBeLessThanOrEqual(3);
      for (const e of ['a1', 'a2', 'b1', 'c1']) expect(count(e)).toBeLessThanOrEqual(2);
      steps++;
    }
    expect(steps).toBe(40);
    expect(h.started).toHaveLength(40);
    expect(h.dispatcher.queued).toBe(0);
  });

  it('gives a free slot in turn: a tenant with a backlog of 1,000 does not starve one with a single attempt', async () => {
    const h = harness({ perEndpoint: 4, perTenant: 8, total: 4 });
    for (let i = 0; i < 1000; i++) h.push('A', `a${i % 50}`, `A-${i}`);
    expect(h.started).toHaveLength(4);
    h.push('B', 'b', 'B-0');
    expect(h.started).not.toContain('B-0');
    // B joins the turn behind A (which had it): of the next two free slots, one is B's, not
    // another of A's 996 waiting attempts.
    await h.end('A-0');
    await h.end('A-1');
    expect(h.started.slice(4)).toEqual(['A-4', 'B-0']);
    expect(h.dispatcher.queued).toBe(995);
    // Then A has every slot again (B has nothing more).
    await h.end('A-2');
    await h.end('B-0');
    expect(h.started.slice(6)).toEqual(['A-5', 'A-6']);
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
