/**
 * The Durable Objects deployment on the bare workerd binary (examples/durable-object, the Worker
 * `export { default, TenantObject, Directory } from 'pix-usdt/durable-object'` bundled from the
 * built package as wrangler bundles it; `npm run build` first): two
 * tenants' lifecycles through the public client, one left idle until its alarm settles a
 * conversion (a receiver here verifies the signed delivery at the default tolerance), a fork of a
 * tenant in an object of its own, then `kill -9`, a timer falling due while workerd is down, a
 * restart, and every answered mutation and pending timer still there.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../src/index.js';
import { constructEvent } from '../../src/webhooks/index.js';
import { cpf } from '../support/fixtures.js';
import { type Deployment, deploy } from '../support/workerd.js';

const WALLET = '0x1111111111111111111111111111111111111111';
const SETTLE_SECONDS = 3;

interface Delivery {
  path: string;
  type: string;
  conversionId: string | undefined;
  eventId: string;
}

/** A webhook receiver that verifies every delivery with the endpoint's secret (default tolerance) before acknowledging it. */
function receiver(): { server: Server; secrets: Map<string, string>; verified: Delivery[]; refused: string[]; url: () => string } {
  const secrets = new Map<string, string>();
  const verified: Delivery[] = [];
  const refused: string[] = [];
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => resolve(body));
    });
  const server = createServer((req, res) => {
    void read(req).then(async (body) => {
      const path = req.url ?? '';
      const secret = secrets.get(path);
      try {
        if (secret === undefined) throw new Error(`no secret for ${path}`);
        const event = await constructEvent(body, req.headers as Record<string, string>, secret);
        const object = event.data.object as { id?: string };
        verified.push({ path, type: event.type, conversionId: event.type.startsWith('conversion.') ? object.id : undefined, eventId: event.id });
        res.writeHead(204).end();
      } catch (error) {
        refused.push(String(error));
        res.writeHead(400).end();
      }
    });
  });
  return { server, secrets, verified, refused, url: () => `http://127.0.0.1:${(server.address() as { port: number }).port}` };
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

let dir: string;
let d: Deployment;
const hooks = receiver();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pix-usdt-do-'));
  await new Promise<void>((resolve) => hooks.server.listen(0, '127.0.0.1', resolve));
  d = await deploy(dir, { SETTLEMENT_DELAY_SECONDS: String(SETTLE_SECONDS), QUOTE_RATE_LIMIT: '0' });
  await d.start();
}, 60_000);

afterAll(async () => {
  await d?.kill();
  await new Promise<void>((resolve) => hooks.server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** A tenant made by the operator's token, and the client over its key. */
async function operatorTenant(): Promise<{ tenantId: string; client: PixUsdt; apiKey: string }> {
  const response = await fetch(`${d.url}/v1/test_helpers/tenants`, { method: 'POST', headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' }, body: '{}' });
  expect(response.status).toBe(201);
  const made = (await response.json()) as { tenant_id: string; api_key: string };
  return { tenantId: made.tenant_id, apiKey: made.api_key, client: new PixUsdt({ apiKey: made.api_key, baseUrl: d.url, maxRetries: 0 }) };
}

/** User, KYC, quote, accept, Pix paid: the conversion then waits for its settlement timer (or completes at once with `settle`). */
async function lifecycle(client: PixUsdt, n: number, settle: boolean): Promise<{ userId: string; conversionId: string; acceptKey: string }> {
  const user = await client.users.create({ external_id: `do-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const quote = await client.quotes.create({ user_id: user.id, source_currency: 'BRL', target_currency: 'USDT', source_amount: '540.00', destination_wallet_address: WALLET, destination_wallet_network: 'polygon' });
  const acceptKey = `accept-${n}`;
  const conv = await client.quotes.accept(quote.id, {}, { idempotencyKey: acceptKey });
  await client.testHelpers.conversions.simulateOnrampPixPaid(conv.id, { settle });
  return { userId: user.id, conversionId: conv.id, acceptKey };
}

async function endpoint(client: PixUsdt, path: string): Promise<void> {
  const created = await client.webhookEndpoints.create({ url: `${hooks.url()}${path}`, event_types: ['*'] });
  hooks.secrets.set(path, created.secret!);
}

const completed = (path: string, conversionId: string) => hooks.verified.filter((v) => v.path === path && v.type === 'conversion.completed' && v.conversionId === conversionId);

describe('the sandbox on Durable Objects (workerd)', () => {
  it('keeps two tenants apart, settles by alarm, forks into a new object, and survives kill -9 with its timers', async () => {
    const a = await operatorTenant();
    const b = await operatorTenant();
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
    // Tenants are apart: A's key does not see B's conversion.
    await expect(a.client.conversions.retrieve(bDone.conversionId)).rejects.toMatchObject({ status: 404 });
    // B's key makes a tenant (the test helper, as in any sandbox), in an object of its own.
    const c = await b.client.testHelpers.tenants.create({});
    const cClient = new PixUsdt({ apiKey: c.api_key, baseUrl: d.url, maxRetries: 0 });
    expect((await cClient.users.list()).data).toEqual([]);
    const bPending = await lifecycle(b.client, 3, false);
    // A fork of B (its pending timer included), in another object.
    const fork = await b.client.testHelpers.tenants.create({ snapshot: await b.client.testHelpers.tenants.snapshot() });
    const forkClient = new PixUsdt({ apiKey: fork.api_key, baseUrl: d.url, maxRetries: 0 });
    expect((await forkClient.conversions.retrieve(bPending.conversionId)).status).toBe('funded');
    const before = {
      a: (await a.client.users.list()).data.map((u) => u.id),
      b: (await b.client.conversions.list()).data.map((x) => [x.id, x.status]),
      fork: (await forkClient.users.list()).data.map((u) => u.id),
    };

    // kill -9 before B's timer is due; it falls due while workerd is down.
    await d.kill();
    expect(completed('/b', bPending.conversionId)).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000 + 500));
    await d.start();

    // With no request to B or its fork: the alarms fire after the restart, and each object delivers its own event.
    const after = await until('the alarms after the restart', () => (completed('/b', bPending.conversionId).length === 2 ? completed('/b', bPending.conversionId) : undefined));
    expect(new Set(after.map((x) => x.eventId)).size).toBe(2);
    expect(hooks.refused).toEqual([]);

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
