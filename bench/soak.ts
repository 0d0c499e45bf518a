/**
 * The soak of issue 28: a team's shared sandbox used for weeks, compressed into minutes. Two real
 * servers (`dist/cli.js serve`, one process each), memory-only and `--data`, side by side: 20
 * tenants, 16 requests in flight, each loop a full onramp lifecycle (user, KYC, quote, accept, Pix
 * paid and settled, retrieve, an idempotent replay of the accept, a list). Windows alternate
 * between the two servers, so that a burst of noise on this shared machine hits both; each
 * window prints lifecycles a second, p50 / p99 / max latency of every request, RSS (peak), the
 * folder's size and the bytes the server process wrote to disk per request (/proc/PID/io).
 * Then the `--data` server is killed (-9) and restarted: time to the ready line, and to the first
 * answer of a tenant (loaded on use). Last, in process on a fresh folder: the bytes an idempotent
 * replay and a GET add to the database's write-ahead log.
 *
 * `--phases` runs the memory-only server's windows first, then the `--data` server's (the method of
 * the outside measurement in issue 34) instead of alternating; both print the ratio over all windows.
 *
 * The load comes from its own process (bench/soak-load.ts: raw keep-alive sockets, the same
 * requests; issue 34, fourth pass), and each window prints that process's CPU per lifecycle beside
 * each server's own. `--client` is the method until then: the full `PixUsdt` client in this
 * process, whose CPU per lifecycle capped the memory-only server's rate (docs/performance.md,
 * "`serve --data` by the outside method").
 *
 *   npm run build && node --import tsx bench/soak.ts [--seconds 60] [--window 5] [--tenants 20] [--concurrency 16] [--phases] [--client] [--baseline DIR] [--profile DIR]
 *   (npm run bench runs it with the defaults; `npm run bench -- --only soak --soak-seconds 900` for longer)
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PixUsdt } from '../src/index.js';
import { openDataStore } from '../src/server/data/store.js';
import { WALLET, cpf } from '../test/support/fixtures.js';
import { unminifiedCli } from './server.js';
import type { SoakCommand, SoakRound } from './soak-load.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
// Volume limits far above what a soak moves (20 BRL a lifecycle), and no quote rate limit.
const FLAGS = [
  '--quote-rate-limit',
  '0',
  ...['platform.daily', 'platform.monthly', 'partner.daily', 'partner.monthly'].flatMap((l) => ['--limit', `${l}=100000000000.00`]),
];

/** Options of the soak. */
export interface SoakOptions {
  /** Seconds of load per server (split in windows). */
  seconds: number;
  /** Seconds per window. */
  window: number;
  tenants: number;
  concurrency: number;
  /**
   * `--phases`: the memory-only server's windows all first, then the `--data` server's (the two
   * phases one after the other, as measured from outside for issue 34), instead of alternating.
   */
  phases?: boolean;
  /**
   * `--client`: the load from the full `PixUsdt` client in this process (the method until issue
   * 34's fourth pass) instead of bench/soak-load.ts in its own process.
   */
  client?: boolean;
  /**
   * `--baseline DIR`: DIR/dist/cli.js (another build: main's, say) serves a memory-only and a
   * `--data` server beside this build's two, its windows in the same order; A/B figures only.
   */
  baseline?: string | undefined;
  /**
   * `--profile DIR`: this build's `--data` server runs from the sources built without minifying
   * (as bench/server.ts --profile builds them) under `--cpu-prof`, its profile written to DIR when
   * it stops (SIGTERM, before the kill -9 restart), beside that build (DIR/cli); its figures then
   * include the profiler's cost.
   */
  profile?: string | undefined;
}

/** One window of one server. */
export interface SoakWindow {
  server: 'memory' | 'data';
  /** `baseline`: a window of the `--baseline` build's server. */
  build?: 'baseline';
  at: number;
  lifecycles: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  rssMb: number;
  peakRssMb: number;
  folderMb: number | null;
  writtenPerRequest: number;
  requests: number;
  errors: number;
  /** The server process's CPU time per lifecycle in the window, in ms (/proc/PID/stat). */
  serverCpuMs: number;
  /** The load generator's CPU time per lifecycle, in ms (this process's with `--client`). */
  generatorCpuMs: number;
}

/** Everything the soak measured. */
export interface SoakResult {
  options: SoakOptions;
  windows: SoakWindow[];
  /** The `--data` server's restart after the soak, and the memory-only server's start beside it (the same process start). */
  restart: { readyMs: number; firstAnswerMs: number; folderMb: number; memoryStartMs: number };
  replayBytes: number;
  getBytes: number;
  mutationBytes: number;
}

interface Server {
  name: 'memory' | 'data';
  baseline?: true;
  process: ChildProcess;
  url: string;
  keys: string[];
  dir: string | null;
}

async function start(name: Server['name'], dir: string | null, cli = CLI, profile?: string): Promise<{ server: Server; readyMs: number }> {
  const started = performance.now();
  const args = ['serve', '--port', '0', ...FLAGS, ...(dir === null ? [] : ['--data', dir])];
  const node = profile === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profile, '--cpu-prof-interval', '200'];
  // Request log lines go to stderr: dropped, as a terminal would scroll them.
  // NODE_PATH: a profiled build lives in a temporary folder, from which `--data` must still find libsql.
  const env = { ...process.env, NODE_PATH: fileURLToPath(new URL('../node_modules', import.meta.url)) };
  const child = spawn(process.execPath, [...node, cli, ...args], { stdio: ['ignore', 'pipe', 'ignore'], env });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before listening`)));
  });
  const readyMs = performance.now() - started;
  const ready = JSON.parse(line) as { url: string; api_key: string };
  return { server: { name, process: child, url: ready.url, keys: [ready.api_key], dir }, readyMs };
}

function procStatus(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** The process's user + system CPU time in ms (/proc/PID/stat, fields 14 and 15). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function writtenBytes(pid: number): number {
  return Number(/write_bytes: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) total += statSync(path.join(dir, name)).size;
  return total;
}

/** One full onramp lifecycle; every request's latency goes to `latencies`. */
async function lifecycle(client: PixUsdt, n: number, timed: <T>(p: () => Promise<T>) => Promise<T>): Promise<void> {
  const user = await timed(() => client.users.create({ external_id: `soak-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) }));
  await timed(() => client.testHelpers.users.kyc(user.id, { status: 'approved' }));
  const quote = await timed(() =>
    client.quotes.create({ user_id: user.id, source_currency: 'BRL', target_currency: 'USDT', source_amount: '20.00', destination_wallet_address: WALLET, destination_wallet_network: 'polygon' }),
  );
  const key = `accept-${n}`;
  const conversion = await timed(() => client.quotes.accept(quote.id, undefined, { idempotencyKey: key }));
  await timed(() => client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id, { settle: true }));
  await timed(() => client.conversions.retrieve(conversion.id));
  const replay = await timed(() => client.quotes.accept(quote.id, undefined, { idempotencyKey: key }));
  if (replay.id !== conversion.id) throw new Error('the replay answered another conversion');
  await timed(() => client.conversions.list({ limit: 10 }));
}

let counter = 0;

/** The load of one window: from this process through the client (`--client`), or from bench/soak-load.ts. */
interface Load {
  run(server: Server, ms: number): Promise<SoakRound>;
  close(): void;
}

/** The old method: the full `PixUsdt` client in this process, one per tenant. */
function clientLoad(servers: Server[], concurrency: number): Load {
  const clients = new Map(servers.map((s) => [s, s.keys.slice(1).map((apiKey) => new PixUsdt({ apiKey, baseUrl: s.url, maxRetries: 0, timeoutMs: 30_000 }))]));
  return {
    async run(server, ms) {
      const of = clients.get(server) as PixUsdt[];
      const latencies: number[] = [];
      let errors = 0;
      let firstError: string | undefined;
      const timed = async <T>(p: () => Promise<T>): Promise<T> => {
        const t0 = performance.now();
        try {
          return await p();
        } finally {
          latencies.push(performance.now() - t0);
        }
      };
      const cpu0 = process.cpuUsage();
      const started = performance.now();
      const end = started + ms;
      let lifecycles = 0;
      const worker = async (w: number): Promise<void> => {
        while (performance.now() < end) {
          const n = counter++;
          try {
            await lifecycle(of[(n + w) % of.length] as PixUsdt, n, timed);
            lifecycles++;
          } catch (e) {
            errors++;
            firstError ??= String(e);
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
      const cpu = process.cpuUsage(cpu0);
      const round: SoakRound = { lifecycles, latencies, errors, ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 };
      if (firstError !== undefined) round.firstError = firstError;
      return round;
    },
    close() {},
  };
}

/** The new method: bench/soak-load.ts in its own process, over IPC. */
function processLoad(concurrency: number): Load {
  const child = fork(fileURLToPath(new URL('./soak-load.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    run: (server, ms) =>
      new Promise<SoakRound>((resolve, reject) => {
        const onExit = (code: number | null): void => reject(new Error(`the soak's load generator exited (${code})`));
        child.once('exit', onExit);
        child.once('message', (round: SoakRound) => {
          child.off('exit', onExit);
          resolve(round);
        });
        const command: SoakCommand = { port: Number(new URL(server.url).port), keys: server.keys.slice(1), ms, inFlight: concurrency };
        child.send(command);
      }),
    close: () => child.kill(),
  };
}

async function window(server: Server, load: Load, options: SoakOptions, at: number): Promise<SoakWindow> {
  const pid = server.process.pid as number;
  const written0 = writtenBytes(pid);
  const cpu0 = cpuMs(pid);
  const round = await load.run(server, options.window * 1000);
  const serverCpu = cpuMs(pid) - cpu0;
  const latencies = round.latencies.sort((a, b) => a - b);
  const q = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  const written = writtenBytes(pid) - written0;
  const { rssMb, peakRssMb } = procStatus(pid);
  const per = (ms: number): number => (round.lifecycles === 0 ? 0 : ms / round.lifecycles);
  if (round.firstError !== undefined && round.lifecycles === 0) throw new Error(`${server.name}: no lifecycle: ${round.firstError}`);
  return {
    server: server.name,
    ...(server.baseline === true ? { build: 'baseline' as const } : {}),
    at,
    lifecycles: round.lifecycles,
    perSecond: round.lifecycles / (round.ms / 1000),
    p50: q(0.5),
    p99: q(0.99),
    max: latencies.at(-1) ?? 0,
    rssMb,
    peakRssMb,
    folderMb: server.dir === null ? null : folderBytes(server.dir) / 1e6,
    writtenPerRequest: latencies.length === 0 ? 0 : written / latencies.length,
    requests: latencies.length,
    errors: round.errors,
    serverCpuMs: per(serverCpu),
    generatorCpuMs: per(round.cpuMs),
  };
}

async function addTenants(server: Server, count: number): Promise<void> {
  const admin = new PixUsdt({ apiKey: server.keys[0] as string, baseUrl: server.url, maxRetries: 0 });
  for (let i = 0; i < count; i++) {
    const res = await admin.testHelpers.tenants.create({});
    server.keys.push(res.api_key);
  }
}

function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** What an idempotent replay, a GET and an accept add to the database's write-ahead log, in process. */
async function bytesPerRequest(): Promise<{ replayBytes: number; getBytes: number; mutationBytes: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-soak-bytes-'));
  const store = openDataStore(dir, { quoteRateLimit: 0 });
  try {
    const client = new PixUsdt({ apiKey: store.sandbox.apiKey, fetch: store.sandbox.fetch, maxRetries: 0 });
    const wal = path.join(store.dir, 'data.db-wal');
    const size = (): number => (existsSync(wal) ? statSync(wal).size : 0);
    const N = 20;
    const conversions: Array<{ quoteId: string; id: string }> = [];
    for (let i = 0; i < N; i++) {
      const user = await client.users.create({ external_id: `b-${i}`, name: 'B', document_type: 'cpf', document_number: cpf(900_000 + i) });
      await client.testHelpers.users.kyc(user.id, { status: 'approved' });
      const quote = await client.quotes.create({ user_id: user.id, source_currency: 'BRL', target_currency: 'USDT', source_amount: '20.00', destination_wallet_address: WALLET, destination_wallet_network: 'polygon' });
      conversions.push({ quoteId: quote.id, id: '' });
    }
    await new Promise((resolve) => setImmediate(resolve));
    // An accept of each: the bytes of an answered mutation of this kind.
    let before = size();
    for (const [i, c] of conversions.entries()) c.id = (await client.quotes.accept(c.quoteId, undefined, { idempotencyKey: `k-${i}` })).id;
    await new Promise((resolve) => setImmediate(resolve));
    const mutationBytes = (size() - before) / N;
    before = size();
    for (const [i, c] of conversions.entries()) await client.quotes.accept(c.quoteId, undefined, { idempotencyKey: `k-${i}` });
    await new Promise((resolve) => setImmediate(resolve));
    const replayBytes = (size() - before) / N;
    before = size();
    for (const c of conversions) {
      await client.conversions.retrieve(c.id);
      await client.conversions.list({ limit: 10 });
    }
    await new Promise((resolve) => setImmediate(resolve));
    const getBytes = (size() - before) / (2 * N);
    return { replayBytes, getBytes, mutationBytes };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const f1 = (n: number): string => n.toFixed(1);
const f2 = (n: number): string => n.toFixed(2);

function print(w: SoakWindow): void {
  const folder = w.folderMb === null ? '-' : `${f1(w.folderMb)} MB`;
  console.log(
    `${w.build === 'baseline' ? 'base ' : ''}${w.server.padEnd(6)} ${String(Math.round(w.at)).padStart(5)} s  ${f1(w.perSecond).padStart(6)} lifecycles/s  CPU/lifecycle server ${f2(w.serverCpuMs)} ms, load ${f2(w.generatorCpuMs)} ms  p50 ${f1(w.p50)} / p99 ${f1(w.p99)} / max ${f1(w.max)} ms  RSS ${Math.round(w.rssMb)} MB (peak ${Math.round(w.peakRssMb)})  folder ${folder}  ${Math.round(w.writtenPerRequest)} B written/request${w.errors > 0 ? `  ${w.errors} errors` : ''}`,
  );
}

function optionsFrom(argv: readonly string[]): SoakOptions {
  const value = (name: string, fallback: number): number => {
    const at = argv.findIndex((a) => a === `--${name}` || a === `--soak-${name}`);
    const raw = at >= 0 ? Number(argv[at + 1]) : Number.NaN;
    return Number.isFinite(raw) && raw > 0 ? raw : fallback;
  };
  return { seconds: value('seconds', 30), window: value('window', 5), tenants: value('tenants', 20), concurrency: value('concurrency', 16), phases: argv.includes('--phases') || argv.includes('--soak-phases'), client: argv.includes('--client') || argv.includes('--soak-client'),
    baseline: argv.includes('--baseline') ? argv[argv.indexOf('--baseline') + 1] : undefined,
    profile: argv.includes('--profile') ? argv[argv.indexOf('--profile') + 1] : undefined,
  };
}

/** The soak, side by side (see the module comment). */
export async function run(options: SoakOptions = optionsFrom(process.argv)): Promise<SoakResult> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first.`);
  const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-soak-'));
  const data = path.join(dir, 'data');
  const memoryStart = await start('memory', null);
  const memory = memoryStart.server;
  let stored = (await start('data', data, options.profile === undefined ? CLI : await unminifiedCli(path.join(options.profile, 'cli')), options.profile)).server;
  const windows: SoakWindow[] = [];
  let load: Load | undefined;
  const base: Server[] = [];
  if (options.baseline !== undefined) {
    const cli = path.join(options.baseline, 'dist', 'cli.js');
    base.push({ ...(await start('memory', null, cli)).server, baseline: true }, { ...(await start('data', path.join(dir, 'base-data'), cli)).server, baseline: true });
  }
  try {
    await addTenants(memory, options.tenants);
    await addTenants(stored, options.tenants);
    for (const s of base) await addTenants(s, options.tenants);
    const servers = [memory, stored, ...base];
    load = options.client === true ? clientLoad(servers, options.concurrency) : processLoad(options.concurrency);
    console.log(
      `soak: ${options.tenants} tenants, ${options.concurrency} in flight, ${options.seconds} s a server in windows of ${options.window} s, ${options.phases === true ? 'one server after the other' : 'alternating'}, load ${options.client === true ? 'from the PixUsdt client in this process (--client)' : 'from its own process (bench/soak-load.ts)'}`,
    );
    // Warm-up (JIT of the servers and of the load, connections): not counted.
    await window(memory, load, { ...options, window: 2 }, 0);
    await window(stored, load, { ...options, window: 2 }, 0);
    for (const s of base) await window(s, load, { ...options, window: 2 }, 0);
    const rounds = Math.max(2, Math.round(options.seconds / options.window));
    const order: Array<[Server, number]> = [];
    if (options.phases === true) for (const s of servers) for (let i = 0; i < rounds; i++) order.push([s, i]);
    else for (let i = 0; i < rounds; i++) for (const s of servers) order.push([s, i]);
    for (const [s, i] of order) {
      const w = await window(s, load, options, (i + 1) * options.window);
      windows.push(w);
      print(w);
    }
    // The whole of each server's windows: the figure a measurement from outside takes.
    const mean = (server: SoakWindow['server'], field: 'perSecond' | 'serverCpuMs' | 'generatorCpuMs', baseline = false): number => {
      const of = windows.filter((w) => w.server === server && (w.build === 'baseline') === baseline);
      return of.reduce((n, w) => n + w[field], 0) / of.length;
    };
    for (const baseline of base.length === 0 ? [false] : [false, true]) {
      const m = (server: SoakWindow['server'], field: 'perSecond' | 'serverCpuMs' | 'generatorCpuMs'): number => mean(server, field, baseline);
      const of = baseline ? 'baseline: ' : '';
      console.log(`${of}--data / memory-only over all their windows: ${f1(m('data', 'perSecond'))} / ${f1(m('memory', 'perSecond'))} lifecycles/s = x${(m('data', 'perSecond') / m('memory', 'perSecond')).toFixed(2)}`);
      console.log(
        `${of}CPU per lifecycle: memory-only server ${f2(m('memory', 'serverCpuMs'))} ms, --data server ${f2(m('data', 'serverCpuMs'))} ms (memory / data x${(m('memory', 'serverCpuMs') / m('data', 'serverCpuMs')).toFixed(2)}); the load ${f2(m('memory', 'generatorCpuMs'))} ms (memory-only windows), ${f2(m('data', 'generatorCpuMs'))} ms (--data windows)`,
      );
    }
    if (base.length > 0) {
      const cpu = (server: SoakWindow['server']): string => `x${(mean(server, 'serverCpuMs', true) / mean(server, 'serverCpuMs')).toFixed(2)}`;
      console.log(`baseline / this build, CPU per lifecycle: memory-only ${cpu('memory')}, --data ${cpu('data')}`);
    }
    // A restart after the soak: kill -9, then the time to the ready line and to a tenant's first answer.
    // A profiled server writes its profile only when it exits of itself.
    await stop(stored.process, options.profile === undefined ? 'SIGKILL' : 'SIGTERM');
    const keys = stored.keys;
    const restarted = await start('data', data);
    stored = { ...restarted.server, keys };
    const t0 = performance.now();
    const first = await fetch(`${stored.url}/v1/conversions?limit=10`, { headers: { authorization: `Bearer ${keys[1] as string}` } });
    if (first.status !== 200) throw new Error(`the first answer after the restart was ${first.status}`);
    await first.text();
    const restart = { readyMs: restarted.readyMs, firstAnswerMs: performance.now() - t0, folderMb: folderBytes(data) / 1e6, memoryStartMs: memoryStart.readyMs };
    console.log(
      `restart after kill -9 with ${f1(restart.folderMb)} MB: ready in ${Math.round(restart.readyMs)} ms (the memory-only server started in ${Math.round(restart.memoryStartMs)} ms), a tenant's first answer ${Math.round(restart.firstAnswerMs)} ms later`,
    );
    const bytes = await bytesPerRequest();
    console.log(`write-ahead log per request: accept ${Math.round(bytes.mutationBytes)} B, idempotent replay ${Math.round(bytes.replayBytes)} B, GET ${Math.round(bytes.getBytes)} B`);
    return { options, windows, restart, ...bytes };
  } finally {
    load?.close();
    for (const s of base) await stop(s.process);
    await stop(memory.process);
    await stop(stored.process);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
