// Memory (issue 28): what the in-memory sandbox keeps per lifecycle, and how it grows.
//
// 1. Per lifecycle, by kind. N onramp lifecycles (default 50,000) spread over T tenants (default
//    20), the loop: user, KYC, quote, accept, Pix paid (with settle), retrieve, an
//    idempotent replay of the accept, a list. Everything happens within the idempotency window
//    (24 h), so every idempotency record is still held. The live heap after a full GC, divided by
//    N, is the figure (target <= 6 kB); then each kind of record is dropped in turn, in the order
//    of the table, and the heap it frees is its share (a string two kinds share counts for the
//    last one holding it).
// 2. Deliveries. The same loop in one tenant with one webhook endpoint subscribed to every event
//    (an in-process receiver answering 200), against the same loop without it: the difference is
//    what delivery records, their attempts and the delivered log cost per lifecycle.
// 3. Growth. One tenant, lifecycles up to 1,000, 10,000 and 50,000 conversions: heap per
//    conversion at each size, and GET /v1/conversions/{id} and first list pages
//    (GET /v1/conversions?limit=50, ?user_id=...) through `sandbox.fetch`, each in interleaved
//    rounds beside the same request to a tenant of 1,000 conversions.
//
// Run with --expose-gc (npm run bench does): node --expose-gc --import tsx bench/memory.ts
//   [--lifecycles N] [--tenants T] [--growth 1000,10000,50000] [--deliveries N]
// The sandbox comes from src/ (its internals are read to drop each kind), not from dist/.
import { PixUsdt } from '../src/index.js';
import { createSandbox } from '../src/sandbox/index.js';
import { type SandboxInternals, internalsOf } from '../src/sandbox/sandbox.js';
import type { Sandbox } from '../src/sandbox/types.js';
import { MemoryEventLog, MemoryIdempotency } from '../src/sandbox/core/logs.js';
import type { TenantState } from '../src/sandbox/core/state.js';
import { type Figure, compare, table } from './measure.js';
import { WALLET, cpf } from '../test/support/fixtures.js';

const gc = (globalThis as { gc?: () => void }).gc;

function heap(): number {
  if (gc) for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

const BIG = { daily: '1000000000000', monthly: '1000000000000' };

function loadSandbox(): Sandbox {
  // Real time, as a served sandbox; no quote rate limit and limits out of the way (a load test).
  return createSandbox({ quoteRateLimit: 0, limits: { platform: BIG, partner: BIG, user: BIG } });
}

function internals(sandbox: Sandbox): SandboxInternals {
  const parts = internalsOf(sandbox);
  if (!parts) throw new Error('not a sandbox of src/sandbox');
  return parts;
}

/** The onramp loop, once; `n` makes the CPF and external id unique in the sandbox. */
async function lifecycle(client: PixUsdt, n: number): Promise<string> {
  const user = await client.users.create({ external_id: `bench-${n}`, name: 'Bench User', document_type: 'cpf', document_number: cpf(n) });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const quote = await client.quotes.create({
    user_id: user.id,
    source_currency: 'BRL',
    target_currency: 'USDT',
    source_amount: '100.00',
    destination_wallet_address: WALLET,
    destination_wallet_network: 'polygon',
  });
  const key = `bench-accept-${n}`;
  const conversion = await client.quotes.accept(quote.id, {}, { idempotencyKey: key });
  await client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id, { settle: true });
  const done = await client.conversions.retrieve(conversion.id);
  if (done.status !== 'completed') throw new Error(`lifecycle ended ${done.status}`);
  const replay = await client.quotes.accept(quote.id, {}, { idempotencyKey: key });
  if (replay.id !== conversion.id) throw new Error('the replay answered another conversion');
  await client.conversions.list({ user_id: user.id, limit: 10 });
  return conversion.id;
}

interface World {
  sandbox: Sandbox;
  clients: PixUsdt[];
  tenants: TenantState[];
}

function world(tenantCount: number): World {
  const sandbox = loadSandbox();
  const { platform } = internals(sandbox);
  const keys = [{ apiKey: sandbox.apiKey, tenantId: sandbox.tenantId }];
  for (let i = 1; i < tenantCount; i++) keys.push(sandbox.createTenant());
  return {
    sandbox,
    clients: keys.map((k) => new PixUsdt({ apiKey: k.apiKey, fetch: sandbox.fetch, maxRetries: 0 })),
    tenants: keys.map((k) => platform.tenants.get(k.tenantId) as TenantState),
  };
}

let serial = 0;

async function runLifecycles(w: World, count: number, every?: () => Promise<void>): Promise<string[]> {
  const ids: string[] = [];
  const step = Math.max(1, Math.floor(count / 10));
  for (let i = 0; i < count; i++) {
    ids.push(await lifecycle(w.clients[i % w.clients.length] as PixUsdt, serial++));
    if (every && i % 50 === 49) await every();
    if (i % step === step - 1) process.stderr.write(`  ${(i + 1).toLocaleString('en')} / ${count.toLocaleString('en')}\r`);
  }
  if (every) await every();
  process.stderr.write('\n');
  return ids;
}

/** A kind of retained data, how many of it there are, and how to drop it (for its share of the heap). */
interface Kind {
  name: string;
  count(w: World, parts: SandboxInternals): number;
  drop(w: World, parts: SandboxInternals): void;
}

const sum = (w: World, f: (t: TenantState) => number): number => w.tenants.reduce((n, t) => n + f(t), 0);

const KINDS: Kind[] = [
  // These two record only once `sandbox.inspector` was read (issue 22): none here unless it was.
  { name: 'request log (the sandbox app\'s, bounded)', count: (_w, p) => p.app.requests.size, drop: (_w, p) => p.app.requests.clear() },
  { name: 'inspector: conversion moves (bounded)', count: (_w, p) => p.inspection?.historySize ?? 0, drop: (_w, p) => p.inspection?.forget() },
  {
    name: 'idempotency records (24 h)',
    count: (w) => sum(w, (t) => (t.idempotency as MemoryIdempotency).size),
    drop: (w) => {
      for (const t of w.tenants) t.idempotency = new MemoryIdempotency();
    },
  },
  {
    name: 'event log (per tenant, by count)',
    count: (w) => sum(w, (t) => (t.events as MemoryEventLog).length),
    drop: (w) => {
      for (const t of w.tenants) t.events = new MemoryEventLog(1);
    },
  },
  { name: 'timers waiting', count: (w) => sum(w, (t) => t.clock.pendingTimers), drop: (w) => w.tenants.forEach((t) => t.clock.clearTimers()) },
  { name: 'limit usage counters', count: (w) => sum(w, (t) => t.usage.size), drop: (w) => w.tenants.forEach((t) => t.usage.clear()) },
  { name: 'transactions', count: (w) => sum(w, (t) => t.transactions.size), drop: (w) => w.tenants.forEach((t) => ((t as { transactions: unknown }).transactions = null)) },
  { name: 'conversions', count: (w) => sum(w, (t) => t.conversions.size), drop: (w) => w.tenants.forEach((t) => ((t as { conversions: unknown }).conversions = null)) },
  { name: 'quotes', count: (w) => sum(w, (t) => t.quotes.size), drop: (w) => w.tenants.forEach((t) => ((t as { quotes: unknown }).quotes = null)) },
  {
    name: 'users (and their CPF and external id indexes)',
    count: (w) => sum(w, (t) => t.users.size),
    drop: (w) => {
      for (const t of w.tenants) {
        (t as { users: unknown }).users = null;
        t.cpfIndex.clear();
        t.externalIdIndex.clear();
      }
    },
  },
];

/** One row of the accounting table. */
export interface KindFigure {
  kind: string;
  count: number;
  bytesPerLifecycle: number;
}

/** Figures of {@link run}. */
export interface MemoryFigures {
  gc: boolean;
  lifecycles: number;
  tenants: number;
  seconds: number;
  bytesPerLifecycle: number;
  kinds: KindFigure[];
  /** Everything else that the run left: interned strings and memos (bounded), the clients. */
  restPerLifecycle: number;
  deliveries: { lifecycles: number; bytesPerLifecycle: number; withEndpoint: number; without: number; records: number; delivered: number };
  /** Per size: heap per conversion, and the latencies at that size beside the same at the smallest size (`reference`). */
  growth: Array<{
    conversions: number;
    bytesPerConversion: number;
    /** At the largest size: the heap per conversion 25 hours later, once the idempotency records expired. */
    afterWindow?: number;
    get: Figure;
    list: Figure;
    listByUser: Figure;
    reference: { get: Figure; list: Figure; listByUser: Figure };
  }>;
}

async function perKind(count: number, tenantCount: number): Promise<Pick<MemoryFigures, 'lifecycles' | 'tenants' | 'seconds' | 'bytesPerLifecycle' | 'kinds' | 'restPerLifecycle'>> {
  console.log(`\nMemory: ${count.toLocaleString('en')} onramp lifecycles over ${tenantCount} tenants, in process`);
  const w = world(tenantCount);
  const parts = internals(w.sandbox);
  await runLifecycles(w, Math.min(200, count)); // warm-up: code, memos and tables reach their size
  const before = heap();
  const started = performance.now();
  await runLifecycles(w, count);
  const seconds = (performance.now() - started) / 1000;
  let last = heap();
  const total = count + Math.min(200, count);
  const bytesPerLifecycle = (last - before) / count;
  console.log(`  ${(count / seconds).toFixed(0)} lifecycles/s; live heap ${(bytesPerLifecycle / 1024).toFixed(2)} kB per lifecycle (target <= 6 kB)`);
  const kinds: KindFigure[] = [];
  for (const kind of KINDS) {
    const n = kind.count(w, parts);
    kind.drop(w, parts);
    const now = heap();
    // Shares are per lifecycle of the whole run (warm-up included: its records are dropped too).
    kinds.push({ kind: kind.name, count: n, bytesPerLifecycle: (last - now) / total });
    last = now;
  }
  for (const k of kinds) console.log(`  ${k.kind.padEnd(48)} ${String(k.count).padStart(9)} kept ${k.bytesPerLifecycle.toFixed(0).padStart(7)} B per lifecycle`);
  const restPerLifecycle = (last - before) / count;
  console.log(`  ${'everything else (interned strings, memos)'.padEnd(48)} ${''.padStart(9)}      ${restPerLifecycle.toFixed(0).padStart(7)} B per lifecycle`);
  return { lifecycles: count, tenants: tenantCount, seconds, bytesPerLifecycle, kinds, restPerLifecycle };
}

async function deliveries(count: number): Promise<MemoryFigures['deliveries']> {
  console.log(`\nMemory: webhook deliveries, ${count.toLocaleString('en')} lifecycles in one tenant, with and without an endpoint`);
  const measureOne = async (endpoint: boolean): Promise<{ perLifecycle: number; records: number; delivered: number }> => {
    const w = world(1);
    const client = w.clients[0] as PixUsdt;
    if (endpoint) {
      const url = 'https://receiver.example/webhooks';
      w.sandbox.webhooks.listen(url, () => 200);
      await client.webhookEndpoints.create({ url, event_types: ['*'], description: 'bench' });
    }
    const flush = (): Promise<void> => w.sandbox.webhooks.flush();
    await runLifecycles(w, Math.min(200, count), flush);
    const before = heap();
    await runLifecycles(w, count, flush);
    const after = heap();
    const parts = internals(w.sandbox);
    const tenant = w.tenants[0] as TenantState;
    const records = parts.webhooks.records.of(tenant).deliveries.length;
    const delivered = w.sandbox.webhooks.delivered().length;
      return { perLifecycle: (after - before) / count, records, delivered };
  };
  const without = await measureOne(false);
  const withEndpoint = await measureOne(true);
  const bytes = withEndpoint.perLifecycle - without.perLifecycle;
  console.log(`  without an endpoint ${without.perLifecycle.toFixed(0)} B, with one ${withEndpoint.perLifecycle.toFixed(0)} B per lifecycle: deliveries cost ${bytes.toFixed(0)} B per lifecycle (${withEndpoint.records} delivery records, ${withEndpoint.delivered} in the delivered log)`);
  return { lifecycles: count, bytesPerLifecycle: bytes, withEndpoint: withEndpoint.perLifecycle, without: without.perLifecycle, records: withEndpoint.records, delivered: withEndpoint.delivered };
}

async function growth(sizes: number[]): Promise<MemoryFigures['growth']> {
  console.log(`\nGrowth: one tenant, ${sizes.map((s) => s.toLocaleString('en')).join(', ')} conversions`);
  // A world of the smallest size, measured side by side with the growing one at each size (in
  // interleaved rounds: a busy machine hits both alike).
  const small = world(1);
  const smallIds = await runLifecycles(small, sizes[0] ?? 1000);
  const w = world(1);
  const probes = async (x: World, ids: string[]): Promise<{ get: () => Promise<void>; list: () => Promise<void>; byUser: () => Promise<void> }> => {
    const auth = { authorization: `Bearer ${x.sandbox.apiKey}` };
    const get = (path: string) => async (): Promise<void> => {
      const response = await x.sandbox.fetch(path, { headers: auth });
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
      await response.text();
    };
    const id = ids[Math.floor(ids.length / 2)] as string;
    const conv = (await (await x.sandbox.fetch(`/v1/conversions/${id}`, { headers: auth })).json()) as { user_id: string };
    return { get: get(`/v1/conversions/${id}`), list: get('/v1/conversions?limit=50'), byUser: get(`/v1/conversions?user_id=${conv.user_id}&limit=50`) };
  };
  const base = heap();
  const out: MemoryFigures['growth'] = [];
  const ids: string[] = [];
  const ref = await probes(small, smallIds);
  const at = (sizes[0] ?? 1000).toLocaleString('en');
  for (const size of sizes) {
    ids.push(...(await runLifecycles(w, size - ids.length)));
    const bytesPerConversion = (heap() - base) / size;
    const p = await probes(w, ids);
    const n = size.toLocaleString('en');
    const [g0, g, l0, l, u0, u] = await compare(
      [
        { name: `get at ${at}`, fn: ref.get },
        { name: `get at ${n}`, fn: p.get },
        { name: `list limit=50 at ${at}`, fn: ref.list },
        { name: `list limit=50 at ${n}`, fn: p.list },
        { name: `list user_id=... at ${at}`, fn: ref.byUser },
        { name: `list user_id=... at ${n}`, fn: p.byUser },
      ],
      { rounds: 5, roundMs: 200, warmupMs: 100 },
    );
    table(`Growth at ${n} conversions: ${(bytesPerConversion / 1024).toFixed(2)} kB per conversion`, [g0, g, l0, l, u0, u] as Figure[]);
    out.push({ conversions: size, bytesPerConversion, get: g as Figure, list: l as Figure, listByUser: u as Figure, reference: { get: g0 as Figure, list: l0 as Figure, listByUser: u0 as Figure } });
  }
  // Past the idempotency window: 25 hours later, the tenant's next request drops its records.
  await w.sandbox.clock.advance({ hours: 25 });
  await w.sandbox.fetch('/v1/conversions?limit=1', { headers: { authorization: `Bearer ${w.sandbox.apiKey}` } });
  const last = out[out.length - 1];
  if (last) {
    last.afterWindow = (heap() - base) / last.conversions;
    console.log(`  25 hours later (idempotency records expired): ${(last.afterWindow / 1024).toFixed(2)} kB per conversion`);
  }
  return out;
}

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

/** Runs the three parts and returns their figures. */
export async function run(
  options: { lifecycles?: number; tenants?: number; growth?: number[]; deliveries?: number } = {},
): Promise<MemoryFigures> {
  if (!gc) console.log('  (no global.gc: run node with --expose-gc; the heap figures are then rough)');
  const lifecycles = options.lifecycles ?? Number(flag('--lifecycles', '50000'));
  const tenants = options.tenants ?? Number(flag('--tenants', '20'));
  const main = await perKind(lifecycles, tenants);
  const delivery = await deliveries(options.deliveries ?? Number(flag('--deliveries', '5000')));
  const sizes = options.growth ?? flag('--growth', '1000,10000,50000').split(',').map(Number);
  return { gc: gc !== undefined, ...main, deliveries: delivery, growth: await growth(sizes) };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
