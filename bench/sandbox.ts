/**
 * Sandbox benchmark: requests per second of the engine alone (`sandbox.handle`), the same
 * through the public client, and full offramp lifecycles per second (quote, accept, deposit
 * with settle, retrieve) through the client. Also the memory per stored conversion.
 *
 *   node --import tsx bench/sandbox.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PixUsdt as Client } from '../src/index.js';
import type { Sandbox } from '../src/sandbox/index.js';
import { type Dispatcher, createListener } from '../src/server/http/listener.js';
import { bareFetchGet } from './client.js';
import { compare } from './measure.js';
import { client as built, sandbox as builtSandbox } from './package.js';
import { cpf } from '../test/support/fixtures.js';

const { PixUsdt } = built;
const { createSandbox } = builtSandbox;

/** Names of the side-by-side figures (bench/run.ts reads them). */
export const BARE_FETCH = 'bare fetch GET of a trivial handler (the unit of issue 6)';
export const IN_PROCESS = 'client: offramp lifecycle (quote, accept, deposit+settle, retrieve)';
export const LOOPBACK = 'client: offramp lifecycle over the loopback HTTP server';

/** One measured figure. */
export interface BenchResult {
  name: string;
  opsPerSecond: number;
  microsecondsPerOp: number;
  iterations: number;
}

async function measure(name: string, iterations: number, op: (i: number) => Promise<unknown>): Promise<BenchResult> {
  for (let i = 0; i < Math.min(500, iterations / 10); i++) await op(i); // warm-up
  const start = performance.now();
  for (let i = 0; i < iterations; i++) await op(i);
  const ms = performance.now() - start;
  return { name, iterations, opsPerSecond: Math.round((iterations / ms) * 1000), microsecondsPerOp: Math.round((ms / iterations) * 1000 * 10) / 10 };
}

async function setupUser(sandbox: Sandbox, client: Client): Promise<string> {
  const user = await client.users.create({ external_id: 'bench', name: 'Bench', document_type: 'cpf', document_number: cpf(1) });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  return user.id;
}

function lifecycleSandbox(): Sandbox {
  const big = { daily: '1000000000000', monthly: '1000000000000' };
  return createSandbox({ now: '2026-01-01T00:00:00Z', seed: 'bench', quoteRateLimit: 0, limits: { platform: big, partner: big, user: big }, eventLogSize: 1000 });
}

/** Runs every benchmark and returns the figures. */
export async function run(options: { iterations?: number } = {}): Promise<BenchResult[]> {
  const n = options.iterations ?? 20_000;
  const results: BenchResult[] = [];

  const sandbox = lifecycleSandbox();
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  const userId = await setupUser(sandbox, client);
  const auth = { authorization: `Bearer ${sandbox.apiKey}` };
  const url = `https://sandbox.pix-usdt.com/v1/users/${userId}`;

  results.push(await measure('engine: GET /v1/users/{id} (sandbox.handle)', n, () => sandbox.handle(new Request(url, { headers: auth })).then((r) => r.text())));
  results.push(await measure('client: users.retrieve over sandbox.fetch', n, () => client.users.retrieve(userId)));
  const body = JSON.stringify({ user_id: userId, source_currency: 'USDT', target_currency: 'BRL', source_amount: '10.000000', pix_key: '52998224725', pix_key_type: 'cpf', deposit_network: 'polygon' });
  results.push(
    await measure('engine: POST /v1/quotes (sandbox.handle)', n, (i) =>
      sandbox
        .handle(new Request('https://sandbox.pix-usdt.com/v1/quotes', { method: 'POST', headers: { ...auth, 'idempotency-key': `q${i}`, 'content-type': 'application/json' }, body }))
        .then((r) => r.text()),
    ),
  );

  const lifecycle = (lifeClient: Client, lifeUser: string) => async (): Promise<void> => {
    const quote = await lifeClient.quotes.create({
      user_id: lifeUser,
      source_currency: 'USDT',
      target_currency: 'BRL',
      source_amount: '10.000000',
      pix_key: '52998224725',
      pix_key_type: 'cpf',
      deposit_network: 'polygon',
    });
    const conv = await lifeClient.quotes.accept(quote.id);
    await lifeClient.testHelpers.conversions.simulateOfframpDeposit(conv.id, { settle: true });
    const done = await lifeClient.conversions.retrieve(conv.id);
    if (done.status !== 'completed') throw new Error(`lifecycle ended ${done.status}`);
  };
  // The lifecycle in process, over the loopback HTTP server, and the unit (a bare fetch
  // GET of a trivial handler), interleaved in rounds so that the ratios hold on a noisy machine.
  const life = lifecycleSandbox();
  const lifeClient = new PixUsdt({ apiKey: life.apiKey, fetch: life.fetch, maxRetries: 0 });
  const lifeUser = await setupUser(life, lifeClient);
  const served = lifecycleSandbox();
  let origin = '';
  // The built sandbox is a SandboxImpl: `dispatch` and the request log are there at run time.
  const server = http.createServer(createListener(served as unknown as Dispatcher, { get origin() { return origin; } }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const httpClient = new PixUsdt({ apiKey: served.apiKey, baseUrl: origin, maxRetries: 0 });
    const httpUser = await setupUser(served, httpClient);
    const figures = await compare(
      [
        { name: BARE_FETCH, fn: bareFetchGet },
        { name: IN_PROCESS, fn: lifecycle(lifeClient, lifeUser) },
        { name: LOOPBACK, fn: lifecycle(httpClient, httpUser) },
      ],
      { rounds: 7, roundMs: 500, warmupMs: 500 },
    );
    for (const f of figures) results.push({ name: f.name, iterations: 0, opsPerSecond: Math.round(f.opsPerSecond), microsecondsPerOp: Math.round(f.microsPerOp * 10) / 10 });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  const rawLife = lifecycleSandbox();
  const rawAuth = { authorization: `Bearer ${rawLife.apiKey}` };
  const call = async (method: string, path: string, i: number, body?: unknown): Promise<{ id: string; status: string }> => {
    const init: RequestInit = { method, headers: method === 'GET' ? rawAuth : { ...rawAuth, 'idempotency-key': `${path}:${i}` } };
    if (body !== undefined) init.body = JSON.stringify(body);
    return (await rawLife.handle(new Request(`https://sandbox.pix-usdt.com${path}`, init))).json() as Promise<{ id: string; status: string }>;
  };
  const rawUser = await call('POST', '/v1/users', 0, { external_id: 'b', name: 'B', document_type: 'cpf', document_number: cpf(2) });
  await call('POST', `/v1/test_helpers/users/${rawUser.id}/kyc`, 0, { status: 'approved' });
  const quoteBody = { user_id: rawUser.id, source_currency: 'USDT', target_currency: 'BRL', source_amount: '10.000000', pix_key: '52998224725', pix_key_type: 'cpf', deposit_network: 'polygon' };
  results.push(
    await measure('engine: offramp lifecycle over raw Requests (sandbox.handle)', Math.max(1000, n / 4), async (i) => {
      const quote = await call('POST', '/v1/quotes', i, quoteBody);
      const conv = await call('POST', `/v1/quotes/${quote.id}/accept`, i, {});
      await call('POST', `/v1/test_helpers/conversions/${conv.id}/simulate-offramp-deposit`, i, { settle: true });
      const done = await call('GET', `/v1/conversions/${conv.id}`, i);
      if (done.status !== 'completed') throw new Error(`lifecycle ended ${done.status}`);
    }),
  );
  return results;
}

/** Heap bytes per stored conversion (with its quote), after `count` raw lifecycles. Needs --expose-gc for precision. */
export async function memoryPerConversion(count = 20_000): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const sb = lifecycleSandbox();
  const client = new PixUsdt({ apiKey: sb.apiKey, fetch: sb.fetch, maxRetries: 0 });
  const userId = await setupUser(sb, client);
  const make = async (i: number): Promise<void> => {
    const quote = await client.quotes.create({ user_id: userId, source_currency: 'USDT', target_currency: 'BRL', source_amount: '10.000000', pix_key: '52998224725', pix_key_type: 'cpf', deposit_network: 'polygon' }, { idempotencyKey: `m${i}` });
    await client.quotes.accept(quote.id, {}, { idempotencyKey: `a${i}` });
  };
  await make(-1);
  gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < count; i++) await make(i);
  gc?.();
  return Math.round((process.memoryUsage().heapUsed - before) / count);
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const results = await run();
  for (const r of results) console.log(`${r.name.padEnd(72)} ${String(r.opsPerSecond).padStart(8)} ops/s  ${r.microsecondsPerOp} us/op`);
  console.log(`memory per stored conversion (quote, conversion, idempotency records, timers): ${await memoryPerConversion()} bytes`);
}
