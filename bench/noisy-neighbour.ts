/**
 * The noisy neighbour (issue 21): two tenants of one `pix-usdt-sandbox serve` (the built CLI, its
 * own process). Tenant B has one fast receiver; tenant A has 1 or 50 endpoints whose receiver
 * never answers, answers after 2 s, or answers 500. Both create users at once (A 200, so that its
 * endpoints get a backlog; B 300, one after another), each user a `user.kyc_pending` delivery per
 * endpoint. Printed: B's delivery latency (receipt minus the event's `created_at`; the tenant
 * clocks follow real time) p50 / p99 / max, against B alone, and the most connections A's
 * receiver held open at once (the server caps attempts: 4 per endpoint, 32 per tenant, 256 in
 * all). Before the fix, one hanging endpoint in A made a quarter of B's deliveries wait 10 s
 * (the attempt timeout) and 50 made them wait minutes.
 *
 *   npm run build && node --import tsx bench/noisy-neighbour.ts
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { cpf } from '../test/support/fixtures.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const B_EVENTS = 300;
const A_USERS = 200;
const WAIT_MS = 60_000;

type Mode = 'never answers' | 'answers after 2 s' | 'answers 500';

/** One scenario's figures. */
export interface NoisyFigure {
  scenario: string;
  endpoints: number;
  mode: Mode | null;
  delivered: number;
  expected: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  aMostOpen: number;
}

/** A receiver that records each event's latency and counts its open connections (shared with bench/tenant-attack.ts). */
export interface Receiver {
  url: string;
  server: http.Server;
  latencies: number[];
  open: number;
  most: number;
  close(): Promise<void>;
}

export async function receiver(reply: (res: http.ServerResponse) => void): Promise<Receiver> {
  const held = new Set<http.ServerResponse>();
  const r: Receiver = {
    url: '',
    latencies: [],
    open: 0,
    most: 0,
    server: http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const received = Date.now();
        try {
          r.latencies.push(received - Date.parse((JSON.parse(body) as { created_at: string }).created_at));
        } catch {
          // not an event
        }
        held.add(res);
        res.on('close', () => held.delete(res));
        reply(res);
      });
    }),
    async close() {
      r.server.closeAllConnections();
      await new Promise<void>((resolve) => r.server.close(() => resolve()));
    },
  };
  r.server.on('connection', (socket) => {
    r.open++;
    r.most = Math.max(r.most, r.open);
    socket.on('close', () => r.open--);
  });
  r.server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`;
  return r;
}

export interface Server {
  process: ChildProcess;
  url: string;
  key: string;
}

/** The built CLI's `serve` on a free port, with `args` after it. */
export async function serve(args: readonly string[] = []): Promise<Server> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
  const ready = JSON.parse(line) as { url: string; api_key: string };
  return { process: child, url: ready.url, key: ready.api_key };
}

let keys = 0;
export async function call(server: Server, key: string, method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(server.url + route, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `noisy-${process.pid}-${++keys}` },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export async function tenantKey(server: Server): Promise<string> {
  const created = await call(server, server.key, 'POST', '/v1/test_helpers/tenants', {});
  return created['api_key'] as string;
}

export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function scenario(endpoints: number, mode: Mode | null): Promise<NoisyFigure> {
  const server = await serve();
  const fast = await receiver((res) => res.writeHead(204).end());
  const noisy = await receiver((res) => {
    if (mode === 'answers 500') res.writeHead(500).end('no');
    else if (mode === 'answers after 2 s') setTimeout(() => res.writeHead(200).end('ok'), 2_000).unref();
    // never answers: the attempt times out in the server (10 s)
  });
  try {
    const a = await tenantKey(server);
    const b = await tenantKey(server);
    for (let i = 0; i < (mode === null ? 0 : endpoints); i++) {
      await call(server, a, 'POST', '/v1/webhook_endpoints', { url: `${noisy.url}/a/${i}`, event_types: ['*'] });
    }
    await call(server, b, 'POST', '/v1/webhook_endpoints', { url: `${fast.url}/b`, event_types: ['*'] });
    const user = (key: string, n: number) => call(server, key, 'POST', '/v1/users', { external_id: `u-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
    // A: 200 users, 4 requests at a time; B meanwhile: 300 users, one after another.
    const aLoad = (async () => {
      if (mode === null) return;
      for (let n = 0; n < A_USERS; n += 4) await Promise.all([0, 1, 2, 3].map((k) => user(a, n + k)));
    })();
    for (let n = 0; n < B_EVENTS; n++) await user(b, 10_000 + n);
    await aLoad;
    const deadline = Date.now() + WAIT_MS;
    while (fast.latencies.length < B_EVENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const sorted = [...fast.latencies].sort((x, y) => x - y);
    return {
      scenario: mode === null ? 'B alone' : `A on ${endpoints === 1 ? '1 endpoint that' : `${endpoints} endpoints that`} ${endpoints === 1 ? mode : mode.replace('answers', 'answer')}`,
      endpoints: mode === null ? 0 : endpoints,
      mode,
      delivered: sorted.length,
      expected: B_EVENTS,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted.at(-1) ?? NaN,
      aMostOpen: noisy.most,
    };
  } finally {
    server.process.kill('SIGTERM');
    await new Promise((resolve) => server.process.once('exit', resolve));
    await fast.close();
    await noisy.close();
  }
}

export async function run(): Promise<NoisyFigure[]> {
  const figures: NoisyFigure[] = [];
  const plan: Array<[number, Mode | null]> = [[1, null]];
  for (const endpoints of [1, 50]) for (const mode of ['never answers', 'answers after 2 s', 'answers 500'] as const) plan.push([endpoints, mode]);
  for (const [endpoints, mode] of plan) {
    const f = await scenario(endpoints, mode);
    figures.push(f);
    console.log(
      `${f.scenario.padEnd(44)} B: ${f.delivered}/${f.expected} delivered, p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, max ${f.maxMs} ms; A's receiver: at most ${f.aMostOpen} connections open`,
    );
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
