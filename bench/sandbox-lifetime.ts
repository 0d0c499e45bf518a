// A discarded sandbox is gone (issue 21). 5,000 real-time sandboxes, each with a pending timer
// (a quote whose TTL is armed on the platform's real timer) and a webhook retry armed, are
// created and then:
// - dropped: nobody references them; after gc() the heap is back to its start (before the fix
//   none was collected: the real timer's callback held each platform until its due instant);
// - closed, then dropped: the same.
// For scale: the heap they hold while kept (bytes per sandbox). And the cost of the weak
// reference on the one real timer: ns per re-arm with a weak reference and with a closure (the
// alternative, one shared scheduler for every sandbox, would save one timer per live sandbox
// with timers, at the price of module state and of a heap shared across sandboxes).
//
// Run: node --expose-gc --import tsx bench/sandbox-lifetime.ts  (or through npm run bench)
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { PixUsdt } from '../src/index.js';
import { createSandbox, type Sandbox } from '../src/sandbox/index.js';
import { WALLET, cpf } from '../test/support/fixtures.js';

const COUNT = 5_000;
const KEPT = 1_000;

function gcFunction(): () => void {
  const known = (globalThis as { gc?: () => void }).gc;
  if (known) return known;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
const gc = gcFunction();

async function settledHeap(): Promise<number> {
  // Finalizers (the alarm's timer is cleared by one) run on later tasks: collect until steady.
  let last = Infinity;
  for (let i = 0; i < 20; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    const now = process.memoryUsage().heapUsed;
    if (Math.abs(now - last) < 64 * 1024 && i >= 3) return now;
    last = now;
  }
  return last;
}

/** A real-time sandbox with a quote (TTL timer armed) and a failed first webhook attempt (retry armed). */
async function busySandbox(n: number): Promise<Sandbox> {
  const sandbox = createSandbox();
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  await client.webhookEndpoints.create({ url: 'https://partner.example/hooks', event_types: ['user.kyc_approved'] });
  const user = await client.users.create({ external_id: `l-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n % 90_000) });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  await client.quotes.create({ user_id: user.id, source_currency: 'BRL', target_currency: 'USDT', source_amount: '100.00', destination_wallet_address: WALLET, destination_wallet_network: 'polygon' });
  await sandbox.webhooks.flush(); // nobody listens: the attempt fails and its retry is armed
  return sandbox;
}

interface Phase {
  name: string;
  count: number;
  alive: number;
  heapDeltaBytes: number;
  seconds: number;
}

const BATCH = 100;

/** Creates COUNT busy sandboxes (BATCH at a time), closes them if asked, and hands back weak references (and the sandboxes, if kept). */
async function createAll(name: string, count: number, keep: boolean, close: boolean): Promise<{ refs: Array<WeakRef<Sandbox>>; kept: Sandbox[] }> {
  const refs: Array<WeakRef<Sandbox>> = [];
  const kept: Sandbox[] = [];
  for (let from = 1; from <= count; from += BATCH) {
    const batch = await Promise.all(Array.from({ length: Math.min(BATCH, count - from + 1) }, (_, i) => busySandbox(from + i)));
    for (const sandbox of batch) {
      if (sandbox.webhooks.pending().length !== 1) throw new Error('the sandbox has no pending retry');
      refs.push(new WeakRef(sandbox));
    }
    if (close) await Promise.all(batch.map((s) => s.close()));
    if (keep) kept.push(...batch);
    if ((from + BATCH - 1) % 1000 === 0) process.stdout.write(`  ${name}: ${(from + BATCH - 1).toLocaleString('en')} of ${count.toLocaleString('en')}\n`);
  }
  return { refs, kept };
}

async function phase(name: string, count: number, keep: boolean, close: boolean): Promise<Phase & { kept: Sandbox[] }> {
  const start = await settledHeap();
  const t = performance.now();
  const { refs, kept } = await createAll(name, count, keep, close);
  const seconds = (performance.now() - t) / 1000;
  const end = await settledHeap();
  const alive = refs.filter((r) => r.deref() !== undefined).length;
  return { name, count, alive, heapDeltaBytes: end - start, seconds, kept };
}

/**
 * The one change to the real timer: its callback gets a weak reference instead of closing over
 * the alarm. ns per re-arm (clear + set, as the alarm does when an earlier instant comes), both ways.
 */
function rearmCost(): { weakNs: number; closureNs: number } {
  const N = 100_000;
  const target = { wake: (): void => undefined };
  const ring = (ref: WeakRef<typeof target>): void => ref.deref()?.wake();
  const measure = (arm: (i: number) => ReturnType<typeof setTimeout>): number => {
    let handle: ReturnType<typeof setTimeout> | null = null;
    const t = performance.now();
    for (let i = 0; i < N; i++) {
      if (handle !== null) clearTimeout(handle);
      handle = arm(i);
      handle.unref();
    }
    const ns = ((performance.now() - t) * 1e6) / N;
    if (handle !== null) clearTimeout(handle);
    return ns;
  };
  const closure = (i: number): ReturnType<typeof setTimeout> => setTimeout(() => target.wake(), 3_600_000 - i);
  const weak = (i: number): ReturnType<typeof setTimeout> => setTimeout(ring, 3_600_000 - i, new WeakRef(target));
  // Warm both, then interleave rounds; the median round counts.
  const rounds = { weak: [] as number[], closure: [] as number[] };
  for (let r = 0; r < 7; r++) {
    rounds.closure.push(measure(closure));
    rounds.weak.push(measure(weak));
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  return { weakNs: median(rounds.weak.slice(2)), closureNs: median(rounds.closure.slice(2)) };
}

export async function run(): Promise<{ phases: Phase[]; keptBytesPerSandbox: number; rearm: { weakNs: number; closureNs: number } }> {
  const held = await phase('kept', KEPT, true, false);
  const keptBytesPerSandbox = held.heapDeltaBytes / KEPT;
  await Promise.all(held.kept.map((s) => s.close()));
  held.kept.length = 0;
  const dropped = await phase('dropped', COUNT, false, false);
  const closed = await phase('closed and dropped', COUNT, false, true);
  const phases = [dropped, closed].map(({ kept: _kept, ...p }) => p);
  const rearm = rearmCost();
  for (const p of phases) {
    console.log(`${p.name}: ${p.count} sandboxes in ${p.seconds.toFixed(1)} s, ${p.alive} still alive, heap ${(p.heapDeltaBytes / 1e6).toFixed(2)} MB over its start`);
  }
  console.log(`kept: ${(keptBytesPerSandbox / 1000).toFixed(1)} kB a sandbox; re-arming the real timer: ${rearm.weakNs.toFixed(0)} ns with a weak reference, ${rearm.closureNs.toFixed(0)} ns with a closure`);
  return { phases, keptBytesPerSandbox, rearm };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
