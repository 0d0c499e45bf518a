// The sandbox on Durable Objects (the published entry pix-usdt/durable-object, bundled from the
// built package as the `workerd` command bundles it) on the bare workerd binary, beside the same
// load on `serve --data` (dist/cli.js, one process), in the same run: 1,000 tenants each, each made
// with the operator's (or the first tenant's) key and taken through one onramp lifecycle (user,
// KYC, quote, accept, Pix paid and settled) by the public client, 16 in flight. Reports for each:
// lifecycles a second, storage per tenant at rest (the files as kill -9 left them), RSS, and the
// restart (kill -9, then spawn to first answer, then one tenant's first answer), and the ratios
// Durable Objects / serve --data.
// Run: npm run build && node --import tsx bench/durable-object.ts [--do-tenants 1000]
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PixUsdt } from '../src/index.js';
import { WALLET, cpf } from '../test/support/fixtures.js';
import { deploy } from '../test/support/workerd.js';

const CONCURRENCY = 16;
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** The figures of one engine under the load. */
export interface EngineFigures {
  seconds: number;
  lifecyclesPerSecond: number;
  /** Bytes on disk per tenant, every file as kill -9 left it (databases, write-ahead logs, shared memory). */
  bytesPerTenant: number;
  /** The same, the database files alone. */
  databaseBytesPerTenant: number;
  rssMb: number;
  rssIdleMb: number;
  /** kill -9, then spawn to the first answer. */
  restartMs: number;
  /** Then one tenant's first answer (its state loads). */
  firstAnswerMs: number;
}

/** Bytes of the files under `dir` (only those whose name passes `keep`, when given). */
function bytesUnder(dir: string, keep: (name: string) => boolean = () => true): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path, keep);
    else if (keep(entry.name)) total += statSync(path).size;
  }
  return total;
}

function rssMb(pid: number | null | undefined): number {
  if (pid === null || pid === undefined) return 0;
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
}

/** Makes `tenants` tenants through `url` with `maker`'s key and takes each through a lifecycle; answers the seconds and every tenant's key. */
async function load(name: string, url: string, maker: string, tenants: number): Promise<{ seconds: number; keys: string[] }> {
  const keys: string[] = [];
  let next = 0;
  const started = performance.now();
  const lane = async (): Promise<void> => {
    for (;;) {
      const n = next++;
      if (n >= tenants) return;
      const made = await fetch(`${url}/v1/test_helpers/tenants`, { method: 'POST', headers: { authorization: `Bearer ${maker}`, 'content-type': 'application/json' }, body: '{}' });
      if (made.status !== 201) throw new Error(`${name}: tenant ${n}: ${made.status} ${await made.text()}`);
      const apiKey = ((await made.json()) as { api_key: string }).api_key;
      keys.push(apiKey);
      const client = new PixUsdt({ apiKey, baseUrl: url, maxRetries: 2 });
      const user = await client.users.create({ external_id: `b-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n + 1) });
      await client.testHelpers.users.kyc(user.id, { status: 'approved' });
      const quote = await client.quotes.create({ user_id: user.id, source_currency: 'BRL', target_currency: 'USDT', source_amount: '540.00', destination_wallet_address: WALLET, destination_wallet_network: 'polygon' });
      const conv = await client.quotes.accept(quote.id);
      const done = await client.testHelpers.conversions.simulateOnrampPixPaid(conv.id, { settle: true });
      if (done.status !== 'completed') throw new Error(`${name}: tenant ${n}: conversion ${done.status}`);
      if ((n + 1) % 250 === 0) process.stderr.write(`${name}: ${n + 1}/${tenants} tenants\n`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return { seconds: (performance.now() - started) / 1000, keys };
}

async function firstAnswer(url: string, key: string): Promise<number> {
  const t = performance.now();
  await new PixUsdt({ apiKey: key, baseUrl: url, maxRetries: 0 }).users.list();
  return performance.now() - t;
}

async function durableObjects(tenants: number): Promise<EngineFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'pix-usdt-do-bench-'));
  const d = await deploy(dir, { QUOTE_RATE_LIMIT: '0' });
  try {
    await d.start();
    const rssIdleMb = rssMb(d.pid);
    const { seconds, keys } = await load('durable-object', d.url, d.token, tenants);
    const rss = rssMb(d.pid);
    await d.kill();
    const objects = join(dir, 'objects');
    const bytesPerTenant = bytesUnder(objects) / tenants;
    const databaseBytesPerTenant = bytesUnder(objects, (n) => n.endsWith('.sqlite')) / tenants;
    const restartMs = await d.start();
    return { seconds, lifecyclesPerSecond: tenants / seconds, bytesPerTenant, databaseBytesPerTenant, rssMb: rss, rssIdleMb, restartMs, firstAnswerMs: await firstAnswer(d.url, keys[0] as string) };
  } finally {
    await d.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `serve --data DIR` as a partner runs it; resolves once it printed its ready line. */
async function serve(dir: string): Promise<{ child: ChildProcess; url: string; apiKey: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data', dir, '--quote-rate-limit', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    child.once('exit', (code) => reject(new Error(`serve --data exited (${code}) before listening`)));
  });
  const ready = JSON.parse(line) as { url: string; api_key: string };
  return { child, url: ready.url, apiKey: ready.api_key, ms: performance.now() - started };
}

async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function serveData(tenants: number): Promise<EngineFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'pix-usdt-serve-bench-'));
  let server = await serve(dir);
  try {
    const rssIdleMb = rssMb(server.child.pid);
    const { seconds, keys } = await load('serve --data', server.url, server.apiKey, tenants);
    const rss = rssMb(server.child.pid);
    await killed(server.child);
    const bytesPerTenant = bytesUnder(dir) / tenants;
    const databaseBytesPerTenant = bytesUnder(dir, (n) => n.endsWith('.db')) / tenants;
    server = await serve(dir);
    const restartMs = server.ms + (await firstAnswer(server.url, server.apiKey));
    return { seconds, lifecyclesPerSecond: tenants / seconds, bytesPerTenant, databaseBytesPerTenant, rssMb: rss, rssIdleMb, restartMs, firstAnswerMs: await firstAnswer(server.url, keys[0] as string) };
  } finally {
    await killed(server.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<{ tenants: number; durableObjects: EngineFigures; serveData: EngineFigures; ratio: { lifecyclesPerSecond: number; bytesPerTenant: number; restartMs: number } }> {
  const at = process.argv.indexOf('--do-tenants');
  const tenants = at >= 0 ? Number(process.argv[at + 1]) : 1_000;
  const d = await durableObjects(tenants);
  const s = await serveData(tenants);
  const result = {
    tenants,
    durableObjects: d,
    serveData: s,
    ratio: { lifecyclesPerSecond: d.lifecyclesPerSecond / s.lifecyclesPerSecond, bytesPerTenant: d.bytesPerTenant / s.bytesPerTenant, restartMs: d.restartMs / s.restartMs },
  };
  console.log(JSON.stringify(result, null, 2));
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
