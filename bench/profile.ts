/**
 * Where a CPU profile's time goes, by layer: each sample goes to the innermost frame whose source
 * file (and function) a rule names. Built files keep esbuild's `// src/...` comment before each
 * module's code, which names the source file of every line. Shared by bench/lifecycle.ts (the
 * in-process lifecycle) and bench/server.ts (`--profile`: the server under load).
 * @module
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A node of a V8 CPU profile. */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** A V8 CPU profile (`Profiler.stop`, or a `.cpuprofile` file of `--cpu-prof`). */
export interface CpuProfile {
  nodes: ProfileNode[];
  /** When profiling started, in microseconds of the monotonic clock (`process.hrtime` of any process on the machine). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Now, in microseconds of the clock a profile's sample times use. */
export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** A rule: the first one an enclosing frame matches names the sample's layer (innermost frame first). */
export interface Rule {
  layer: string;
  file: RegExp;
  fn?: RegExp;
  /** Frames of the client's own build (dist/node/), told apart from the sandbox's copy of the models. */
  client?: true;
}

const sourcesByUrl = new Map<string, Array<[number, string]>>();

/** The source file of a line of a built file (esbuild's `// src/...` comments), or the file itself. */
export function sourceOf(url: string, line: number): string {
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

// Helpers that count for their caller: hashing and ids (the idempotency fingerprint, the request id).
const PASS = /^(hashHex|hash53Hex|derivedHex|uuidHex|uuid|v4|unsafeStringify|rng|bytes|base62|next)$/;

function layerOf(frames: ProfileNode[], rules: readonly Rule[], other: string): string {
  for (const node of frames) {
    const { functionName, url, lineNumber } = node.callFrame;
    if (PASS.test(functionName)) continue;
    const file = url === '' ? functionName : sourceOf(url, lineNumber);
    const client = url.includes('/dist/node/');
    for (const rule of rules) {
      if ((rule.client === true) === client && rule.file.test(file) && (rule.fn === undefined || rule.fn.test(functionName))) return rule.layer;
    }
  }
  return other;
}

/**
 * Each layer's share of a profile's busy samples (idle and `(program)` left out); `top` prints the
 * heaviest functions; `window` (monotonic microseconds, {@link monotonicMicros}) keeps the samples
 * taken within it (a server's profile also covers its start and warm-up).
 */
export function shares(p: CpuProfile, rules: readonly Rule[], other: string, top = 0, window?: { from: number; to: number }): Map<string, number> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const layerById = new Map<number, string>();
  const counts = new Map<string, number>();
  const selfCounts = new Map<string, number>();
  let total = 0;
  let at = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    at += p.timeDeltas[i] ?? 0;
    if (window !== undefined && (at < window.from || at > window.to)) continue;
    const id = p.samples[i] as number;
    const node = byId.get(id) as ProfileNode;
    if (node.callFrame.functionName === '(idle)' || node.callFrame.functionName === '(program)') continue;
    let layer = layerById.get(id);
    if (layer === undefined) {
      const frames: ProfileNode[] = [];
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) frames.push(byId.get(cur) as ProfileNode);
      layer = layerOf(frames, rules, other);
      layerById.set(id, layer);
    }
    counts.set(layer, (counts.get(layer) ?? 0) + 1);
    if (top > 0) {
      const { functionName, url, lineNumber } = node.callFrame;
      const self = `${layer} | ${functionName || '(anonymous)'} ${url === '' ? '' : sourceOf(url, lineNumber)}`;
      selfCounts.set(self, (selfCounts.get(self) ?? 0) + 1);
    }
    total++;
  }
  if (top > 0) {
    for (const [k, v] of [...selfCounts].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  }
  return new Map([...counts].map(([k, v]) => [k, v / total]));
}

/** The sandbox's layers (in process: bench/lifecycle.ts; in the server: bench/server.ts adds the server's own before them). */
export const SANDBOX_RULES: readonly Rule[] = [
  { layer: 'observer: request log', file: /http\/request-log\.ts$/ },
  { layer: 'observer: request log', file: /http\/app\.ts$/, fn: /^#?log$/ },
  { layer: 'observer: inspector moves', file: /inspector\/inspection\.ts$/ },
  { layer: 'observer: inspector moves', file: /core\/platform\.ts$/, fn: /^changed$/ },
  { layer: 'observer: persistence hooks', file: /core\/snapshot\.ts$|server\/persistence\.ts$|sandbox\/storage\/|core\/persist\.ts$|sandbox\/stored\.ts$|server\/data\// },
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
  { layer: 'sandbox: execute (serialize the answer)', file: /http\/stages\.ts$/, fn: /^(execute|answerOf)$/ },
  { layer: 'sandbox: fetch adapter (Incoming, SandboxResponse)', file: /http\/fetch\.ts$/ },
  { layer: 'sandbox: fetch adapter (Incoming, SandboxResponse)', file: /sandbox\/sandbox\.ts$/, fn: /fetch|fetchAnswer/ },
  { layer: 'sandbox: app dispatch (request id, stage loop)', file: /http\/(app|call)\.ts$/ },
  // The client's build (dist/node/) holds its models and zod too: a frame there is the client's.
  { layer: 'client: response validation (zod)', file: /src\/client\/transport\.ts$/, fn: /^#parse$/, client: true },
  { layer: 'client: request, timer, retry loop', file: /^src\/(client|resources|internal)\//, client: true },
  { layer: 'garbage collector', file: /^\(garbage collector\)$/ },
];
