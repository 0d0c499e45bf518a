// One command: `npm run example:partner-backend` starts a sandbox server (`pix-usdt-sandbox
// serve`), forwards its webhooks to the backend with `pix-usdt-sandbox listen`, and starts the
// backend on PGlite. State is kept in examples/partner-backend/.data (both the sandbox's and the
// backend's), so a restart continues; `--fresh` starts over. `--demo` then runs one onramp and one
// under-funded offramp through the backend and prints what its database holds.
//
//   npm run example:partner-backend [-- --demo] [-- --fresh] [-- --data DIR] [-- --port N]
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { type AddressInfo, createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PixUsdt } from 'pix-usdt';
import { start } from './main.js';

const { values: flags } = parseArgs({
  options: {
    demo: { type: 'boolean', default: false },
    fresh: { type: 'boolean', default: false },
    data: { type: 'string' },
    port: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (flags.help) {
  console.log('Usage: npm run example:partner-backend [-- --demo] [-- --fresh] [-- --data DIR] [-- --port N]\n\nStarts a sandbox server, `listen` and the partner backend; Ctrl-C stops all three.');
  process.exit(0);
}

const here = dirname(fileURLToPath(import.meta.url));
const dataDir = resolve(flags.data ?? join(here, '..', '.data'));
const port = await freePort(Number(flags.port ?? process.env['PORT'] ?? 3000));
const children: ChildProcess[] = [];

/** `wanted`, or for 0 a port free right now: `listen` must know where to forward before the backend listens. */
async function freePort(wanted: number): Promise<number> {
  if (wanted !== 0) return wanted;
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port: free } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return free;
}

/** The sandbox CLI: the installed package's bin, or (in this repository before a build) its source through tsx. */
function sandboxCli(): string[] {
  const root = dirname(createRequire(import.meta.url).resolve('pix-usdt/package.json'));
  const built = join(root, 'dist', 'cli.js');
  if (existsSync(built)) return [built];
  return ['--import', 'tsx', join(root, 'src', 'server', 'cli.ts')];
}

/** Runs a sandbox command and resolves with its first JSON line on stdout; later lines go to `onLine`. */
function runCli(args: string[], name: string, onLine: (line: string) => void = () => {}): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, [...sandboxCli(), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  child.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '' && !/^(GET|POST|PATCH|DELETE) /.test(line)) console.error(`[${name}] ${line}`);
  });
  return new Promise((resolveLine, reject) => {
    let first = true;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!first) return onLine(line);
      first = false;
      try {
        resolveLine(JSON.parse(line) as Record<string, unknown>);
      } catch {
        reject(new Error(`${name} printed ${line}`));
      }
    });
    child.once('exit', (code) => first && reject(new Error(`${name} exited (${code}) before it was ready`)));
  });
}

async function stopAll(): Promise<void> {
  for (const child of children.reverse()) {
    if (child.exitCode !== null) continue;
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
  }
}

if (flags.fresh) await rm(dataDir, { recursive: true, force: true });
await mkdir(dataDir, { recursive: true, mode: 0o700 });

console.error('starting the sandbox server...');
const sandbox = await runCli(['serve', '--port', '0', '--data', join(dataDir, 'sandbox')], 'sandbox');
const apiKey = sandbox['api_key'] as string;
const baseUrl = sandbox['url'] as string;
const forwardTo = `http://127.0.0.1:${port}/webhooks/pix-usdt`;
const listen = await runCli(['listen', '--url', baseUrl, '--api-key', apiKey, '--forward-to', forwardTo, '--json'], 'listen', (line) => {
  const delivery = JSON.parse(line) as { event_type?: string; event_id?: string; status?: number };
  console.error(`[listen] ${delivery.event_type} ${delivery.event_id} -> ${delivery.status}`);
});
console.error('opening the database (a new folder runs initdb: a few seconds)...');
const backend = await start({ apiKey, baseUrl, webhookSecrets: [listen['secret'] as string], dataDir: join(dataDir, 'db'), port, reconcileEverySeconds: 60 });
console.log(
  [
    `partner backend: ${backend.url} (database ${backend.database})`,
    `sandbox:         ${baseUrl} (inspector ${sandbox['inspector_url'] as string})`,
    `webhooks:        ${baseUrl} -> listen -> ${forwardTo}`,
    `try:             curl -s ${backend.url}/conversions | head`,
  ].join('\n'),
);

const stop = async (code: number): Promise<never> => {
  await backend.stop();
  await stopAll();
  process.exit(code);
};
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

if (flags.demo) {
  try {
    await demo(backend.url, new PixUsdt({ apiKey, baseUrl }));
  } catch (error) {
    console.error(`demo failed: ${(error as Error).stack ?? String(error)}`);
    await stop(1);
  }
  await stop(0);
}

/** A user, an onramp paid and settled, an under-funded offramp liquidated by the standby rule. */
async function demo(url: string, platform: PixUsdt): Promise<void> {
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${url}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? null : JSON.stringify(body) });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const waitFor = async (id: string, status: string): Promise<Record<string, unknown>> => {
    for (let i = 0; i < 200; i++) {
      const c = await call('GET', `/conversions/${id}`);
      if (c['status'] === status) return c;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`conversion ${id} did not reach ${status}`);
  };
  const user = await call('POST', '/users', { external_id: `demo-${randomUUID()}`, name: 'Rita Lima', document_number: '111.444.777-35' });
  await platform.testHelpers.users.kyc(user['platform_user_id'] as string, { status: 'approved' });
  console.log(`user ${user['id']} created; KYC approved (the sandbox's helper)`);

  const onramp = await call('POST', '/conversions', { order_id: randomUUID(), user_id: user['id'], direction: 'onramp', amount: '150.00', wallet_address: '0x52908400098527886E0F7030069857D2E4169EE7' });
  const conversion = onramp['conversion'] as Record<string, unknown>;
  const svg = await fetch(`${url}/conversions/${conversion['id'] as string}/pix-qr.svg`);
  console.log(`onramp ${conversion['id']}: ${conversion['status']}; Pix QR at /conversions/${conversion['id']}/pix-qr.svg (${svg.headers.get('content-type')}, ${(await svg.text()).length} bytes)`);
  await platform.testHelpers.conversions.simulateOnrampPixPaid(conversion['id'] as string, { settle: true });
  const done = await waitFor(conversion['id'] as string, 'completed');
  console.log(`onramp ${done['id']}: completed by the webhook (${done['written_by']}), ${done['target_amount']} USDT`);

  const offramp = await call('POST', '/conversions', { order_id: randomUUID(), user_id: user['id'], direction: 'offramp', amount: '40.00', pix_key: '00000000-0000-0000-0000-000000000001', pix_key_type: 'evp' });
  const off = offramp['conversion'] as Record<string, unknown>;
  await platform.testHelpers.conversions.simulateOfframpDeposit(off['id'] as string, { amount: '30.00' });
  const liquidated = await waitFor(off['id'] as string, 'liquidated');
  console.log(`offramp ${liquidated['id']}: standby (under_funded), liquidated by the standby rule`);

  const reconciled = await call('POST', '/admin/reconcile');
  const ledger = await call('GET', '/ledger');
  console.log(`reconciliation: ${reconciled['checked']} checked, ${reconciled['repairs']} repaired; ledger: ${(ledger['data'] as unknown[]).length} entries`);
}
