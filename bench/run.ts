// `npm run bench`: runs every bench module's `run()`, each in a fresh process (client, cold start, webhooks on Node and in Chromium,
// the browser bundles, sandbox, scale, memory, persistence, the storage soak, neighbours, the noisy neighbour, the ten-tenant attack, the sandbox's lifetime, test sandboxes; `--only big-tenant` for the 600 MB tenant), then writes each figure beside its target and a verdict into
// docs/performance.md, between the markers below (and prints the same Markdown block).
// A missing or failing module is reported and the others still run.
//
//   npm run build && node --expose-gc --import tsx bench/run.ts [--only client,scale] [--no-write]
// (--expose-gc makes the memory figures precise; cold start imports the built package.)
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BundleBench as BundleResult } from './bundle.js';
import { BARE_FETCH, IN_PROCESS, LOOPBACK } from './sandbox.js';
import type { MemoryFigures } from './memory.js';
import type { FloorMode, ServerFigure } from './server.js';
import type { BrowserWebhooksBench } from './webhooks-browser.js';
import type { WebhooksBench } from './webhooks.js';

const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';
const DOC = new URL('../docs/performance.md', import.meta.url);

/** One line of the results table. */
interface Row {
  area: string;
  figure: string;
  measured: string;
  target: string;
  verdict: 'pass' | 'MISS' | 'info' | 'n/a';
}

interface Fig {
  name: string;
  opsPerSecond: number;
  microsPerOp?: number;
  microsecondsPerOp?: number;
}

// What each floor server keeps of a new user (bench/server.ts FLOOR).
const FLOOR_WHAT: Record<FloorMode, string> = {
  objects: 'keeping the record by id, CPF and external id, the answer under its key and the last 10,000 events',
  strings: 'keeping the same as strings only',
  nothing: 'the same work, keeping nothing',
};

const fmt = (n: number, digits = 1): string => n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const us = (f: Fig): number => f.microsPerOp ?? f.microsecondsPerOp ?? 1e6 / f.opsPerSecond;
const verdict = (ok: boolean): Row['verdict'] => (ok ? 'pass' : 'MISS');

type Reader = (result: unknown) => Row[];

const READERS: Record<string, Reader> = {
  client(result) {
    const { get, post } = result as { get: Fig[]; post: Fig[] };
    return (
      [
        ['GET', get],
        ['POST', post],
      ] as const
    ).map(([method, [bare, ours]]) => {
      const ratio = us(ours as Fig) / us(bare as Fig);
      return {
        area: 'Client overhead',
        figure: `${method}: PixUsdt / bare fetch (${fmt(us(ours as Fig))} us vs ${fmt(us(bare as Fig))} us)`,
        measured: `x${fmt(ratio, 2)}`,
        target: '<= x2.00',
        verdict: verdict(ratio <= 2),
      };
    });
  },
  'cold-start'(result) {
    const figures = result as Array<{ name: string; ms: number; overBareMs: number }>;
    return figures
      .filter((f) => f.name !== 'bare node')
      .map((f) => ({
        area: 'Cold start',
        figure: `${f.name}: import + construct, over a bare Node start`,
        measured: `${fmt(f.overBareMs)} ms`,
        target: f.name === 'pix-usdt' ? '< 20 ms' : '(comparison)',
        verdict: f.name === 'pix-usdt' ? verdict(f.overBareMs < 20) : 'info',
      }));
  },
  webhooks(result) {
    const { ratios, results, payloadBytes } = result as WebhooksBench;
    const rows: Row[] = [
      {
        area: 'Webhooks',
        figure: `constructEvent (WebCrypto, Node, in rounds of the WebCrypto cases alone) / the least work a verifier must do (bench/minimal-verify.ts), its faster form per round (an identical copy of the minimal verifier reads x${fmt(ratios.minimalCopyVsMinimal, 2)} by this rule)`,
        measured: `x${fmt(ratios.webcryptoVsMinimal, 2)} throughput`,
        target: '>= x0.95',
        verdict: verdict(ratios.webcryptoVsMinimal >= 0.95),
      },
      {
        area: 'Webhooks',
        figure: `the same, against the minimal verifier's faster form over all rounds, chosen once (the copy reads x${fmt(ratios.minimalCopyVsMinimalForm, 2)})`,
        measured: `x${fmt(ratios.webcryptoVsMinimalForm, 2)} throughput`,
        target: '>= x0.95',
        verdict: verdict(ratios.webcryptoVsMinimalForm >= 0.95),
      },
      {
        area: 'Webhooks',
        figure: 'the first row by the method until issue 34\'s fifth pass: ours in rounds with the node:crypto cases, right after the node:crypto one (a slot where an identical copy of the minimal verifier read x0.77)',
        measured: `x${fmt(ratios.webcryptoVsMinimalMixed, 2)} throughput`,
        target: '(old method, info)',
        verdict: 'info',
      },
      {
        area: 'Webhooks',
        figure: 'minimal verifier on Node: subtle.verify / subtle.sign + compare',
        measured: `x${fmt(ratios.verifyVsSign, 2)} throughput`,
        target: '(above 1: verify is the faster)',
        verdict: 'info',
      },
      {
        area: 'Webhooks',
        figure: `constructEvent (node:crypto) / Stripe constructEvent, ${payloadBytes} B payload`,
        measured: `x${fmt(ratios.nodeVsStripeSync, 2)} throughput`,
        target: '>= x1.00',
        verdict: verdict(ratios.nodeVsStripeSync >= 1),
      },
      {
        area: 'Webhooks',
        figure: 'constructEvent (WebCrypto) / Stripe constructEventAsync (SubtleCrypto)',
        measured: `x${fmt(ratios.webcryptoVsStripeSubtle, 2)} throughput`,
        target: '>= x2.00 ("far faster")',
        verdict: verdict(ratios.webcryptoVsStripeSubtle >= 2),
      },
      {
        area: 'Webhooks',
        figure: 'the limit (the minimal verifier) / Stripe constructEventAsync (SubtleCrypto): the most any WebCrypto verifier can read on the row above',
        measured: `x${fmt(ratios.limitVsStripeSubtle, 2)} throughput`,
        target: '(for scale)',
        verdict: 'info',
      },
      {
        area: 'Webhooks',
        figure: 'constructEvent (WebCrypto) / a bare subtle.sign',
        measured: `x${fmt(ratios.webcryptoVsBareSign, 2)} throughput`,
        target: '(for scale)',
        verdict: 'info',
      },
    ];
    for (const r of results) rows.push({ area: 'Webhooks', figure: r.name, measured: `${Math.round(r.opsPerSecond).toLocaleString('en')} /s`, target: '', verdict: 'info' });
    return rows;
  },
  'webhooks-browser'(result) {
    const r = result as BrowserWebhooksBench;
    const chrome = /HeadlessChrome\/(\d+)/.exec(r.browser)?.[1] ?? '?';
    return [
      {
        area: 'Webhooks',
        figure: `constructEvent (Chromium ${chrome}) / the least work a verifier must do (bench/minimal-verify.ts), its faster form per round (an identical copy of the minimal verifier reads x${fmt(r.ratios.minimalCopyVsMinimal, 2)} by this rule)`,
        measured: `x${fmt(r.ratios.oursVsMinimal, 2)} throughput`,
        target: '>= x0.95',
        verdict: verdict(r.ratios.oursVsMinimal >= 0.95),
      },
      {
        area: 'Webhooks',
        figure: `the same, against the minimal verifier's faster form over all rounds, chosen once (the copy reads x${fmt(r.ratios.minimalCopyVsMinimalForm, 2)})`,
        measured: `x${fmt(r.ratios.oursVsMinimalForm, 2)} throughput`,
        target: '>= x0.95',
        verdict: verdict(r.ratios.oursVsMinimalForm >= 0.95),
      },
      {
        area: 'Webhooks',
        figure: 'minimal verifier in Chromium: subtle.verify / subtle.sign + compare',
        measured: `x${fmt(r.ratios.verifyVsSign, 2)} throughput`,
        target: '(above 1: verify is the faster)',
        verdict: 'info',
      },
      {
        area: 'Webhooks',
        figure: 'the same minimal work with a synchronous HMAC-SHA256 in JavaScript (bench/js-hmac.ts; not shipped: about 0.9 kB gzipped) / the minimal verifier, Chromium',
        measured: `x${fmt(r.ratios.jsHmacVsMinimal, 2)} throughput`,
        target: '(above 1: the JavaScript HMAC is the faster)',
        verdict: 'info',
      },
      {
        area: 'Webhooks',
        figure: `constructEvent / Stripe constructEventAsync, where only WebCrypto exists (Chromium ${chrome})`,
        measured: `x${fmt(r.ratios.oursVsStripe, 2)} throughput`,
        target: '>= x2.00 ("far faster")',
        verdict: verdict(r.ratios.oursVsStripe >= 2),
      },
      {
        area: 'Webhooks',
        figure: `the limit (the minimal verifier) / Stripe constructEventAsync (Chromium ${chrome}): the most any WebCrypto verifier can read on the row above`,
        measured: `x${fmt(r.ratios.limitVsStripe, 2)} throughput`,
        target: '(for scale)',
        verdict: 'info',
      },
      { area: 'Webhooks', figure: 'the same / a bare subtle.sign (Chromium)', measured: `x${fmt(r.ratios.oursVsBareSign, 2)} throughput`, target: '(for scale)', verdict: 'info' },
      ...r.results.map((f) => ({ area: 'Webhooks', figure: f.name, measured: `${Math.round(f.opsPerSecond).toLocaleString('en')} /s`, target: '', verdict: 'info' as const })),
    ];
  },
  bundle(result) {
    const { figures, parts } = result as BundleResult;
    const kB = (bytes: number): string => `${fmt(bytes / 1024, 1)} kB`;
    const TARGETS: Partial<Record<BundleResult['figures'][number]['app'], { limit: number; what: string }>> = {
      // Every chunk counted (issue 34): the first script alone let the answer models load unseen.
      app: { limit: 12 * 1024, what: 'a partner app (client + 3 calls), every chunk' },
      clientAll: { limit: 15 * 1024, what: "export * from 'pix-usdt', every chunk" },
      constructEvent: { limit: 3 * 1024, what: 'a receiver that only calls constructEvent' },
      webhooksAll: { limit: 3 * 1024, what: "export * from 'pix-usdt/webhooks'" },
    };
    const rows: Row[] = [];
    for (const f of figures) {
      const target = TARGETS[f.app];
      const how = `${f.bundler}, ${f.form === 'import' ? 'import' : 'require() (TS module: commonjs)'}`;
      // esbuild cannot tree-shake a module reached by require(): a constructEvent-only receiver in
      // that form carries the whole verification entry; issue 32's target is 3 kB for it all the same.
      if (target) {
        rows.push({ area: 'Bundle', figure: `${target.what} (${how})`, measured: kB(f.total), target: `<= ${kB(target.limit)}`, verdict: verdict(f.total <= target.limit) });
      } else {
        rows.push({ area: 'Bundle', figure: `export * from 'pix-usdt/models' (every schema, zod/mini) (${how})`, measured: kB(f.total), target: '', verdict: 'info' });
      }
      if (f.lazy > 0 && f.app === 'app') rows.push({ area: 'Bundle', figure: `the same app: of which loads after the first script (${how})`, measured: kB(f.lazy), target: '', verdict: 'info' });
    }
    for (const p of parts) {
      rows.push({
        area: 'Bundle',
        figure: `part of export * from 'pix-usdt' with its answer models: ${p.part} (minified: first script / later)`,
        measured: `${p.initialBytes.toLocaleString('en')} B / ${p.lazyBytes.toLocaleString('en')} B (${Math.round(p.share * 100)}%)`,
        target: '',
        verdict: 'info',
      });
    }
    return rows;
  },
  sandbox(result) {
    const results = result as Fig[];
    const rows: Row[] = results.map((r) => ({ area: 'Sandbox', figure: r.name, measured: `${Math.round(r.opsPerSecond).toLocaleString('en')} /s`, target: '', verdict: 'info' as const }));
    const lifecycle = results.find((r) => r.name === IN_PROCESS);
    const loopback = results.find((r) => r.name === LOOPBACK);
    const bare = results.find((r) => r.name === BARE_FETCH);
    if (!lifecycle || !loopback || !bare) throw new Error('bench/sandbox.ts did not measure the lifecycle figures');
    // The issue set 5,000 lifecycles a second where a bare fetch GET took 24 us: a lifecycle may
    // cost 200 / 24 = 8.33 bare fetches. The same ratio, measured here side by side, is the
    // target that does not depend on the machine's speed.
    const perBare = bare.opsPerSecond / lifecycle.opsPerSecond;
    rows.push(
      {
        area: 'Sandbox',
        figure: 'offramp lifecycles a second through the client, in process',
        measured: `${Math.round(lifecycle.opsPerSecond).toLocaleString('en')} /s`,
        target: '>= 5,000 /s',
        verdict: verdict(lifecycle.opsPerSecond >= 5000),
      },
      {
        area: 'Sandbox',
        figure: `the same, in bare fetch GETs per lifecycle (${fmt(1e6 / lifecycle.opsPerSecond, 0)} us vs ${fmt(1e6 / bare.opsPerSecond, 1)} us)`,
        measured: `x${fmt(perBare, 2)}`,
        target: '<= x5.00 (issue 22)',
        verdict: verdict(perBare <= 5),
      },
      {
        area: 'Sandbox',
        figure: 'in process / over the loopback HTTP server (same lifecycle)',
        measured: `x${fmt(lifecycle.opsPerSecond / loopback.opsPerSecond, 2)}`,
        target: '>= x5.00',
        verdict: verdict(lifecycle.opsPerSecond / loopback.opsPerSecond >= 5),
      },
    );
    return rows;
  },
  lifecycle(result) {
    const r = result as { bareMicros: number; lifecycleMicros: number; units: number; layers: Array<{ layer: string; micros: number; units: number }> };
    return [
      {
        area: 'Lifecycle',
        figure: `offramp lifecycle in bare-fetch units, measured beside its unit (${fmt(r.lifecycleMicros, 0)} us vs ${fmt(r.bareMicros, 1)} us)`,
        measured: `x${fmt(r.units, 2)}`,
        target: '<= x5.00',
        verdict: verdict(r.units <= 5),
      },
      ...r.layers.map((l) => ({ area: 'Lifecycle', figure: `where it goes (profile of dist/): ${l.layer}`, measured: `${fmt(l.micros)} us (${fmt(l.units, 2)} units)`, target: '', verdict: 'info' as const })),
    ];
  },
  server(result) {
    const figures = result as ServerFigure[];
    return figures.flatMap((f) => [
      {
        area: 'Server',
        figure: `${f.request}, 16 in flight, keep-alive, the load from its own process: serve / a bare node:http server answering the same bytes (${Math.round(f.served).toLocaleString('en')} /s vs ${Math.round(f.bare).toLocaleString('en')} /s)`,
        measured: `x${fmt(f.ratio, 2)}`,
        // Issue 34's targets: a GET at 0.7 of bare node:http, a POST (replayed or new) at 0.6.
        target: f.request.startsWith('GET') ? '>= x0.70' : '>= x0.60',
        verdict: verdict(f.ratio >= (f.request.startsWith('GET') ? 0.7 : 0.6)),
      },
      // Issue 34: each server's own CPU per answer in the same rounds (/proc), and whether the generator was the limit.
      {
        area: 'Server',
        figure: `the same, each server's own CPU per answer: bare / serve (${f.cpuMicros.bare === null ? '-' : fmt(f.cpuMicros.bare)} us vs ${f.cpuMicros.served === null ? '-' : fmt(f.cpuMicros.served)} us); the load generator used ${fmt(100 * f.generatorBusy, 0)}% of a core in the bare rounds`,
        measured: f.cpuRatio === null ? '-' : `x${fmt(f.cpuRatio, 2)}`,
        target: '',
        verdict: 'info' as const,
      },
      // Issue 34: for scale, the least any sandbox does for a new user (bench/server.ts FLOOR), in rounds of its own against the same bare server.
      ...(f.floors ?? []).map((fl) => ({
        area: 'Server',
        figure: `for scale, a new user on the floor server (${FLOOR_WHAT[fl.mode]}; no validation, CPF check, state machine or request log): floor / bare (${Math.round(fl.perSecond).toLocaleString('en')} /s; CPU per answer x${fl.cpuRatio === null ? '-' : fmt(fl.cpuRatio, 2)} of bare)`,
        measured: `x${fmt(fl.ratio, 2)}`,
        target: '',
        verdict: 'info' as const,
      })),
    ]);
  },
  persistence(result) {
    const figures = result as Array<{ name: string; spread: string; phase: string; opsPerSecond: number }>;
    const rows: Row[] = [];
    for (const [spread, phase] of [...new Set(figures.map((f) => `${f.spread}\n${f.phase}`))].map((k) => k.split('\n') as [string, string])) {
      const memory = figures.find((f) => f.spread === spread && f.phase === phase && f.name === 'memory');
      const data = figures.find((f) => f.spread === spread && f.phase === phase && f.name === '--data');
      if (!memory || !data) throw new Error('bench/persistence.ts did not measure both servers');
      const cost = memory.opsPerSecond / data.opsPerSecond;
      const when = phase === 'steady' ? 'steady state, after 5 s more of load on each' : "first seconds, the issues' method";
      rows.push({
        area: 'Server',
        figure: `answered POST /v1/users a second over ${spread}, 16 in flight, ${when}: without / with --data (${Math.round(memory.opsPerSecond).toLocaleString('en')} /s vs ${Math.round(data.opsPerSecond).toLocaleString('en')} /s)`,
        measured: `x${fmt(cost, 2)}`,
        // Issue 34's target (was 1.5 in issue 28).
        target: '<= x1.30',
        verdict: verdict(cost <= 1.3),
      });
    }
    return rows;
  },
  neighbours(result) {
    const r = result as { pattern: number; matchMicros: number; phases: Array<{ phase: string; p50: number; p99: number; aRequests: number }> };
    const by = (phase: string) => r.phases.find((p) => p.phase === phase) as (typeof r.phases)[number];
    const [alone, trivial, worst] = [by('alone'), by('trivial'), by('worst')];
    const ratio = worst.p50 / trivial.p50;
    return [
      ...r.phases.map((p) => ({
        area: 'Neighbours',
        figure: `tenant B's GET /v1/users on one server, ${p.phase === 'alone' ? 'A idle' : `A sending ${p.aRequests.toLocaleString('en')} POSTs against a ${p.phase} fault plan`}: p50 / p99`,
        measured: `${fmt(p.p50, 2)} / ${fmt(p.p99, 2)} ms`,
        target: '',
        verdict: 'info' as const,
      })),
      {
        area: 'Neighbours',
        figure: `B's p50 with A's worst plan (${r.pattern} characters of \`/**\`) / with a trivial plan, same load from A (p99: x${fmt(worst.p99 / trivial.p99, 2)})`,
        measured: `x${fmt(ratio, 2)}`,
        target: '<= x1.25',
        verdict: verdict(ratio <= 1.25),
      },
      { area: 'Neighbours', figure: `one match of that pattern against a 5-segment path (A idle: B's p50 ${fmt(alone.p50, 2)} ms)`, measured: `${fmt(r.matchMicros, 2)} us`, target: '', verdict: 'info' },
    ];
  },
  soak(result) {
    const r = result as {
      options: { seconds: number; tenants: number; concurrency: number };
      windows: Array<{ server: 'memory' | 'data'; perSecond: number; max: number; p99: number; rssMb: number; writtenPerRequest: number; folderMb: number | null }>;
      restart: { readyMs: number; firstAnswerMs: number; folderMb: number; memoryStartMs: number };
      replayBytes: number;
      getBytes: number;
      mutationBytes: number;
    };
    const data = r.windows.filter((w) => w.server === 'data');
    const memory = r.windows.filter((w) => w.server === 'memory');
    const first = data[0];
    const last = data.at(-1);
    const lastMemory = memory.at(-1);
    if (!first || !last || !lastMemory) throw new Error('bench/soak.ts measured no window');
    const slowest = Math.max(...data.map((w) => w.max));
    const held = last.perSecond / first.perSecond;
    const vsMemory = last.perSecond / lastMemory.perSecond;
    const soak = `${r.options.tenants} tenants, ${r.options.concurrency} in flight, ${r.options.seconds} s`;
    return [
      { area: 'Storage', figure: `--data soak (${soak}): last / first window (${fmt(last.perSecond)} vs ${fmt(first.perSecond)} lifecycles/s)`, measured: `x${fmt(held, 2)}`, target: '>= x0.80', verdict: verdict(held >= 0.8) },
      { area: 'Storage', figure: `the same, last window: --data / memory-only (${fmt(last.perSecond)} vs ${fmt(lastMemory.perSecond)} lifecycles/s)`, measured: `x${fmt(vsMemory, 2)}`, target: '>= x0.60', verdict: verdict(vsMemory >= 0.6) },
      { area: 'Storage', figure: 'the same: the slowest request of the --data soak', measured: `${fmt(slowest, 0)} ms`, target: '<= 1,000 ms', verdict: verdict(slowest <= 1000) },
      { area: 'Storage', figure: `restart after it (kill -9, ${fmt(r.restart.folderMb)} MB folder): spawn to ready line (the memory-only server's start: ${fmt(r.restart.memoryStartMs, 0)} ms)`, measured: `${fmt(r.restart.readyMs, 0)} ms`, target: '<= 1,000 ms', verdict: verdict(r.restart.readyMs <= 1000) },
      { area: 'Storage', figure: 'then a tenant\'s first answer (loaded on use)', measured: `${fmt(r.restart.firstAnswerMs, 0)} ms`, target: '', verdict: 'info' },
      { area: 'Storage', figure: 'bytes an idempotent replay adds to the write-ahead log', measured: `${fmt(r.replayBytes, 0)} B`, target: '<= 2,048 B', verdict: verdict(r.replayBytes <= 2048) },
      { area: 'Storage', figure: 'bytes a GET adds to the write-ahead log', measured: `${fmt(r.getBytes, 0)} B`, target: '0 B', verdict: verdict(r.getBytes === 0) },
      { area: 'Storage', figure: 'bytes an accept alone (one transaction) adds to the write-ahead log', measured: `${fmt(r.mutationBytes, 0)} B`, target: '', verdict: 'info' },
      { area: 'Storage', figure: 'bytes the --data server wrote to disk per request in the last window (/proc/PID/io)', measured: `${fmt(last.writtenPerRequest, 0)} B`, target: '', verdict: 'info' },
      { area: 'Storage', figure: `RSS in the last window: --data / memory-only`, measured: `${fmt(last.rssMb, 0)} MB / ${fmt(lastMemory.rssMb, 0)} MB`, target: '', verdict: 'info' },
    ];
  },
  'durable-object'(result) {
    type Engine = { lifecyclesPerSecond: number; bytesPerTenant: number; databaseBytesPerTenant: number; rssMb: number; rssIdleMb: number; restartMs: number; firstAnswerMs: number };
    const r = result as { tenants: number; durableObjects: Engine; serveData: Engine; ratio: { lifecyclesPerSecond: number; bytesPerTenant: number; restartMs: number } };
    const on = `${r.tenants.toLocaleString('en')} tenants, tenant made + onramp lifecycle through the client, 16 in flight`;
    const both = (f: (e: Engine) => string): string => `${f(r.durableObjects)} / ${f(r.serveData)}`;
    return [
      { area: 'Scale-out', figure: `${on}: Durable Objects on workerd / serve --data`, measured: both((e) => `${fmt(e.lifecyclesPerSecond)}`) + ' lifecycles/s', target: '', verdict: 'info' },
      { area: 'Scale-out', figure: 'the same, ratio Durable Objects / serve --data (one machine: every request crosses the Worker and two objects)', measured: `x${fmt(r.ratio.lifecyclesPerSecond, 2)}`, target: '', verdict: 'info' },
      { area: 'Scale-out', figure: 'storage per tenant at rest, all files after kill -9 (databases alone), Durable Objects / serve --data', measured: both((e) => `${fmt(e.bytesPerTenant / 1024)} kB (${fmt(e.databaseBytesPerTenant / 1024)} kB)`), target: '', verdict: 'info' },
      { area: 'Scale-out', figure: 'RSS after the load (idle at start), Durable Objects / serve --data', measured: both((e) => `${fmt(e.rssMb, 0)} MB (${fmt(e.rssIdleMb, 0)} MB)`), target: '', verdict: 'info' },
      { area: 'Scale-out', figure: "restart after kill -9, spawn to first answer; then one tenant's first answer, Durable Objects / serve --data", measured: both((e) => `${fmt(e.restartMs, 0)} ms; ${fmt(e.firstAnswerMs, 0)} ms`), target: '', verdict: 'info' },
    ];
  },
  'big-tenant'(result) {
    const r = result as { mb: number; lifecycles: number; writeSeconds: number; readyMs: number; fullCheckReadyMs: number; firstAnswerMs: number; rssMb: number; getMs: number; listMs: number; createMs: number };
    return [
      { area: 'Storage', figure: `one tenant of ${fmt(r.mb, 0)} MB (${r.lifecycles.toLocaleString('en')} lifecycles), written in ${fmt(r.writeSeconds, 0)} s and reopened: open to ready`, measured: `${fmt(r.readyMs, 0)} ms`, target: '<= 1,000 ms', verdict: verdict(r.readyMs <= 1000) },
      { area: 'Storage', figure: 'the same, open to ready with every page read first (PRAGMA quick_check; the start skips it past 64 MiB)', measured: `${fmt(r.fullCheckReadyMs, 0)} ms`, target: '', verdict: 'info' },
      { area: 'Storage', figure: 'the same: its first answer (the tenant loads), and RSS then', measured: `${fmt(r.firstAnswerMs, 0)} ms, ${fmt(r.rssMb, 0)} MB`, target: '', verdict: 'info' },
      { area: 'Storage', figure: 'the same, loaded: retrieve / list of 10 / create a user', measured: `${fmt(r.getMs, 2)} / ${fmt(r.listMs, 2)} / ${fmt(r.createMs, 2)} ms`, target: '', verdict: 'info' },
    ];
  },
  'test-sandboxes'(result) {
    const r = result as { count: number; startBytes: number | null; endBytes: number | null; heldBytes: number | null; timersBefore: number; timersAfter: number };
    const mb = (n: number): string => `${fmt(n / 1048576, 1)} MB`;
    if (r.startBytes === null || r.endBytes === null || r.heldBytes === null) {
      return [{ area: 'Testing kit', figure: `heap after ${r.count.toLocaleString('en')} test sandboxes made and closed`, measured: 'n/a (run with --expose-gc)', target: '', verdict: 'n/a' }];
    }
    const retained = r.endBytes - r.startBytes;
    const held = r.heldBytes - r.startBytes;
    return [
      {
        area: 'Testing kit',
        figure: `heap after ${r.count.toLocaleString('en')} test sandboxes with pending timers, each closed: over the start (${mb(retained)}, ${fmt(retained / r.count, 0)} B each) / holding them all (${mb(held)})`,
        measured: `${fmt((100 * retained) / held, 2)} %`,
        target: '<= 1.00 %',
        verdict: verdict(retained <= held / 100),
      },
      { area: 'Testing kit', figure: 'real timers left running after the suite', measured: String(r.timersAfter - r.timersBefore), target: '0', verdict: verdict(r.timersAfter <= r.timersBefore) },
    ];
  },
  memory(result) {
    const r = result as MemoryFigures;
    const kb = (bytes: number): string => `${fmt(bytes / 1024, 2)} kB`;
    const rows: Row[] = [
      {
        area: 'Memory',
        figure: `live heap per onramp lifecycle after a full GC, ${r.lifecycles.toLocaleString('en')} lifecycles over ${r.tenants} tenants, all within the idempotency window${r.gc ? '' : ' (no --expose-gc: rough)'}`,
        measured: kb(r.bytesPerLifecycle),
        target: '<= 6.00 kB',
        verdict: r.gc ? verdict(r.bytesPerLifecycle <= 6 * 1024) : 'n/a',
      },
      ...r.kinds.map((k) => ({ area: 'Memory', figure: `of which ${k.kind} (${k.count.toLocaleString('en')} kept)`, measured: `${Math.round(k.bytesPerLifecycle)} B`, target: '', verdict: 'info' as const })),
      { area: 'Memory', figure: 'of which everything else (interned strings, memos)', measured: `${Math.round(r.restPerLifecycle)} B`, target: '', verdict: 'info' },
      {
        area: 'Memory',
        figure: `webhook deliveries to one endpoint subscribed to every event, per lifecycle (${r.deliveries.lifecycles.toLocaleString('en')} lifecycles, one tenant)`,
        measured: `${Math.round(r.deliveries.bytesPerLifecycle)} B`,
        target: '',
        verdict: 'info',
      },
    ];
    for (const g of r.growth) {
      rows.push({ area: 'Growth', figure: `heap per conversion at ${g.conversions.toLocaleString('en')} conversions (one tenant, every lifecycle record kept)`, measured: kb(g.bytesPerConversion), target: '', verdict: 'info' });
      if (g.afterWindow !== undefined) {
        rows.push({ area: 'Growth', figure: `the same 25 hours later, the idempotency records expired`, measured: kb(g.afterWindow), target: '', verdict: 'info' });
      }
    }
    const first = r.growth[0];
    const last = r.growth[r.growth.length - 1];
    if (first && last && last !== first) {
      for (const [name, pick] of [
        ['GET /v1/conversions/{id}', (g: MemoryFigures['growth'][number]['reference']) => g.get],
        ['GET /v1/conversions?limit=50', (g: MemoryFigures['growth'][number]['reference']) => g.list],
        ['GET /v1/conversions?user_id=...', (g: MemoryFigures['growth'][number]['reference']) => g.listByUser],
      ] as const) {
        const ratio = us(pick(last)) / us(pick(last.reference));
        rows.push({
          area: 'Growth',
          figure: `${name} at ${last.conversions.toLocaleString('en')} / at ${first.conversions.toLocaleString('en')} conversions, side by side (${fmt(us(pick(last)), 0)} us vs ${fmt(us(pick(last.reference)), 0)} us)`,
          measured: `x${fmt(ratio, 2)}`,
          target: '<= x1.50',
          verdict: verdict(ratio <= 1.5),
        });
      }
    }
    return rows;
  },
  scale(result) {
    const r = result as { count: number; bytesPerConversion: number | null; lists: Array<{ filter: string; small: Fig; large: Fig; ratio: number }> };
    const rows: Row[] = [
      {
        area: 'Scale',
        figure: `memory per stored conversion (${r.count.toLocaleString('en')} in one tenant)`,
        measured: r.bytesPerConversion === null ? 'n/a (run with --expose-gc)' : `${Math.round(r.bytesPerConversion)} B`,
        target: '< 1,536 B',
        verdict: r.bytesPerConversion === null ? 'n/a' : verdict(r.bytesPerConversion < 1536),
      },
    ];
    for (const l of r.lists) {
      rows.push({
        area: 'Scale',
        figure: `list ${l.filter}, first page of 50: at ${r.count.toLocaleString('en')} / at 1,000 (${fmt(us(l.large), 0)} us vs ${fmt(us(l.small), 0)} us)`,
        measured: `x${fmt(l.ratio, 2)}`,
        target: '<= x1.50',
        verdict: verdict(l.ratio <= 1.5),
      });
    }
    return rows;
  },
  'noisy-neighbour'(result) {
    const figures = result as Array<{ scenario: string; delivered: number; expected: number; p50Ms: number; p99Ms: number; maxMs: number; aMostOpen: number; endpoints: number }>;
    const alone = figures.find((f) => f.endpoints === 0);
    if (!alone) throw new Error('bench/noisy-neighbour.ts did not measure B alone');
    // B keeps its latency: within twice its p99 alone, or 250 ms over it (a busy machine's noise).
    const bound = Math.max(2 * alone.p99Ms, alone.p99Ms + 250);
    return figures.map((f) => {
      const isAlone = f === alone;
      const ok = f.delivered === f.expected && f.p99Ms <= bound;
      return {
        area: 'Webhooks (neighbours)',
        figure: `${f.scenario}: B's p99 (p50 ${f.p50Ms} ms, max ${f.maxMs} ms, ${f.delivered}/${f.expected} delivered)${isAlone ? '' : `; A's receiver held at most ${f.aMostOpen} connections`}`,
        measured: `${f.p99Ms} ms`,
        target: isAlone ? '(reference)' : `<= ${Math.round(bound)} ms`,
        verdict: isAlone ? (f.delivered === f.expected ? 'info' : 'MISS') : verdict(ok),
      };
    });
  },
  'tenant-attack'(result) {
    const f = result as { attackers: number; endpoints: number; delivered: number; expected: number; p50Ms: number; p99Ms: number; maxMs: number; heldAtStart: number; heldLeast: number; heldMost: number };
    return [
      {
        area: 'Webhooks (ten-tenant attack)',
        figure: `${f.attackers} tenants x ${f.endpoints} endpoints that never answer: a new tenant's p99 (p50 ${f.p50Ms} ms, max ${f.maxMs} ms, ${f.delivered}/${f.expected} delivered); the attackers held ${f.heldAtStart} connections at its start, at least ${f.heldLeast} while it ran, at most ${f.heldMost}`,
        measured: `${f.p99Ms} ms`,
        target: '< 1,000 ms',
        verdict: verdict(f.delivered === f.expected && f.p99Ms < 1_000),
      },
    ];
  },
  'sandbox-lifetime'(result) {
    const r = result as { phases: Array<{ name: string; count: number; alive: number; heapDeltaBytes: number; seconds: number }>; keptBytesPerSandbox: number; rearm: { weakNs: number; closureNs: number } };
    const rows: Row[] = r.phases.map((p) => ({
      area: 'Sandbox lifetime',
      figure: `${p.count.toLocaleString('en')} real-time sandboxes with pending timers, ${p.name}: heap over its start after gc (${p.alive} not collected)`,
      measured: `${fmt(p.heapDeltaBytes / 1e6, 2)} MB`,
      // Back to its start: under 1 MB for 5,000 (200 B a sandbox, against ~80 kB each when kept).
      target: '< 1.00 MB, 0 alive',
      verdict: verdict(p.alive === 0 && p.heapDeltaBytes < 1e6),
    }));
    rows.push(
      { area: 'Sandbox lifetime', figure: 'heap held by a kept sandbox with a user, a quote and a pending retry', measured: `${fmt(r.keptBytesPerSandbox / 1000)} kB`, target: '', verdict: 'info' },
      {
        area: 'Sandbox lifetime',
        figure: `re-arming the real timer with a weak reference / with a closure (${fmt(r.rearm.weakNs, 0)} ns vs ${fmt(r.rearm.closureNs, 0)} ns)`,
        measured: `x${fmt(r.rearm.weakNs / r.rearm.closureNs, 2)}`,
        target: '(the cost of the weak reference)',
        verdict: 'info',
      },
    );
    return rows;
  },
};

const MODULES = ['client', 'cold-start', 'webhooks', 'webhooks-browser', 'bundle', 'sandbox', 'lifecycle', 'scale', 'memory', 'server', 'persistence', 'soak', 'neighbours', 'noisy-neighbour', 'tenant-attack', 'sandbox-lifetime', 'test-sandboxes', 'durable-object'] as const;
// Run only when named with --only: minutes long.
const ON_REQUEST = ['big-tenant'] as const;

function markdown(rows: Row[], notes: string[], seconds: number, load: number): string {
  const cpus = availableParallelism();
  // A load above the cores means other work ran beside the bench: its absolute figures are low, its ratios noisy.
  const busy = load > cpus ? ` (a busy machine: figures to re-take on a quiet one)` : '';
  const lines = [
    `Run of ${new Date().toISOString().slice(0, 10)} on Node ${process.version}, ${cpus} cores, load average ${load.toFixed(1)}${busy}, in ${Math.round(seconds)} s.`,
    '',
    '| Area | Figure | Measured | Target | Verdict |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.area} | ${r.figure.replaceAll('|', '\\|')} | ${r.measured} | ${r.target} | ${r.verdict} |`),
  ];
  if (notes.length > 0) lines.push('', ...notes.map((n) => `- ${n}`));
  return lines.join('\n');
}

const RESULT = '@@bench-result ';

// One module, in the child process the parent started: its figures go back on one stdout line.
async function child(name: string): Promise<void> {
  const mod = (await import(`./${name}.ts`)) as { run?: () => Promise<unknown> };
  if (typeof mod.run !== 'function') throw new Error(`bench/${name}.ts exports no run()`);
  const result = await mod.run();
  process.stdout.write(`\n${RESULT}${JSON.stringify(result)}\n`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const childAt = args.indexOf('--child');
  if (childAt >= 0) return child(args[childAt + 1] ?? '');
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? '').split(',') : null;
  const started = performance.now();
  // The load before the bench itself adds to it: what other work was running.
  const loadBefore = loadavg()[0] ?? 0;
  const rows: Row[] = [];
  const notes: string[] = [];
  // Flags of one module (`--soak-seconds 900`) go to its process.
  const passed: string[] = [];
  for (let i = 0; i < args.length; i++) if (/^--(soak|big|do)-/.test(args[i] as string)) passed.push(args[i] as string, args[++i] ?? '');
  for (const name of [...MODULES, ...ON_REQUEST]) {
    if (only ? !only.includes(name) : (ON_REQUEST as readonly string[]).includes(name)) continue;
    // Each module in a fresh process: what one leaves behind (heap, JIT state, loaded SDKs)
    // must not tilt the next one's figures.
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', name, ...passed], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
    });
    const lines = (child.stdout ?? '').split('\n');
    const resultLine = lines.find((line) => line.startsWith(RESULT));
    process.stdout.write(lines.filter((line) => !line.startsWith(RESULT)).join('\n'));
    if (child.status !== 0 || resultLine === undefined) {
      const message = `bench/${name}.ts failed (exit ${child.status ?? child.signal})`;
      console.log(`\n${message}`);
      notes.push(message);
      continue;
    }
    try {
      rows.push(...(READERS[name] as Reader)(JSON.parse(resultLine.slice(RESULT.length))));
    } catch (error) {
      const message = `bench/${name}.ts gave figures bench/run.ts cannot read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
      console.log(`\n${message}`);
      notes.push(message);
    }
  }
  const block = markdown(rows, notes, (performance.now() - started) / 1000, loadBefore);
  console.log(`\n${block}\n`);
  if (args.includes('--no-write') || only) return;
  const doc = readFileSync(DOC, 'utf8');
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) {
    console.log(`docs/performance.md has no ${START} ... ${END} markers: not written.`);
    return;
  }
  writeFileSync(DOC, `${doc.slice(0, from + START.length)}\n${block}\n${doc.slice(to)}`);
  console.log('Figures written to docs/performance.md.');
}

await main();
