/**
 * One tenant past 600 MB of records in a data folder, written and reopened: the ceiling where the
 * old layout lost the folder (a snapshot of 536 MB became one string too long to write or read).
 * In process, through the data folder's own code (openDataStore), so that minutes go to writing,
 * not to HTTP: onramp lifecycles in one tenant, 8 in flight, until the database file passes the
 * size; a clean stop; then a new open of the folder: its time to ready
 * (no tenant is loaded; and, beside it, with every page read first: the start's `PRAGMA
 * quick_check`, which it skips past 64 MiB), the tenant's first answer (it loads), RSS, and a retrieve, a list and a
 * create at that size.
 *
 *   node --import tsx bench/big-tenant.ts [--mb 600]      (npm run bench -- --only big-tenant [--big-mb 600])
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxOptions } from '../src/sandbox/index.js';
import { type DataStore, openDataStore } from '../src/server/data/store.js';
import { WALLET, cpf } from '../test/support/fixtures.js';

const BIG = '100000000000.00';
const OPTIONS: SandboxOptions = {
  quoteRateLimit: 0,
  limits: { platform: { daily: BIG, monthly: BIG }, partner: { daily: BIG, monthly: BIG } },
};

/** What the bench measured. */
export interface BigTenantResult {
  mb: number;
  lifecycles: number;
  writeSeconds: number;
  readyMs: number;
  /** Open to ready with every page read at the start (`PRAGMA quick_check`, which a folder this big skips). */
  fullCheckReadyMs: number;
  firstAnswerMs: number;
  rssMb: number;
  getMs: number;
  listMs: number;
  createMs: number;
}

// The database file: the write-ahead log holds newer copies of its pages, not more records.
function databaseMb(dir: string): number {
  const file = path.join(dir, 'data.db');
  return existsSync(file) ? statSync(file).size / 1e6 : 0;
}

function caller(store: DataStore) {
  const apiKey = store.sandbox.apiKey;
  return async (method: string, route: string, body?: unknown, idempotencyKey?: string): Promise<Record<string, unknown>> => {
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    const res = await store.sandbox.fetch(route, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  };
}

async function lifecycle(call: ReturnType<typeof caller>, n: number): Promise<string> {
  const user = await call('POST', '/v1/users', { external_id: `big-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) }, `user-${n}`);
  await call('POST', `/v1/test_helpers/users/${user['id'] as string}/kyc`, { status: 'approved' }, `kyc-${n}`);
  const quote = await call('POST', '/v1/quotes', { user_id: user['id'], source_currency: 'BRL', target_currency: 'USDT', source_amount: '20.00', destination_wallet_address: WALLET, destination_wallet_network: 'polygon' }, `quote-${n}`);
  const conversion = await call('POST', `/v1/quotes/${quote['id'] as string}/accept`, undefined, `accept-${n}`);
  await call('POST', `/v1/test_helpers/conversions/${conversion['id'] as string}/simulate-onramp-pix-paid`, { settle: true }, `paid-${n}`);
  return conversion['id'] as string;
}

async function timedMs(fn: () => Promise<unknown>, times = 20): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < times; i++) await fn();
  return (performance.now() - t0) / times;
}

/** Writes one tenant past `mb` MB, reopens it, and measures (see the module comment). */
export async function run(mb = Number(/--(?:big-)?mb\s+(\d+)/.exec(process.argv.join(' '))?.[1] ?? 600)): Promise<BigTenantResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-big-'));
  try {
    let store = openDataStore(dir, OPTIONS);
    let call = caller(store);
    let n = 0;
    const started = performance.now();
    let next = 50;
    let ids: string[] = [];
    while (databaseMb(dir) < mb) {
      const batch = await Promise.all(Array.from({ length: 8 }, () => lifecycle(call, n++)));
      ids = batch;
      const size = databaseMb(dir);
      if (size >= next) {
        console.log(`big tenant: ${Math.round(size)} MB, ${n.toLocaleString('en')} lifecycles, ${Math.round((performance.now() - started) / 1000)} s`);
        next += 50;
      }
    }
    const writeSeconds = (performance.now() - started) / 1000;
    store.close();
    const size = databaseMb(dir);

    const tc = performance.now();
    openDataStore(dir, OPTIONS, { fullCheckMaxBytes: Number.POSITIVE_INFINITY }).close();
    const fullCheckReadyMs = performance.now() - tc;
    const t0 = performance.now();
    store = openDataStore(dir, OPTIONS);
    const readyMs = performance.now() - t0;
    call = caller(store);
    const t1 = performance.now();
    await call('GET', '/v1/conversions?limit=10');
    const firstAnswerMs = performance.now() - t1;
    const rssMb = process.memoryUsage().rss / 1e6;
    const someId = ids[0] as string;
    const getMs = await timedMs(() => call('GET', `/v1/conversions/${someId}`));
    const listMs = await timedMs(() => call('GET', '/v1/conversions?limit=10'));
    let m = 0;
    const createMs = await timedMs(() => call('POST', '/v1/users', { external_id: `after-${m}`, name: 'After', document_type: 'cpf', document_number: cpf(10_000_000 + m++) }, `after-${m}`));
    store.close();
    const result = { mb: size, lifecycles: n, writeSeconds, readyMs, fullCheckReadyMs, firstAnswerMs, rssMb, getMs, listMs, createMs };
    console.log(
      `big tenant: ${Math.round(size)} MB (${n.toLocaleString('en')} lifecycles) written in ${Math.round(writeSeconds)} s; reopened: ready in ${Math.round(readyMs)} ms (${Math.round(fullCheckReadyMs)} ms reading every page first), first answer ${Math.round(firstAnswerMs)} ms (RSS ${Math.round(rssMb)} MB); retrieve ${getMs.toFixed(2)} ms, list ${listMs.toFixed(2)} ms, create ${createMs.toFixed(2)} ms`,
    );
    return result;
  } finally {
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
