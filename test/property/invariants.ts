/**
 * The checks made after every step of a property run, against the previous observation (the
 * reference model's state) and the events recorded since. Each throws an assertion error that
 * names the resource and what was seen.
 */
import Big from 'big.js';
import { expect } from 'vitest';
import { CONVERSION_MACHINE, KYC_MACHINE, type Machine, QUOTE_MACHINE, type SandboxEvent, TRANSACTION_MACHINE } from '../../src/sandbox/index.js';
import { type SeenEvent, explains } from './machine-paths.js';
import type { Observation, World } from './world.js';
import { snapshotRecords } from '../support/records.js';

/** Statuses that released the conversion's limit reservation (release_limit in their row). */
const RELEASED = new Set(['canceled', 'expired', 'failed', 'abandoned']);

/** Offramp rows never go through the onramp Pix payment, and the other way round. */
const ONRAMP_ONLY = new Set(['pix_paid_exact', 'liquidate_onramp']);
const OFFRAMP_ONLY = new Set(['deposit_confirmed_exact', 'deposit_wrong_address', 'liquidate']);

function seen(event: SandboxEvent): SeenEvent {
  const object = event.data.object as Record<string, unknown>;
  const status = object['kyc_status'] ?? object['status'];
  return { type: event.type, status: typeof status === 'string' ? status : undefined };
}

/** No illegal state and exactly the events of the rows taken: every change is a path of rows. */
export function checkTransitions(prev: Observation, cur: Observation, events: readonly SandboxEvent[]): void {
  const byId = new Map<string, SandboxEvent[]>();
  for (const e of events) {
    const id = String((e.data.object as Record<string, unknown>)['id']);
    byId.set(id, [...(byId.get(id) ?? []), e]);
  }
  const take = (id: string): SeenEvent[] => {
    const list = byId.get(id) ?? [];
    byId.delete(id);
    return list.map(seen);
  };
  const check = (machine: Machine<string, string, string>, kind: string, id: string, from: string | null, to: string, allow?: (trigger: string) => boolean): void => {
    const evs = take(id);
    const ok = explains(machine, from, to, evs, allow ? (row) => allow(row.trigger) : undefined);
    expect(ok, `${kind} ${id}: ${from ?? 'new'} -> ${to} with events [${evs.map((e) => `${e.type}(${e.status})`).join(', ')}] is no path of the ${machine.name} machine`).toBe(true);
  };

  for (const [id, c] of cur.conversions) {
    const skip = c.direction === 'onramp' ? OFFRAMP_ONLY : ONRAMP_ONLY;
    check(CONVERSION_MACHINE, 'conversion', id, prev.conversions.get(id)?.status ?? null, c.status, (t) => !skip.has(t));
  }
  for (const [id, t] of cur.transactions) check(TRANSACTION_MACHINE, 'transaction', id, prev.transactions.get(id)?.status ?? null, t.status);
  // A user is created `not_started` and starts its KYC review at once (user.kyc_pending).
  for (const [id, u] of cur.users) check(KYC_MACHINE, 'user', id, prev.users.get(id)?.kyc ?? 'not_started', u.kyc);
  for (const [id, q] of cur.quotes) check(QUOTE_MACHINE, 'quote', id, prev.quotes.get(id)?.status ?? null, q.status);

  for (const kind of ['conversions', 'transactions', 'users', 'quotes'] as const) {
    for (const id of prev[kind].keys()) expect(cur[kind].has(id), `${kind} ${id} vanished`).toBe(true);
  }
  const stray = [...byId.entries()].map(([id, list]) => `${list.map((e) => e.type).join('+')} for ${id}`);
  expect(stray, 'events for no visible change').toEqual([]);
}

/** Balances never negative. */
export function checkBalances(cur: Observation): void {
  for (const [id, w] of cur.balances) {
    expect(new Big(w.balance).gte(0), `balance of ${id}: ${w.balance}`).toBe(true);
    expect(new Big(w.available).gte(0), `available balance of ${id}: ${w.available}`).toBe(true);
  }
}

function sum(values: Iterable<string>): string {
  let total = new Big(0);
  for (const v of values) total = total.plus(v);
  return total.toFixed(2);
}

/**
 * Limit reservations, read from `sandbox.snapshot()` (its records, opaque to partners), whose conversion records carry
 * the engine's internal `reservedBrl`: a released conversion holds nothing, and the usage
 * counters at every level are exactly the sum of what the conversions hold.
 */
export function checkReservations(world: World): { held: Map<string, string> } {
  const snap = snapshotRecords(world.sandbox.snapshot());
  const tenant = snap.tenants.find((t) => t.id === world.sandbox.tenantId);
  if (!tenant) throw new Error('default tenant missing from the snapshot');
  const held = new Map<string, string>();
  for (const c of tenant.conversions) {
    if (RELEASED.has(c.status)) expect(c.reservedBrl, `conversion ${c.id} is ${c.status} but still reserves ${c.reservedBrl}`).toMatch(/^0(\.0+)?$/);
    held.set(c.id, c.reservedBrl);
  }
  const usage = new Map(tenant.usage);
  const total = sum(held.values());
  const bucket = (re: RegExp, map: Map<string, string>): string => sum([...map.entries()].filter(([k]) => re.test(k)).map(([, v]) => v));
  expect(bucket(/^d/, usage), 'partner daily usage = sum of reservations').toBe(total);
  expect(bucket(/^m/, usage), 'partner monthly usage = sum of reservations').toBe(total);
  // Each tenant is its own platform by default (issue 17): its platform counters are its `p` buckets.
  expect(bucket(/^pd/, usage), 'platform daily usage = sum of reservations').toBe(total);
  expect(bucket(/^pm/, usage), 'platform monthly usage = sum of reservations').toBe(total);
  expect(snap.platformUsage, 'nothing in the shared platform counters').toEqual([]);
  for (const u of tenant.users) {
    const mine = sum(tenant.conversions.filter((c) => c.userId === u.id).map((c) => c.reservedBrl));
    expect(bucket(new RegExp(`^u${u.id}d`), usage), `user ${u.id} daily usage`).toBe(mine);
    expect(bucket(new RegExp(`^u${u.id}m`), usage), `user ${u.id} monthly usage`).toBe(mine);
  }
  return { held };
}

/** Every id first seen in this step is unknown to the other tenant. */
export async function checkIsolation(world: World, prev: Observation, cur: Observation): Promise<void> {
  const { other } = world;
  const probes: Array<[string, string, () => Promise<unknown>]> = [];
  for (const id of cur.users.keys()) if (!prev.users.has(id)) probes.push([id, 'user_not_found', () => other.users.retrieve(id)]);
  for (const id of cur.quotes.keys()) if (!prev.quotes.has(id)) probes.push([id, 'quote_not_found', () => other.quotes.retrieve(id)]);
  for (const id of cur.conversions.keys()) {
    if (!prev.conversions.has(id)) {
      probes.push([id, 'conversion_not_found', () => other.conversions.retrieve(id)]);
      probes.push([id, 'conversion_not_found', () => other.conversions.cancel(id)]);
    }
  }
  for (const id of cur.transactions.keys()) if (!prev.transactions.has(id)) probes.push([id, 'transaction_not_found', () => other.transactions.retrieve(id)]);
  for (const [id, code, probe] of probes) {
    const error = await probe().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, `the other tenant sees ${id}`).toMatchObject({ status: 404, code });
  }
}

/** The other tenant's lists are empty. */
export async function checkOtherTenantEmpty(world: World): Promise<void> {
  const { other } = world;
  expect((await other.users.list()).data).toEqual([]);
  expect((await other.quotes.list()).data).toEqual([]);
  expect((await other.conversions.list()).data).toEqual([]);
  expect((await other.transactions.list()).data).toEqual([]);
  expect(world.sandbox.events(world.otherTenantId), 'events of the other tenant').toEqual([]);
}
