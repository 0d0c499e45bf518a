/**
 * The server's cost (issues 22 and 34): the real server (`dist/cli.js serve`, one process)
 * against a bare `node:http` server (one process) answering the same JSON bytes, under the same
 * load: 16 requests in flight over keep-alive connections, rounds alternating the two servers,
 * median round. Three requests: `GET /v1/users/{id}`, `POST /v1/users` as an idempotent replay
 * (the same Idempotency-Key and body every time: the stored answer) and `POST /v1/users` as a new
 * user (a new Idempotency-Key and a new user each time). The load comes from a generator in its
 * own process (bench/load-generator.ts: raw keep-alive sockets, cheaper per request than the bare
 * server, so that the generator is not what is measured); each round also reads each server's
 * own CPU time (/proc/PID/stat) per answer, and the generator's share of a core.
 *
 * `--profile`: no comparison; instead one server per request kind, built from the sources without
 * minifying (so that esbuild's `// src/...` comments name each line's source) and run under
 * `--cpu-prof`, loaded for a few seconds, then each profile's samples by layer (bench/profile.ts).
 *
 * `--profile --data`: the same with each server on `--data` (a fresh folder): the write path's layers.
 *
 * `--baseline DIR`: the same rounds with DIR/dist/cli.js (another build) in the bare server's
 * place: an A/B of two builds, read on the CPU per answer (steadier than answers a second on a
 * shared machine).
 *
 *   npm run build && node --import tsx bench/server.ts [--rounds 9] [--round-ms 1000] [--baseline DIR]
 *   node --import tsx bench/server.ts --profile [--data] [--seconds 4] [--top 30]
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { inspectorUiEsbuildPlugin } from '../scripts/inspector-ui.js';
import { cpf } from '../test/support/fixtures.js';
import type { LoadCommand, LoadKind, Round } from './load-generator.js';
import { type CpuProfile, type Rule, SANDBOX_RULES, monotonicMicros, shares } from './profile.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const IN_FLIGHT = 16;
// USER_HZ, the unit of /proc/PID/stat's CPU times: 100 on Linux's usual builds.
const TICKS_PER_SECOND = 100;

/** One request kind, both servers. */
export interface ServerFigure {
  request: string;
  served: number;
  bare: number;
  /** served / bare (requests a second): the figure. */
  ratio: number;
  /** Each server's own CPU per answer, median over its rounds (us; null without /proc). */
  cpuMicros: { served: number | null; bare: number | null };
  /** bare / served CPU per answer: what the ratio would be if each server had a core of its own and nothing else limited it. */
  cpuRatio: number | null;
  /** The generator's median share of a core in the bare rounds: near 1, the bare figure is the generator's, not the server's. */
  generatorBusy: number;
  rounds: { served: number[]; bare: number[] };
  /** A new user only, without `--baseline`: the floor servers ({@link FLOOR}) in the same rounds, each against bare. */
  floors?: FloorFigure[];
}

/** One floor server's figures ({@link FLOOR}), in the rounds of the new user. */
export interface FloorFigure {
  mode: FloorMode;
  perSecond: number;
  /** floor / bare (requests a second), the bare server measured in the same (floor) rounds. */
  ratio: number;
  cpuMicros: number | null;
  /** bare / floor, CPU per answer. */
  cpuRatio: number | null;
}

/** What a floor server keeps of each new user ({@link FLOOR}). */
export type FloorMode = 'objects' | 'strings' | 'nothing';

function firstLine(child: ChildProcess, name: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before listening`)));
  });
}

// The bare server: answers each request with the bytes and headers the real server gave the same
// kind of request (told by its Idempotency-Key: the replay's is fixed), after reading the body.
const BARE = `
const http = require('node:http');
const answers = JSON.parse(process.argv[1]);
for (const a of Object.values(answers)) a.headers['content-length'] = String(Buffer.byteLength(a.body));
const server = http.createServer((req, res) => {
  const a = req.method !== 'POST' ? answers.get : req.headers['idempotency-key'] === 'replay' ? answers.replay : answers.post;
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => { res.writeHead(a.status, a.headers); res.end(a.body); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
`;

/**
 * The floor of a new user (issue 34): the least any sandbox must do for one, hand-written on bare
 * node:http, with none of the contract's checks: read the body and parse it, a record with two
 * UUIDs and its timestamps, an event with a third, the answer's JSON, and (`objects`) the record
 * kept by id, CPF and external id, the answer and body kept under the Idempotency-Key and the
 * event in a log of the last 10,000 (the sandbox's default `eventLogSize`); `strings`: the same
 * kept as strings only (the record's JSON; the least a heap can keep, as no sandbox that changes
 * its records could); `nothing`: the same work, nothing kept. No validation, no CPF check, no
 * mask, no state machine, no request log. What a new user's ratio to bare can reach at best on
 * this machine by this method: the limit the 0.6 target is read against, as the minimal verifier
 * is for `constructEvent`.
 */
const FLOOR = `
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const headers = JSON.parse(process.argv[1]);
const mode = process.argv[2];
const byId = new Map(), byCpf = new Map(), byExternal = new Map(), idempotency = new Map(), events = new Array(10000);
let seq = 0;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const text = chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString();
    const b = JSON.parse(text);
    const now = new Date().toISOString();
    const user = { id: randomUUID(), external_id: b.external_id, name: b.name, document_type: b.document_type, document_number: b.document_number, kyc_status: 'pending', kyc: { id: randomUUID(), status: 'initiated', created_at: now }, created_at: now, updated_at: now };
    const event = { id: randomUUID(), type: 'user.created', created_at: now, data: user };
    const body = JSON.stringify(user);
    if (mode === 'objects') {
      byId.set(user.id, user); byCpf.set(b.document_number, user.id); byExternal.set(b.external_id, user.id);
      idempotency.set(req.headers['idempotency-key'], { body, text });
      events[seq++ % 10000] = event;
    } else if (mode === 'strings') {
      byId.set(user.id, body); byCpf.set(b.document_number, user.id); byExternal.set(b.external_id, user.id);
      idempotency.set(req.headers['idempotency-key'], body);
      events[seq++ % 10000] = body;
    }
    res.writeHead(201, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
`;

const FLOOR_MODES: readonly FloorMode[] = ['objects', 'strings', 'nothing'];

const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });

function request(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The load generator (bench/load-generator.ts), in its own process: one round at a time over IPC. */
interface Generator {
  round(port: number, kind: LoadKind, ms: number): Promise<Round>;
  close(): void;
}

function startGenerator(): Generator {
  const child = fork(fileURLToPath(new URL('./load-generator.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    round: (port, kind, ms) =>
      new Promise<Round>((resolve, reject) => {
        const onExit = (code: number | null): void => reject(new Error(`the load generator exited (${code})`));
        child.once('exit', onExit);
        child.once('message', (round: Round) => {
          child.off('exit', onExit);
          if (round.error !== undefined) reject(new Error(round.error));
          else resolve(round);
        });
        child.send({ port, kind, ms, inFlight: IN_FLIGHT } satisfies LoadCommand);
      }),
    close: () => child.kill('SIGKILL'),
  };
}

/** CPU time (user + system) of a process so far, in ms; null where /proc is not there (not Linux). */
function cpuMsOf(pid: number | undefined): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** One round on one server: its answers a second, its CPU per answer and the generator's share of a core. */
interface Measured {
  perSecond: number;
  cpuMicros: number | null;
  generatorBusy: number;
}

async function measure(generator: Generator, port: number, pid: number | undefined, kind: LoadKind, ms: number): Promise<Measured> {
  const cpu0 = cpuMsOf(pid);
  const round = await generator.round(port, kind, ms);
  const cpu1 = cpuMsOf(pid);
  return {
    perSecond: (round.done / round.ms) * 1000,
    cpuMicros: cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1000) / round.done,
    generatorBusy: round.cpuMs / round.ms,
  };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

// The headers a server sends that the bare one repeats (connection handling is each server's own).
function replayable(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (typeof v === 'string' && !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k)) out[k] = v;
  return out;
}

interface Served {
  port: number;
  auth: Record<string, string>;
  userId: string;
  kinds: Array<{ request: string; kind: LoadKind }>;
  /** The answers the bare server repeats, captured from this server. */
  answers: Record<'get' | 'post' | 'replay', { status: number; headers: Record<string, string>; body: string }>;
}

// The request kinds, over a server that answered its first requests.
async function prepare(port: number, apiKey: string): Promise<Served> {
  const auth = { authorization: `Bearer ${apiKey}` };
  const userBody = (n: number): string => JSON.stringify({ external_id: `e${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
  const jsonPost = (key: string) => ({ ...auth, 'content-type': 'application/json', 'idempotency-key': key });
  const created = await request(port, 'POST', '/v1/users', jsonPost('seed'), userBody(0));
  const userId = (JSON.parse(created.body) as { id: string }).id;
  const replayBody = userBody(1_000_000_000);
  await request(port, 'POST', '/v1/users', jsonPost('replay'), replayBody);
  const replayed = await request(port, 'POST', '/v1/users', jsonPost('replay'), replayBody);
  if (replayed.headers['idempotent-replayed'] !== 'true') throw new Error('the replay was not answered as one');
  const got = await request(port, 'GET', `/v1/users/${userId}`, auth);
  return {
    port,
    auth,
    userId,
    answers: {
      get: { status: got.status, headers: replayable(got.headers), body: got.body },
      post: { status: created.status, headers: replayable(created.headers), body: created.body },
      replay: { status: replayed.status, headers: replayable(replayed.headers), body: replayed.body },
    },
    kinds: [
      { request: 'GET /v1/users/{id}', kind: { method: 'GET', path: `/v1/users/${userId}`, headers: auth, status: 200 } },
      { request: 'POST /v1/users, an idempotent replay', kind: { method: 'POST', path: '/v1/users', headers: jsonPost('replay'), body: replayBody, status: 201 } },
      // The generator builds each body and key (`g<n>`).
      { request: 'POST /v1/users, a new user (Idempotency-Key)', kind: { newUser: true, path: '/v1/users', headers: { ...auth, 'content-type': 'application/json' }, status: 201 } },
    ],
  };
}

function serve(cli: string, nodeFlags: string[] = [], serveFlags: string[] = []): ChildProcess {
  // Request log lines go to stderr: ignored, as a partner's terminal would scroll them.
  // NODE_PATH: the profiled build lives in a temporary folder, from which `--data` must still find libsql.
  const env = { ...process.env, NODE_PATH: fileURLToPath(new URL('../node_modules', import.meta.url)) };
  return spawn(process.execPath, [...nodeFlags, cli, 'serve', '--port', '0', '--host', '127.0.0.1', ...serveFlags], { stdio: ['ignore', 'pipe', 'ignore'], env });
}

async function ready(child: ChildProcess): Promise<{ port: number; apiKey: string }> {
  const line = JSON.parse(await firstLine(child, 'serve')) as { url: string; api_key: string };
  return { port: Number(new URL(line.url).port), apiKey: line.api_key };
}

interface Target {
  port: number;
  pid: number | undefined;
  kinds: Served['kinds'];
}

/** The floor servers' rounds: each round the bare server and every floor, alternating the order; each floor's median against the bare median of the same rounds. */
async function floorRounds(
  generator: Generator,
  bare: Target,
  floors: Array<Target & { name: FloorMode }>,
  kindOf: (t: Target) => LoadKind,
  o: { rounds: number; roundMs: number; warmupMs: number; cpu: (ms: Measured[]) => number | null },
): Promise<FloorFigure[]> {
  const here: Array<Target & { name: FloorMode | 'bare' }> = [{ name: 'bare', ...bare }, ...floors];
  for (const t of floors) await generator.round(t.port, kindOf(t), o.warmupMs);
  const measured = new Map<string, Measured[]>(here.map((t) => [t.name, []]));
  for (let r = 0; r < o.rounds; r++) {
    for (const t of r % 2 === 0 ? here : [...here].reverse()) measured.get(t.name)?.push(await measure(generator, t.port, t.pid, kindOf(t), o.roundMs));
  }
  const of = (name: string): Measured[] => measured.get(name) ?? [];
  const b = median(of('bare').map((m) => m.perSecond));
  const bareCpu = o.cpu(of('bare'));
  return floors.map((f) => {
    const perSecond = median(of(f.name).map((m) => m.perSecond));
    const cpuMicros = o.cpu(of(f.name));
    return { mode: f.name, perSecond, ratio: perSecond / b, cpuMicros, cpuRatio: cpuMicros === null || bareCpu === null ? null : bareCpu / cpuMicros };
  });
}

/**
 * Runs the comparisons and returns the figures (bench/run.ts reads them). Per request kind: a
 * warm-up of each server, then `rounds` rounds of `roundMs` on each, alternating which goes
 * first; the median round of each. Until issue 34: 7 rounds of 0.7 s, the load from this process.
 */
export async function run(options: { rounds?: number; roundMs?: number; warmupMs?: number; baseline?: string | undefined } = {}): Promise<ServerFigure[]> {
  const rounds = options.rounds ?? 9;
  const roundMs = options.roundMs ?? 1000;
  const warmupMs = options.warmupMs ?? 2000;
  const children: ChildProcess[] = [];
  let generator: Generator | null = null;
  try {
    const served = serve(CLI);
    children.push(served);
    const { port, apiKey } = await ready(served);
    const prepared = await prepare(port, apiKey);
    let other: { port: number; pid: number | undefined; kinds: Served['kinds'] };
    if (options.baseline === undefined) {
      // The bare server answers the very bytes the real one answered.
      const bare = spawn(process.execPath, ['-e', BARE, JSON.stringify(prepared.answers)], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(bare);
      other = { port: (JSON.parse(await firstLine(bare, 'bare server')) as { port: number }).port, pid: bare.pid, kinds: prepared.kinds };
    } else {
      // An A/B of two builds of the server (`--baseline DIR`: DIR/dist/cli.js in the bare server's place).
      const base = serve(path.join(options.baseline, 'dist', 'cli.js'));
      children.push(base);
      const started = await ready(base);
      other = { port: started.port, pid: base.pid, kinds: (await prepare(started.port, started.apiKey)).kinds };
    }
    // The floors of a new user, beside the bare server (not in an A/B of two builds).
    const floors: Array<Target & { name: FloorMode }> = [];
    if (options.baseline === undefined) {
      for (const mode of FLOOR_MODES) {
        const floor = spawn(process.execPath, ['-e', FLOOR, JSON.stringify(prepared.answers.post.headers), mode], { stdio: ['ignore', 'pipe', 'inherit'] });
        children.push(floor);
        floors.push({ name: mode, port: (JSON.parse(await firstLine(floor, `floor server (${mode})`)) as { port: number }).port, pid: floor.pid, kinds: prepared.kinds });
      }
    }
    generator = startGenerator();
    const targets = [
      { name: 'served' as const, port, pid: served.pid, kinds: prepared.kinds },
      { name: 'bare' as const, ...other },
    ];
    const figures: ServerFigure[] = [];
    const cpu = (ms: Measured[]): number | null => (ms.some((m) => m.cpuMicros === null) ? null : median(ms.map((m) => m.cpuMicros as number)));
    for (const [k, { request, kind }] of prepared.kinds.entries()) {
      const kindOf = (t: { kinds: Served['kinds'] }): LoadKind => (t.kinds[k] as Served['kinds'][number]).kind;
      // Warm-up: the real server's JIT needs more than a round; so do the bare server's and the generator's.
      for (const t of targets) await generator.round(t.port, kindOf(t), warmupMs);
      const measured = { served: [] as Measured[], bare: [] as Measured[] };
      for (let r = 0; r < rounds; r++) {
        for (const t of r % 2 === 0 ? targets : [...targets].reverse()) measured[t.name].push(await measure(generator, t.port, t.pid, kindOf(t), roundMs));
      }
      const s = median(measured.served.map((m) => m.perSecond));
      const b = median(measured.bare.map((m) => m.perSecond));
      const cpuMicros = { served: cpu(measured.served), bare: cpu(measured.bare) };
      // The floors, a new user only: rounds of their own beside the bare server (the served/bare rounds above are as they were).
      const floorFigures = 'newUser' in kind && floors.length > 0 ? await floorRounds(generator, other, floors, kindOf, { rounds, roundMs, warmupMs, cpu }) : [];
      figures.push({
        ...(floorFigures.length > 0 ? { floors: floorFigures } : {}),
        request,
        served: Math.round(s),
        bare: Math.round(b),
        ratio: s / b,
        cpuMicros,
        cpuRatio: cpuMicros.served === null || cpuMicros.bare === null ? null : cpuMicros.bare / cpuMicros.served,
        generatorBusy: median(measured.bare.map((m) => m.generatorBusy)),
        rounds: { served: measured.served.map((m) => Math.round(m.perSecond)), bare: measured.bare.map((m) => Math.round(m.perSecond)) },
      });
    }
    return figures;
  } finally {
    generator?.close();
    agent.destroy();
    for (const c of children) c.kill('SIGKILL');
  }
}

// --- where the server's time goes (--profile) ----------------------------------------------

/** The server's own layers, before the sandbox's. */
const SERVER_RULES: readonly Rule[] = [
  { layer: 'server: stderr line of the request log', file: /server\/http\/start\.ts$/, fn: /logLine|^log$|subscribe/ },
  { layer: 'server: stderr line of the request log', file: /server\/(cli|run)\// },
  { layer: 'server: listener (read the request, write the answer)', file: /server\/http\/listener\.ts$/ },
  { layer: 'server: routing to the listener', file: /server\/http\/start\.ts$/ },
  // libsql's wrapper and its native calls (a statement's run, a transaction's exec), under --data.
  { layer: 'observer: persistence hooks', file: /node_modules\/libsql\// },
  ...SANDBOX_RULES,
  { layer: 'node:http, sockets and streams', file: /^node:(_http|http|net|stream|internal\/(streams|http|stream_base|net|js_stream|timers))/ },
  { layer: 'node:http, sockets and streams', file: /^(writev|writeBuffer|writeUtf8String|writeLatin1String|onStreamRead|afterWriteDispatched)$/ },
];

/**
 * The CLI as tsup builds it (tsup.config.ts), without minifying, into `dir`: each module keeps its
 * `// src/...` comment, which names the source of every profiled line (bench/profile.ts). Returns
 * the path of its `cli.js`. bench/soak.ts `--profile` builds it so too.
 */
export async function unminifiedCli(dir: string): Promise<string> {
  await build({
    entryPoints: { cli: fileURLToPath(new URL('../src/server/cli/main.ts', import.meta.url)) },
    outdir: dir,
    splitting: true,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    keepNames: true,
    // The CommonJS dependencies' `require`s of Node built-ins (tsup's build adds the same shim).
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    external: ['libsql'],
    plugins: [inspectorUiEsbuildPlugin],
    logLevel: 'silent',
  });
  return path.join(dir, 'cli.js');
}

/** One request kind's profile: each layer's share of the server's busy samples. */
export interface ServerProfile {
  request: string;
  perSecond: number;
  layers: Array<{ layer: string; share: number }>;
}

/**
 * Profiles the server under each request kind (one server process each, built without minifying).
 * `data`: each server runs with `--data` on a fresh folder (the write path's cost, issue 34).
 */
export async function profileServer(options: { seconds?: number; top?: number; data?: boolean } = {}): Promise<ServerProfile[]> {
  const seconds = options.seconds ?? 4;
  const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-server-profile-'));
  const children: ChildProcess[] = [];
  let generator: Generator | null = null;
  try {
    const cli = await unminifiedCli(dir);
    const out: ServerProfile[] = [];
    for (let k = 0; k < 3; k++) {
      const profiles = path.join(dir, `profile-${k}`);
      const served = serve(cli, ['--cpu-prof', '--cpu-prof-dir', profiles, '--cpu-prof-interval', '100'], options.data === true ? ['--data', path.join(dir, `data-${k}`)] : []);
      children.push(served);
      const { port, apiKey } = await ready(served);
      const prepared = await prepare(port, apiKey);
      const kind = prepared.kinds[k] as Served['kinds'][number];
      generator ??= startGenerator();
      await generator.round(port, kind.kind, 1500);
      const window = { from: monotonicMicros(), to: 0 };
      const round = await generator.round(port, kind.kind, seconds * 1000);
      const perSecond = (round.done / round.ms) * 1000;
      window.to = monotonicMicros();
      const exited = new Promise((resolve) => served.once('exit', resolve));
      served.kill('SIGINT');
      await exited;
      const file = readdirSync(profiles).find((f) => f.endsWith('.cpuprofile'));
      if (file === undefined) throw new Error('the server wrote no profile');
      const profile = JSON.parse(readFileSync(path.join(profiles, file), 'utf8')) as CpuProfile;
      if ((options.top ?? 0) > 0) console.log(`\n${kind.request}: heaviest functions`);
      const layers = [...shares(profile, SERVER_RULES, 'other (microtasks, the event loop)', options.top ?? 0, window)].map(([layer, share]) => ({ layer, share })).sort((a, b) => b.share - a.share);
      out.push({ request: kind.request, perSecond, layers });
    }
    return out;
  } finally {
    generator?.close();
    agent.destroy();
    for (const c of children) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--profile')) {
  for (const p of await profileServer({ seconds: Number(flag('--seconds') ?? 4), top: Number(flag('--top') ?? 0), data: process.argv.includes('--data') })) {
    console.log(`\n${p.request}: ${Math.round(p.perSecond)} /s under the profiler`);
    for (const l of p.layers) console.log(`  ${l.layer.padEnd(56)} ${(100 * l.share).toFixed(1).padStart(5)}%`);
  }
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `--baseline DIR`: this build against DIR's (a checkout with its own `npm run build`), in the bare server's place.
  const figures = await run({ rounds: Number(flag('--rounds') ?? 9), roundMs: Number(flag('--round-ms') ?? 1000), baseline: flag('--baseline') });
  for (const f of figures) {
    const cpu = f.cpuRatio === null ? '' : `; CPU per answer ${f.cpuMicros.served?.toFixed(1)} us vs ${f.cpuMicros.bare?.toFixed(1)} us: x${f.cpuRatio.toFixed(2)}`;
    console.log(`${f.request.padEnd(34)} served ${f.served} /s, bare ${f.bare} /s: x${f.ratio.toFixed(2)}${cpu}; generator ${Math.round(100 * f.generatorBusy)}% of a core in the bare rounds`);
    console.log(`  (served ${f.rounds.served.join(' ')}; bare ${f.rounds.bare.join(' ')})`);
    for (const fl of f.floors ?? []) {
      const flCpu = fl.cpuRatio === null ? '' : `; CPU per answer ${fl.cpuMicros?.toFixed(1)} us: x${fl.cpuRatio.toFixed(2)}`;
      console.log(`  floor, keeping ${fl.mode}: ${Math.round(fl.perSecond)} /s: x${fl.ratio.toFixed(2)} of bare${flCpu}`);
    }
  }
}
