/**
 * What `serve --data` costs: requests a second of the real server (`dist/cli.js serve`, one
 * process each) without and with `--data`, side by side, under the same concurrent load of
 * answered mutations (POST /v1/users, each with an Idempotency-Key). Rounds alternate the
 * servers so that a burst of noise hits both. Two spreads of the load: over 50 tenants (a
 * tenant per test, as the docs advise) and into one tenant (its journal line grows with it).
 * Each spread is measured twice on the same two servers: in their first seconds (a 0.3 s warm-up,
 * then the rounds: the method of issues 28 and 34), then again at a steady state (after those
 * rounds and {@link STEADY_WARMUP_MS} more of load on each). In the first method both servers are
 * still speeding up round after round (memory-only from about 500 to 1,300 a second, `--data` from
 * about 470 to 1,100), so its median is a point on two climbing curves; the second says what a
 * server that has been running costs (docs/performance.md).
 *
 *   npm run build && node --import tsx bench/persistence.ts
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpf } from '../test/support/fixtures.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const CONCURRENCY = 16;
/** Load on each server before the steady-state rounds, after the first-seconds ones. */
const STEADY_WARMUP_MS = 5_000;

interface Server {
  name: string;
  process: ChildProcess;
  url: string;
  keys: string[];
}

/** One figure: the median over the rounds. */
export interface PersistenceFigure {
  name: string;
  spread: string;
  /** `first seconds`: a 0.3 s warm-up (the issues' method); `steady`: after {@link STEADY_WARMUP_MS} more. */
  phase: 'first seconds' | 'steady';
  opsPerSecond: number;
  rounds: number[];
}

async function start(name: string, args: string[]): Promise<Server> {
  // Request log lines go to stderr: ignored, as a partner's terminal would scroll them.
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before listening`)));
  });
  const ready = JSON.parse(line) as { url: string; api_key: string };
  return { name, process: child, url: ready.url, keys: [ready.api_key] };
}

async function post(server: Server, key: string, route: string, body: string, idempotencyKey: string): Promise<Response> {
  const res = await fetch(server.url + route, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body,
  });
  return res;
}

async function addTenants(server: Server, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await post(server, server.keys[0] as string, '/v1/test_helpers/tenants', '{}', `tenant-${i}`);
    server.keys.push(((await res.json()) as { api_key: string }).api_key);
  }
}

let counter = 0;

/** Answered mutations a second for `ms`, with {@link CONCURRENCY} requests in flight. */
async function load(server: Server, keys: string[], ms: number): Promise<number> {
  const end = performance.now() + ms;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      const n = counter++;
      const body = JSON.stringify({ external_id: `e${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
      const res = await post(server, keys[n % keys.length] as string, '/v1/users', body, `u${n}`);
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`${server.name}: POST /v1/users answered ${res.status}`);
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (done / (performance.now() - started)) * 1000;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Runs the comparison and returns the figures (bench/run.ts reads them). */
export async function run(options: { rounds?: number; roundMs?: number } = {}): Promise<PersistenceFigure[]> {
  const rounds = options.rounds ?? 7;
  const roundMs = options.roundMs ?? 700;
  const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-bench-data-'));
  const servers: Server[] = [];
  try {
    servers.push(await start('memory', []), await start('--data', ['--data', dir]));
    for (const s of servers) await addTenants(s, 50);
    const figures: PersistenceFigure[] = [];
    for (const [spread, pick] of [
      ['50 tenants', (s: Server) => s.keys.slice(1)],
      ['one tenant', (s: Server) => [s.keys[0] as string]],
    ] as const) {
      for (const [phase, warmupMs] of [
        ['first seconds', 300],
        ['steady', STEADY_WARMUP_MS],
      ] as const) {
        for (const s of servers) await load(s, pick(s), warmupMs);
        const measured = new Map<string, number[]>(servers.map((s) => [s.name, []]));
        for (let r = 0; r < rounds; r++) {
          for (const s of r % 2 === 0 ? servers : [...servers].reverse()) measured.get(s.name)?.push(await load(s, pick(s), roundMs));
        }
        for (const s of servers) {
          const xs = measured.get(s.name) as number[];
          figures.push({ name: s.name, spread, phase, opsPerSecond: Math.round(median(xs)), rounds: xs.map(Math.round) });
        }
      }
    }
    return figures;
  } finally {
    for (const s of servers) s.process.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await run();
  for (const f of figures) console.log(`${f.spread.padEnd(11)} ${f.phase.padEnd(13)} ${f.name.padEnd(7)} ${f.opsPerSecond} /s  rounds ${f.rounds.join(' ')}`);
}
