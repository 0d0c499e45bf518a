/**
 * The Durable Objects deployment as a partner gets it (issue 33): the packed tarball installed in
 * a scratch project outside the repository (its dependencies, workerd and esbuild linked from this
 * repository's node_modules: offline, the versions npm installed here), the partner's Worker (the
 * one line) written there, and the documented command `pix-usdt-sandbox workerd --data DIR`,
 * which bundles it as wrangler does (esbuild, the workerd/worker/browser conditions,
 * `cloudflare:workers` external, no nodejs_compat), writes the config and starts `workerd` from
 * npm. Through the tarball's own client: tenants made with the operator's token, each through a
 * lifecycle, one left idle until its alarm settles a conversion (a receiver verifies the signed
 * delivery at the default tolerance), a tenant made with a tenant's key and a fork in objects of
 * their own, the listing, one tenant's log, its inspector (and a tenant key refused there), then
 * `kill -9` of workerd, a timer falling due while it is down, the same command again, and every
 * answered mutation and pending timer still there.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { x as untar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpf } from '../support/fixtures.js';
import type { WorkerdReadyLine as Ready } from '../../src/server/run/workerd.js';
import { freePort } from '../support/workerd.js';
import { packShared, root } from './pack.js';

import type * as ClientEntry from '../../src/index.js';
import type * as WebhooksEntry from '../../src/webhooks/index.js';

// The tarball's own entries, loaded from the scratch project; typed as the sources they are built from.
type Client = typeof ClientEntry;
type Webhooks = typeof WebhooksEntry;
type PixUsdt = InstanceType<Client['PixUsdt']>;

const WALLET = '0x1111111111111111111111111111111111111111';
const SETTLE_SECONDS = 3;
const WORKER = "export { default, TenantObject, Directory } from 'pix-usdt/durable-object';\n";


interface Delivery {
  path: string;
  type: string;
  conversionId: string | undefined;
  eventId: string;
}

let scratch: string;
let port: number;
let client: Client;
let webhooks: Webhooks;
let command: { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } | null = null;
const secrets = new Map<string, string>();
const verified: Delivery[] = [];
const refused: string[] = [];
let receiver: Server;
let receiverUrl: string;

/** A webhook receiver that verifies every delivery (the tarball's constructEvent, default tolerance) before acknowledging it. */
function listen(): Server {
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => resolve(body));
    });
  return createServer((req, res) => {
    void read(req).then(async (body) => {
      const path = req.url ?? '';
      try {
        const secret = secrets.get(path);
        if (secret === undefined) throw new Error(`no secret for ${path}`);
        const event = await webhooks.constructEvent(body, req.headers as Record<string, string>, secret);
        const object = event.data.object as { id?: string };
        verified.push({ path, type: event.type, conversionId: event.type.startsWith('conversion.') ? object.id : undefined, eventId: event.id });
        res.writeHead(204).end();
      } catch (error) {
        refused.push(String(error));
        res.writeHead(400).end();
      }
    });
  });
}

/** `npx pix-usdt-sandbox workerd --data deployment ...` in the scratch project; resolves with its ready line. */
async function start(): Promise<Ready> {
  const child = spawn(join(scratch, 'node_modules/.bin/pix-usdt-sandbox'), ['workerd', '--data', 'deployment', '--port', String(port), '--worker', 'worker.ts', '--settlement-delay', String(SETTLE_SECONDS), '--quote-rate-limit', '0'], {
    cwd: scratch,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CONTROL_TOKEN: 'a-local-operator-token-0123456789' },
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  command = { child, stderr: () => stderr, exited };
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    void exited.then((code) => reject(new Error(`workerd command exited ${code}: ${stderr}`)));
  });
  return JSON.parse(line) as Ready;
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  const packed = await packShared();
  scratch = mkdtempSync(join(tmpdir(), 'pix-usdt-do-project-'));
  const modules = join(scratch, 'node_modules');
  mkdirSync(join(modules, packed.manifest.name), { recursive: true });
  await untar({ file: packed.tarball, cwd: join(modules, packed.manifest.name), strip: 1 });
  // What `npm install pix-usdt workerd esbuild` leaves: the package's dependencies, the two tools, and the bin link.
  for (const name of [...Object.keys(packed.manifest.dependencies ?? {}), 'workerd', 'esbuild']) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
  }
  mkdirSync(join(modules, '.bin'));
  symlinkSync('../pix-usdt/dist/cli.js', join(modules, '.bin/pix-usdt-sandbox'));
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'partner-sandbox', private: true, type: 'module', dependencies: { 'pix-usdt': '*', workerd: '*', esbuild: '*' } }));
  writeFileSync(join(scratch, 'worker.ts'), WORKER);
  client = (await import(join(modules, 'pix-usdt/dist/index.js'))) as Client;
  webhooks = (await import(join(modules, 'pix-usdt/dist/webhooks.js'))) as Webhooks;
  receiver = listen();
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  port = await freePort();
}, 120_000);

afterAll(async () => {
  if (command !== null && command.child.exitCode === null) {
    command.child.kill('SIGTERM');
    await command.exited;
  }
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe('pix-usdt/durable-object from the tarball, on workerd', () => {
  it('runs from the documented command: tenants, alarms, the operator views, kill -9 and a restart', async () => {
    const ready = await start();
    const url = ready.url;
    const operator = { authorization: `Bearer ${ready.control_key}` };
    const tenant = async (): Promise<{ tenantId: string; apiKey: string; client: PixUsdt }> => {
      const response = await fetch(`${url}/v1/test_helpers/tenants`, { method: 'POST', headers: { ...operator, 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(201);
      const made = (await response.json()) as { tenant_id: string; api_key: string };
      // The key as printed, or (today) inside the reference's key object.
      const apiKey = made.api_key;
      return { tenantId: made.tenant_id, apiKey, client: new client.PixUsdt({ apiKey, baseUrl: url, maxRetries: 0 }) };
    };
    const lifecycle = async (c: PixUsdt, n: number, settle: boolean) => {
      const user = await c.users.create({ external_id: `do-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
      await c.testHelpers.users.kyc(user.id, { status: 'approved' });
      const quote = await c.quotes.create({ user_id: user.id, source_currency: 'BRL', target_currency: 'USDT', source_amount: '540.00', destination_wallet_address: WALLET, destination_wallet_network: 'polygon' });
      const acceptKey = `accept-${n}`;
      const conv = await c.quotes.accept(quote.id, {}, { idempotencyKey: acceptKey });
      await c.testHelpers.conversions.simulateOnrampPixPaid(conv.id, { settle });
      return { conversionId: conv.id, acceptKey };
    };
    const endpoint = async (c: PixUsdt, path: string) => {
      const created = await c.webhookEndpoints.create({ url: `${receiverUrl}${path}`, event_types: ['*'] });
      secrets.set(path, created.secret!);
    };
    const completed = (path: string, conversionId: string) => verified.filter((v) => v.path === path && v.type === 'conversion.completed' && v.conversionId === conversionId);

    // The command made a first tenant: its key works as printed.
    const first = new client.PixUsdt({ apiKey: ready.api_key, baseUrl: url, maxRetries: 0 });
    expect((await first.users.list()).data).toEqual([]);

    const a = await tenant();
    const b = await tenant();
    expect(a.tenantId).not.toBe(b.tenantId);
    await endpoint(a.client, '/a');
    await endpoint(b.client, '/b');

    // A: a conversion left to its settlement timer; the tenant stays idle until the alarm settles it.
    const aConv = await lifecycle(a.client, 1, false);
    expect((await a.client.conversions.retrieve(aConv.conversionId)).status).toBe('funded');
    await until('the alarm to settle A', () => (completed('/a', aConv.conversionId).length === 1 ? true : undefined));
    expect((await a.client.conversions.retrieve(aConv.conversionId)).status).toBe('completed');

    // B: a completed lifecycle, and one waiting for its timer at the kill.
    const bDone = await lifecycle(b.client, 2, true);
    await expect(a.client.conversions.retrieve(bDone.conversionId)).rejects.toMatchObject({ status: 404 });
    // B's key makes a tenant (the test helper, as in any sandbox), in an object of its own.
    const c = await b.client.testHelpers.tenants.create({});
    const cClient = new client.PixUsdt({ apiKey: c.api_key, baseUrl: url, maxRetries: 0 });
    expect((await cClient.users.list()).data).toEqual([]);
    const bPending = await lifecycle(b.client, 3, false);
    // A fork of B (its pending timer included), in another object.
    const fork = await b.client.testHelpers.tenants.create({ snapshot: await b.client.testHelpers.tenants.snapshot() });
    const forkClient = new client.PixUsdt({ apiKey: fork.api_key, baseUrl: url, maxRetries: 0 });
    expect((await forkClient.conversions.retrieve(bPending.conversionId)).status).toBe('funded');
    // Both timers (B's and its fork's) are due by then, whatever the fork does with a due time.
    const dueBy = Date.now() + SETTLE_SECONDS * 1000 + 500;

    // The operator's views. The listing (the directory's): every tenant made.
    const listed = (await (await fetch(`${url}/_sandbox/tenants`, { headers: operator })).json()) as { data: Array<{ tenant_id: string }> };
    expect(listed.data.map((t) => t.tenant_id)).toEqual(expect.arrayContaining([ready.tenant_id, a.tenantId, b.tenantId, c.tenant_id, fork.tenant_id]));
    // One tenant's log, routed to its object: A's lines, as serve's feed writes them.
    const feed = await fetch(`${url}/_sandbox/logs?tenant_id=${a.tenantId}&backlog=50`, { headers: operator });
    expect(feed.headers.get('content-type')).toBe('text/event-stream');
    const reader = feed.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('"path":"/v1/quotes"')) text += (await reader.read()).value ?? '';
    await reader.cancel();
    const lines = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as { tenant_id: string; method: string; path: string; status: number });
    expect(lines.every((l) => l.tenant_id === a.tenantId)).toBe(true);
    expect(lines).toContainEqual(expect.objectContaining({ method: 'POST', path: '/v1/users', status: 201 }));
    // Its inspector: the page, and the tenant's state through the inspection API.
    const page = await fetch(ready.inspector_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script src="app.js">');
    const inspected = (await (await fetch(`${url}/_inspector/api/tenants/${a.tenantId}`, { headers: operator })).json()) as { id: string; users: unknown[]; conversions: Array<{ id: string }> };
    expect(inspected.id).toBe(a.tenantId);
    expect(inspected.conversions.map((x) => x.id)).toContain(aConv.conversionId);
    // A tenant's key opens none of it.
    for (const path of ['/_sandbox/tenants', '/_inspector/api/tenants', `/_inspector/api/tenants/${a.tenantId}`]) {
      expect((await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${a.apiKey}` } })).status, path).toBe(401);
    }

    const before = {
      a: (await a.client.users.list()).data.map((u) => u.id),
      b: (await b.client.conversions.list()).data.map((x) => [x.id, x.status]),
      fork: (await forkClient.users.list()).data.map((u) => u.id),
    };

    // kill -9 of workerd before B's timer is due; it falls due while workerd is down. The command says so and exits 1.
    process.kill(ready.pid, 'SIGKILL');
    expect(await command!.exited).toBe(1);
    expect(command!.stderr()).toContain('the data in');
    expect(completed('/b', bPending.conversionId)).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueBy - Date.now())));
    const again = await start();
    expect({ url: again.url, api_key: again.api_key, tenant_id: again.tenant_id }).toEqual({ url, api_key: ready.api_key, tenant_id: ready.tenant_id });

    // With no request to B or its fork: the alarms fire after the restart, and each object delivers its own event.
    const after = await until('the alarms after the restart', () => (completed('/b', bPending.conversionId).length === 2 ? completed('/b', bPending.conversionId) : undefined));
    expect(new Set(after.map((x) => x.eventId)).size).toBe(2);
    expect(refused).toEqual([]);

    // Every answered mutation is there, keys still route (the directory), replays still replay.
    expect((await a.client.users.list()).data.map((u) => u.id)).toEqual(before.a);
    expect((await forkClient.users.list()).data.map((u) => u.id)).toEqual(before.fork);
    const bNow = (await b.client.conversions.list()).data.map((x) => [x.id, x.status]);
    expect(bNow.map(([id]) => id)).toEqual(before.b.map(([id]) => id));
    expect(bNow.find(([id]) => id === bPending.conversionId)?.[1]).toBe('completed');
    const replay = await b.client.quotes
      .accept((await b.client.conversions.retrieve(bDone.conversionId)).quote_id, {}, { idempotencyKey: bDone.acceptKey })
      .withResponse();
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect((await cClient.users.list()).data).toEqual([]);
  }, 90_000);
});
