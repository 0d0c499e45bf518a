// The sandbox on Durable Objects (examples/durable-object) on the bare workerd binary: 1,000
// tenants, each made by the operator and taken through one onramp lifecycle (user, KYC, quote,
// accept, Pix paid and settled) by the public client, 16 in flight. Reports lifecycles a second,
// the cost per tenant at rest (bytes of object storage on disk, workerd's RSS), and the restart
// (kill -9, then spawn to first answer, then one tenant's first answer as its object loads).
// Run: npx tsx bench/durable-object.ts [--do-tenants 1000]
import { readFileSync, readdirSync, rmSync, statSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PixUsdt } from '../src/index.js';
import { cpf } from '../test/support/fixtures.js';
import { deploy } from '../test/support/workerd.js';

const WALLET = '0x1111111111111111111111111111111111111111';
const CONCURRENCY = 16;

/** Bytes of the files under `dir` (only those ending in `suffix`, when given). */
function bytesUnder(dir: string, suffix = ''): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path, suffix);
    else if (entry.name.endsWith(suffix)) total += statSync(path).size;
  }
  return total;
}

function rssMb(pid: number | null): number {
  if (pid === null) return 0;
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
}

export async function run(): Promise<{ tenants: number; seconds: number; lifecyclesPerSecond: number; bytesPerTenant: number; databaseBytesPerTenant: number; rssMb: number; rssIdleMb: number; restartMs: number; firstAnswerMs: number }> {
  const at = process.argv.indexOf('--do-tenants');
  const tenants = at >= 0 ? Number(process.argv[at + 1]) : 1_000;
  const dir = mkdtempSync(join(tmpdir(), 'pix-usdt-do-bench-'));
  const d = await deploy(dir, { QUOTE_RATE_LIMIT: '0' });
  try {
    await d.start();
    const rssIdleMb = rssMb(d.pid);
    const keys: string[] = [];
    let next = 0;
    const started = performance.now();
    const worker = async (): Promise<void> => {
      for (;;) {
        const n = next++;
        if (n >= tenants) return;
        const made = await fetch(`${d.url}/v1/test_helpers/tenants`, { method: 'POST', headers: { authorization: `Bearer ${d.token}` }, body: '{}' });
        if (made.status !== 201) throw new Error(`tenant ${n}: ${made.status} ${await made.text()}`);
        const apiKey = ((await made.json()) as { api_key: string }).api_key;
        keys.push(apiKey);
        const client = new PixUsdt({ apiKey, baseUrl: d.url, maxRetries: 2 });
        const user = await client.users.create({ external_id: `b-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n + 1) });
        await client.testHelpers.users.kyc(user.id, { status: 'approved' });
        const quote = await client.quotes.create({ user_id: user.id, source_currency: 'BRL', target_currency: 'USDT', source_amount: '540.00', destination_wallet_address: WALLET, destination_wallet_network: 'polygon' });
        const conv = await client.quotes.accept(quote.id);
        const done = await client.testHelpers.conversions.simulateOnrampPixPaid(conv.id, { settle: true });
        if (done.status !== 'completed') throw new Error(`tenant ${n}: conversion ${done.status}`);
        if ((n + 1) % 250 === 0) process.stderr.write(`durable-object: ${n + 1}/${tenants} tenants\n`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    const rss = rssMb(d.pid);
    await d.kill();
    // Every file (the databases with their write-ahead logs, as kill -9 left them), and the databases alone.
    const bytesPerTenant = bytesUnder(join(dir, 'objects')) / tenants;
    const databaseBytesPerTenant = bytesUnder(join(dir, 'objects'), '.sqlite') / tenants;
    const restartMs = await d.start();
    const t = performance.now();
    const client = new PixUsdt({ apiKey: keys[0] as string, baseUrl: d.url, maxRetries: 0 });
    await client.users.list();
    const firstAnswerMs = performance.now() - t;
    const result = { tenants, seconds, lifecyclesPerSecond: tenants / seconds, bytesPerTenant, databaseBytesPerTenant, rssMb: rss, rssIdleMb, restartMs, firstAnswerMs };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    await d.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
