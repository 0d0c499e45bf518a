/**
 * Where the in-process offramp lifecycle's time goes (issue 22): the lifecycle (quote, accept,
 * deposit with settle, retrieve) through the built client over the built sandbox's `fetch`, next
 * to the bare-fetch unit, then the same lifecycle under V8's sampling profiler, each sample given
 * to the layer or observer its innermost recognised frame belongs to. The built files keep
 * esbuild's `// src/...` comment before each module's code, which names the source file of every
 * line; the layer is then read from the source file and the function's name.
 *
 *   npm run build && node --import tsx bench/lifecycle.ts
 */
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { bareFetchGet } from './client.js';
import { compare } from './measure.js';
import { client as built, sandbox as builtSandbox } from './package.js';

const { PixUsdt } = built;
const { createSandbox } = builtSandbox;

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

async function lifecycleOf(): Promise<() => Promise<void>> {
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

// --- where a line of a built file comes from ----------------------------------------------

const sourcesByUrl = new Map<string, Array<[number, string]>>();

/** The source file of a line of a built file (esbuild's `// src/...` comments), or the file itself. */
function sourceOf(url: string, line: number): string {
  if (!url.startsWith('file://')) return url === '' ? '(native)' : url;
  let marks = sourcesByUrl.get(url);
  if (marks === undefined) {
    marks = [];
    try {
      const lines = readFileSync(fileURLToPath(url), 'utf8').split('\n');
      lines.forEach((text, i) => {
        const m = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(text);
        if (m?.[1] !== undefined) marks?.push([i, m[1]]);
      });
    } catch {
      // not a readable file: named by its URL
    }
    sourcesByUrl.set(url, marks);
  }
  let source = url.includes('/node_modules/') ? `node_modules/${url.split('/node_modules/').pop()}` : url;
  for (const [at, name] of marks) {
    if (at > line) break;
    source = name;
  }
  return source;
}

// The layers, innermost first: the first rule an enclosing frame matches names the sample's layer.
type Rule = { layer: string; file: RegExp; fn?: RegExp; client?: true };
const RULES: Rule[] = [
  { layer: 'observer: request log', file: /http\/request-log\.ts$/ },
  { layer: 'observer: request log', file: /http\/app\.ts$/, fn: /^#?log$/ },
  { layer: 'observer: inspector moves', file: /inspector\/inspection\.ts$/ },
  { layer: 'observer: inspector moves', file: /core\/platform\.ts$/, fn: /^changed$/ },
  { layer: 'observer: persistence hooks', file: /core\/snapshot\.ts$|server\/persistence\.ts$|sandbox\/storage\/|core\/persist\.ts$/ },
  { layer: 'observer: alarm', file: /core\/alarm\.ts$/ },
  { layer: 'observer: alarm', file: /core\/platform\.ts$/, fn: /^(schedule|#wakeLater|#realDue)$/ },
  { layer: 'effects: event fan-out (webhooks)', file: /plugins\/webhooks\// },
  { layer: 'effects: event record + emit', file: /core\/platform\.ts$/, fn: /^record$/ },
  { layer: 'effects: event record + emit', file: /eventemitter3/ },
  { layer: 'sandbox: idempotency', file: /http\/idempotency\.ts$/ },
  { layer: 'sandbox: authenticate (+ due timers, expiry)', file: /http\/stages\.ts$/, fn: /^authenticate$/ },
  { layer: 'sandbox: route (+ body read)', file: /http\/stages\.ts$/, fn: /^(route|withBody)$/ },
  { layer: 'sandbox: route (+ body read)', file: /http\/(router|path)\.ts$/ },
  { layer: 'sandbox: authorize', file: /http\/stages\.ts$/, fn: /^authorize$/ },
  { layer: 'sandbox: validate (zod)', file: /http\/stages\.ts$/, fn: /^(validateInput|validate)$/ },
  { layer: 'sandbox: rate window', file: /http\/stages\.ts$/, fn: /^rateLimit$/ },
  { layer: 'sandbox: core (routes, machines, money, wire)', file: /sandbox\/http\/routes\/|sandbox\/core\/|big\.js/ },
  { layer: 'sandbox: execute (serialize the answer)', file: /http\/stages\.ts$/, fn: /^execute$/ },
  { layer: 'sandbox: fetch adapter (Incoming, SandboxResponse)', file: /http\/fetch\.ts$/ },
  { layer: 'sandbox: fetch adapter (Incoming, SandboxResponse)', file: /sandbox\/sandbox\.ts$/, fn: /fetch|fetchAnswer/ },
  { layer: 'sandbox: app dispatch (request id, stage loop)', file: /http\/(app|call)\.ts$/ },
  // The client's build (dist/node/) holds its models and zod too: a frame there is the client's.
  { layer: 'client: response validation (zod)', file: /src\/client\/transport\.ts$/, fn: /^#parse$/, client: true },
  { layer: 'client: request, timer, retry loop', file: /^src\/(client|resources|internal)\//, client: true },
  { layer: 'garbage collector', file: /^\(garbage collector\)$/ },
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

// Helpers that count for their caller: hashing and ids (the idempotency fingerprint, the request id).
const PASS = /^(hashHex|hash53Hex|derivedHex|uuidHex|uuid|v4|unsafeStringify|rng|bytes|base62|next)$/;

function layerOf(frames: ProfileNode[]): string {
  for (const node of frames) {
    const { functionName, url, lineNumber } = node.callFrame;
    if (PASS.test(functionName)) continue;
    const file = url === '' ? functionName : sourceOf(url, lineNumber);
    const client = url.includes('/dist/node/');
    for (const rule of RULES) {
      if ((rule.client === true) === client && rule.file.test(file) && (rule.fn === undefined || rule.fn.test(functionName))) return rule.layer;
    }
  }
  return 'other (microtasks, undici, the bench loop)';
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
  const { profile: p } = (await session.post('Profiler.stop')) as { profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] } };
  session.disconnect();
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const layerById = new Map<number, string>();
  const counts = new Map<string, number>();
  const selfCounts = new Map<string, number>();
  let total = 0;
  for (const id of p.samples) {
    const node = byId.get(id) as ProfileNode;
    if (node.callFrame.functionName === '(idle)' || node.callFrame.functionName === '(program)') continue;
    let layer = layerById.get(id);
    if (layer === undefined) {
      const frames: ProfileNode[] = [];
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) frames.push(byId.get(cur) as ProfileNode);
      layer = layerOf(frames);
      layerById.set(id, layer);
    }
    counts.set(layer, (counts.get(layer) ?? 0) + 1);
    const { functionName, url, lineNumber } = node.callFrame;
    const self = `${layer} | ${functionName || '(anonymous)'} ${url === '' ? '' : sourceOf(url, lineNumber)}`;
    selfCounts.set(self, (selfCounts.get(self) ?? 0) + 1);
    total++;
  }
  const shares = new Map([...counts].map(([k, v]) => [k, v / total]));
  if (process.env['LIFECYCLE_TOP'] !== undefined) {
    const top = [...selfCounts].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env['LIFECYCLE_TOP']) || 40);
    for (const [k, v] of top) console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  }
  return { shares, micros };
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
  const { shares } = await profile(life, 8000);
  // Shares of the profiled run, scaled to the lifecycle's time measured beside its unit.
  const layers = [...shares]
    .map(([layer, share]) => ({ layer, micros: share * lifecycleMicros, units: (share * lifecycleMicros) / bareMicros }))
    .sort((a, b) => b.micros - a.micros);
  const figures = { bareMicros, lifecycleMicros, units: lifecycleMicros / bareMicros, layers };
  console.log(`\nLifecycle: ${lifecycleMicros.toFixed(1)} us = ${figures.units.toFixed(2)} bare-fetch units (${bareMicros.toFixed(1)} us)`);
  for (const l of layers) console.log(`  ${l.layer.padEnd(52)} ${l.micros.toFixed(1).padStart(7)} us  ${l.units.toFixed(2).padStart(5)} units`);
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
