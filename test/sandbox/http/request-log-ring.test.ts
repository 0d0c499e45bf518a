/**
 * The request log keeps its latest entries as columns of a ring (sandbox/http/request-log.ts):
 * what it gives back must be what was recorded, oldest first, whatever the wrap-around.
 */
import { describe, expect, it } from 'vitest';
import { RequestLog, type RequestLogEntry } from '../../../src/sandbox/http/request-log.js';

function record(log: RequestLog, n: number): void {
  const ids = n % 3 === 0 ? [] : n % 3 === 1 ? [`obj_${n}`] : [`a_${n}`, `b_${n}`];
  log.record(`req_${n}`, n % 2 === 0 ? null : `tenant_${n}`, n % 2 === 0 ? 'GET' : 'POST', `/v1/things/${n}`, 200 + (n % 400), performance.now(), n % 5 === 0, n % 7 === 0 ? `fault_${n}` : null, ids);
}

function expected(n: number): Omit<RequestLogEntry, 'at' | 'latency_ms'> {
  return {
    request_id: `req_${n}`,
    tenant_id: n % 2 === 0 ? null : `tenant_${n}`,
    method: n % 2 === 0 ? 'GET' : 'POST',
    path: `/v1/things/${n}`,
    status: 200 + (n % 400),
    replayed: n % 5 === 0,
    fault: n % 7 === 0 ? `fault_${n}` : null,
    object_ids: n % 3 === 0 ? [] : n % 3 === 1 ? [`obj_${n}`] : [`a_${n}`, `b_${n}`],
  };
}

const withoutTimes = (e: RequestLogEntry) => {
  const { at, latency_ms, ...rest } = e;
  expect(typeof at).toBe('string');
  expect(latency_ms).toBeGreaterThanOrEqual(0);
  return rest;
};

describe('the request log as a ring of columns', () => {
  it('gives back the latest `capacity` entries, oldest first, across wrap-arounds', () => {
    const log = new RequestLog(7);
    for (let n = 0; n < 3; n++) record(log, n);
    expect(log.size).toBe(3);
    expect(log.recent().map(withoutTimes)).toEqual([0, 1, 2].map(expected));
    for (let n = 3; n < 40; n++) record(log, n);
    expect(log.size).toBe(7);
    expect(log.recent().map(withoutTimes)).toEqual([33, 34, 35, 36, 37, 38, 39].map(expected));
  });

  it('hands listeners the entry as recorded, in the feed key order', () => {
    const log = new RequestLog(2);
    const seen: RequestLogEntry[] = [];
    log.subscribe((e) => seen.push(e));
    record(log, 2);
    expect(Object.keys(seen[0] as RequestLogEntry)).toEqual(['at', 'request_id', 'tenant_id', 'method', 'path', 'status', 'latency_ms', 'replayed', 'fault', 'object_ids']);
    expect(withoutTimes(seen[0] as RequestLogEntry)).toEqual(expected(2));
    // What a reader gets back is the same entry, its time and latency included.
    expect(log.recent()).toEqual(seen);
  });

  it('gives each reader its own object_ids, and keeps nothing after clear', () => {
    const log = new RequestLog(4);
    record(log, 2);
    (log.recent()[0] as RequestLogEntry).object_ids.push('changed');
    expect((log.recent()[0] as RequestLogEntry).object_ids).toEqual(['a_2', 'b_2']);
    log.clear();
    expect(log.size).toBe(0);
    expect(log.recent()).toEqual([]);
    record(log, 5);
    expect(log.recent().map(withoutTimes)).toEqual([expected(5)]);
  });

  it('keeps nothing with a capacity of 0, and still tells listeners', () => {
    const log = new RequestLog(0);
    let told = 0;
    log.subscribe(() => told++);
    record(log, 1);
    expect(log.size).toBe(0);
    expect(log.recent()).toEqual([]);
    expect(told).toBe(1);
  });

  it('hands field listeners the same fields as the entry, and stops after unsubscribing', () => {
    const log = new RequestLog(3);
    const entries: RequestLogEntry[] = [];
    const fields: unknown[][] = [];
    log.subscribe((e) => entries.push(e));
    const off = log.subscribeFields((...args) => fields.push([...args.slice(0, 9), [...args[9]]]));
    expect(log.recording).toBe(true);
    for (let n = 0; n < 5; n++) record(log, n);
    expect(fields).toEqual(entries.map((e) => [e.at, e.request_id, e.tenant_id, e.method, e.path, e.status, e.latency_ms, e.replayed, e.fault, e.object_ids]));
    expect(off()).toBe(true);
    record(log, 9);
    expect(fields).toHaveLength(5);
    expect(entries).toHaveLength(6);
  });

  it('a field listener that throws fails no request and leaves the others told', () => {
    const log = new RequestLog(1);
    let told = 0;
    log.subscribeFields(() => {
      throw new Error('a closed stream');
    });
    log.subscribe(() => told++);
    expect(() => record(log, 1)).not.toThrow();
    expect(told).toBe(1);
  });

  it("an entry's time is the wall clock's, to the millisecond, within the second it re-reads it", () => {
    const log = new RequestLog(1);
    const before = Date.now();
    record(log, 1);
    const after = Date.now();
    const at = Date.parse((log.recent()[0] as RequestLogEntry).at);
    // Anchored on the wall clock at most a second ago, then the monotonic clock: no drift to read in a test.
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(after + 1);
  });
});
