/**
 * The server's cost (issue 22): the real server (`dist/cli.js serve`, one process) against a bare
 * `node:http` server (one process) answering the same JSON bytes, under the same load: 16
 * requests in flight over keep-alive connections, rounds alternating the two servers, median
 * round. Two requests: `GET /v1/users/{id}` and an idempotent `POST /v1/users` (a new
 * Idempotency-Key and a new user each time). The load comes from this process through
 * `node:http` with a keep-alive agent (cheaper than `fetch`, so that the load generator is not
 * what is measured).
 *
 *   npm run build && node --import tsx bench/server.ts
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { cpf } from '../test/support/fixtures.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const IN_FLIGHT = 16;

/** One request kind, both servers. */
export interface ServerFigure {
  request: string;
  served: number;
  bare: number;
  /** served / bare (requests a second). */
  ratio: number;
  rounds: { served: number[]; bare: number[] };
}

interface Target {
  name: string;
  process: ChildProcess;
  port: number;
}

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

// The bare server: answers GET and POST with the bytes and headers it was given, after reading the body.
const BARE = `
const http = require('node:http');
const answers = JSON.parse(process.argv[1]);
const server = http.createServer((req, res) => {
  const a = req.method === 'POST' ? answers.post : answers.get;
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => { res.writeHead(a.status, a.headers); res.end(a.body); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
`;

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

let counter = 0;

/** Answered requests a second for `ms`, {@link IN_FLIGHT} in flight. */
async function load(port: number, next: () => { method: string; path: string; headers: Record<string, string>; body?: string; status: number }, ms: number): Promise<number> {
  const end = performance.now() + ms;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      const r = next();
      const res = await request(port, r.method, r.path, r.headers, r.body);
      if (res.status !== r.status) throw new Error(`${r.method} ${r.path} answered ${res.status}: ${res.body.slice(0, 200)}`);
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return (done / (performance.now() - started)) * 1000;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

// The headers a server sends that the bare one repeats (connection handling is each server's own).
function replayable(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (typeof v === 'string' && !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k)) out[k] = v;
  return out;
}

/** Runs both comparisons and returns the figures (bench/run.ts reads them). */
export async function run(options: { rounds?: number; roundMs?: number } = {}): Promise<ServerFigure[]> {
  const rounds = options.rounds ?? 7;
  const roundMs = options.roundMs ?? 700;
  const children: ChildProcess[] = [];
  try {
    // Request log lines go to stderr: ignored, as a partner's terminal would scroll them.
    const served = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(served);
    const ready = JSON.parse(await firstLine(served, 'serve')) as { url: string; api_key: string };
    const port = Number(new URL(ready.url).port);
    const auth = { authorization: `Bearer ${ready.api_key}` };
    const userBody = (n: number): string => JSON.stringify({ external_id: `e${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
    const jsonPost = (key: string) => ({ ...auth, 'content-type': 'application/json', 'idempotency-key': key });
    const created = await request(port, 'POST', '/v1/users', jsonPost('seed'), userBody(0));
    const userId = (JSON.parse(created.body) as { id: string }).id;
    const got = await request(port, 'GET', `/v1/users/${userId}`, auth);
    // The bare server answers the very bytes the real one answered.
    const answers = {
      get: { status: got.status, headers: replayable(got.headers), body: got.body },
      post: { status: created.status, headers: replayable(created.headers), body: created.body },
    };
    const bare = spawn(process.execPath, ['-e', BARE, JSON.stringify(answers)], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(bare);
    const barePort = (JSON.parse(await firstLine(bare, 'bare server')) as { port: number }).port;
    const targets: Array<Pick<Target, 'name' | 'port'>> = [
      { name: 'served', port },
      { name: 'bare', port: barePort },
    ];
    const kinds = [
      { request: 'GET /v1/users/{id}', next: () => ({ method: 'GET', path: `/v1/users/${userId}`, headers: auth, status: 200 }) },
      {
        request: 'POST /v1/users (Idempotency-Key)',
        next: () => {
          const n = ++counter;
          return { method: 'POST', path: '/v1/users', headers: jsonPost(`u${n}`), body: userBody(n), status: 201 };
        },
      },
    ];
    const figures: ServerFigure[] = [];
    for (const kind of kinds) {
      for (const t of targets) await load(t.port, kind.next, 1500); // warm-up: the real server's JIT needs more than a round
      const measured = { served: [] as number[], bare: [] as number[] };
      for (let r = 0; r < rounds; r++) {
        for (const t of r % 2 === 0 ? targets : [...targets].reverse()) measured[t.name as 'served' | 'bare'].push(await load(t.port, kind.next, roundMs));
      }
      const s = median(measured.served);
      const b = median(measured.bare);
      figures.push({ request: kind.request, served: Math.round(s), bare: Math.round(b), ratio: s / b, rounds: { served: measured.served.map(Math.round), bare: measured.bare.map(Math.round) } });
    }
    return figures;
  } finally {
    agent.destroy();
    for (const c of children) c.kill('SIGKILL');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const f of await run()) console.log(`${f.request.padEnd(34)} served ${f.served} /s, bare ${f.bare} /s: x${f.ratio.toFixed(2)}  (served ${f.rounds.served.join(' ')}; bare ${f.rounds.bare.join(' ')})`);
}
