/**
 * Where the in-process offramp lifecycle's time goes (issue 22): the lifecycle (quote, accept,
 * deposit with settle, retrieve) through the built client over the built sandbox's `fetch`, next
 * to the bare-fetch unit, then the same lifecycle under V8's sampling profiler, each sample given
 * to the layer or observer its innermost recognised frame belongs to. The built files keep
 * esbuild's `// src/...` comment before each module's code, which names the source file of every
 * line; the layer is then read from the source file and the function's name.
 *
 * `--baseline DIR` compares instead: the same lifecycle over another build of the package (DIR is
 * its `dist/`, say a build of main) and over this one, alternating in one process, many rounds,
 * each beside the bare-fetch unit, timed by this process's CPU time: the relative figure a busy
 * machine can still give.
 *
 *   npm run build && node --import tsx bench/lifecycle.ts [--baseline ../main/dist [--rounds 15]]
 */
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bareFetchGet } from './client.js';
import { compare } from './measure.js';
import { client as built, sandbox as builtSandbox } from './package.js';
import { type CpuProfile, SANDBOX_RULES, shares } from './profile.js';

type Built = { client: typeof built; sandbox: typeof builtSandbox };

/** One layer's share of a lifecycle. */
export interface Layer {
  layer: string;
  /** Microseconds per lifecycle (its share of the profiled samples times the lifecycle's time). */
  micros: number;
  /** The same in bare-fetch units. */
  units: number;
}

/** The figures: the lifecycle and its unit side by side, and the breakdown. */
export interface LifecycleFigures {
  bareMicros: number;
  lifecycleMicros: number;
  units: number;
  layers: Layer[];
}

const QUOTE = { source_currency: 'USDT', target_currency: 'BRL', source_amount: '10.000000', pix_key: '52998224725', pix_key_type: 'cpf', deposit_network: 'polygon' } as const;

async function lifecycleOf(pkg: Built = { client: built, sandbox: builtSandbox }): Promise<() => Promise<void>> {
  const { PixUsdt } = pkg.client;
  const { createSandbox } = pkg.sandbox;
  const big = { daily: '1000000000000', monthly: '1000000000000' };
  const sandbox = createSandbox({ now: '2026-01-01T00:00:00Z', seed: 'bench', quoteRateLimit: 0, limits: { platform: big, partner: big, user: big }, eventLogSize: 1000 });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  const user = await client.users.create({ external_id: 'bench', name: 'Bench', document_type: 'cpf', document_number: '52998224725' });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  return async () => {
    const quote = await client.quotes.create({ user_id: user.id, ...QUOTE });
    const conv = await client.quotes.accept(quote.id);
    await client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { settle: true });
    const done = await client.conversions.retrieve(conv.id);
    if (done.status !== 'completed') throw new Error(`lifecycle ended ${done.status}`);
  };
}

/** Profiles `iterations` lifecycles and returns each layer's share of the samples. */
async function profile(life: () => Promise<void>, iterations: number): Promise<{ shares: Map<string, number>; micros: number }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 50 });
  await session.post('Profiler.start');
  const started = performance.now();
  for (let i = 0; i < iterations; i++) await life();
  const micros = ((performance.now() - started) * 1000) / iterations;
  const { profile: p } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
  session.disconnect();
  return { shares: shares(p, SANDBOX_RULES, 'other (microtasks, undici, the bench loop)', Number(process.env['LIFECYCLE_TOP'] ?? 0) || 0), micros };
}

/** Measures the lifecycle against its unit, then profiles it. */
export async function run(): Promise<LifecycleFigures> {
  const life = await lifecycleOf();
  const [bare, lifecycle] = await compare(
    [
      { name: 'bare fetch', fn: bareFetchGet },
      { name: 'lifecycle', fn: life },
    ],
    { rounds: 7, roundMs: 500, warmupMs: 500 },
  );
  const bareMicros = (bare as { microsPerOp: number }).microsPerOp;
  const lifecycleMicros = (lifecycle as { microsPerOp: number }).microsPerOp;
  const profiled = await profile(life, 8000);
  // Shares of the profiled run, scaled to the lifecycle's time measured beside its unit.
  const layers = [...profiled.shares]
    .map(([layer, share]) => ({ layer, micros: share * lifecycleMicros, units: (share * lifecycleMicros) / bareMicros }))
    .sort((a, b) => b.micros - a.micros);
  const figures = { bareMicros, lifecycleMicros, units: lifecycleMicros / bareMicros, layers };
  console.log(`\nLifecycle: ${lifecycleMicros.toFixed(1)} us = ${figures.units.toFixed(2)} bare-fetch units (${bareMicros.toFixed(1)} us)`);
  for (const l of layers) console.log(`  ${l.layer.padEnd(52)} ${l.micros.toFixed(1).padStart(7)} us  ${l.units.toFixed(2).padStart(5)} units`);
  return figures;
}

/** Another build's lifecycle against this one's, alternating in one process (`--baseline`). */
export async function against(dir: string, rounds: number): Promise<{ baseline: number; current: number; bare: number }> {
  const base = pathToFileURL(`${path.resolve(dir)}/`);
  const other: Built = {
    client: (await import(new URL('node/index.js', base).href)) as typeof built,
    sandbox: (await import(new URL('sandbox.js', base).href)) as typeof builtSandbox,
  };
  const [bare, baseline, current] = await compare(
    [
      { name: 'bare fetch', fn: bareFetchGet },
      { name: 'baseline', fn: await lifecycleOf(other) },
      { name: 'current', fn: await lifecycleOf() },
    ],
    // CPU time: waiting for a core on a shared machine is not counted (bench/measure.ts).
    { rounds, roundMs: 500, warmupMs: 1000, clock: 'cpu' },
  );
  const micros = (f: unknown): number => (f as { microsPerOp: number }).microsPerOp;
  return { bare: micros(bare), baseline: micros(baseline), current: micros(current) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--baseline');
  if (at < 0) await run();
  else {
    const roundsAt = process.argv.indexOf('--rounds');
    const r = await against(process.argv[at + 1] as string, roundsAt < 0 ? 15 : Number(process.argv[roundsAt + 1]));
    console.log(`baseline ${r.baseline.toFixed(1)} us (${(r.baseline / r.bare).toFixed(2)} units), current ${r.current.toFixed(1)} us (${(r.current / r.bare).toFixed(2)} units), bare fetch ${r.bare.toFixed(1)} us: current / baseline x${(r.current / r.baseline).toFixed(3)}`);
  }
}
