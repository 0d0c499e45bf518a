/**
 * A tenant document is untrusted input (issue 35): parsed by one schema, renamed structurally,
 * restored in work bounded by its size, and refused whole (TenantDocumentError in process, an
 * enveloped 400 over HTTP, nothing changed) when any part is invalid. Each finding of the issue
 * and its siblings, in memory and on a stored sandbox; the operator's views survive one bad
 * tenant; a replay answers from an allow-list whatever its record says.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import { type Sandbox, type TenantDocument, TenantDocumentError, createSandbox } from '../../../src/sandbox/index.js';
import { internalsOf } from '../../../src/sandbox/sandbox.js';
import { hash53 } from '../../../src/sandbox/core/random.js';
import type { IdempotencyRec } from '../../../src/sandbox/core/state.js';
import type { TenantDocumentRecords } from '../../../src/sandbox/core/transfer.js';
import { createConversion } from '../../../src/testing/index.js';
import { inMemoryAndStored } from '../../support/stored.js';
import { pushesDuring } from '../../support/work.js';
import { documentRecords } from '../../support/records.js';
import { WALLET, cpf } from '../../support/fixtures.js';

const T0 = Date.parse('2026-03-02T12:00:00.000Z');
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

type Doc = TenantDocumentRecords & { tenant: Record<string, unknown> & TenantDocumentRecords['tenant'] };

function clientOf(sandbox: Sandbox, apiKey = sandbox.apiKey): PixUsdt {
  return new PixUsdt({ apiKey, fetch: sandbox.fetch, maxRetries: 0 });
}

/** A tenant with a bit of every record kind: users, quotes, conversions in several states, a transaction, an endpoint with deliveries, stored answers. */
async function populate(sandbox: Sandbox): Promise<void> {
  const client = clientOf(sandbox);
  await client.webhookEndpoints.create({ url: 'https://receiver.example/hooks', event_types: ['*'] });
  await createConversion(client, { status: 'completed' });
  await createConversion(client, { status: 'awaiting_deposit' });
  await createConversion(client, { status: 'standby' });
  const user = await client.users.create({ external_id: 'ext-t', name: 'Bia', document_type: 'cpf', document_number: cpf(77) }, { idempotencyKey: 'user-t' });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const quote = await client.quotes.create(
    { user_id: user.id, source_currency: 'BRL', target_currency: 'USDT', source_amount: '100.00', destination_wallet_address: WALLET, destination_wallet_network: 'polygon' },
    { idempotencyKey: 'quote-t' },
  );
  await client.transactions.create({ quote_id: quote.id } as never, { idempotencyKey: 'tx-t' });
}

function exported(sandbox: Sandbox, tenantId?: string): Doc {
  return JSON.parse(JSON.stringify(sandbox.exportTenant(tenantId))) as Doc;
}

/** What must not change when a document is refused: the tenants and each one's document, and the platform's shared usage. */
function state(sandbox: Sandbox): string {
  const { platform } = internalsOf(sandbox)!;
  const ids = sandbox.inspector.tenants().map((t) => t.id);
  return JSON.stringify({ ids, docs: ids.map((id) => ({ ...exported(sandbox, id), exported_at: '' })), platformUsage: [...platform.platformUsage] });
}

/** Forks `doc` in process and over HTTP: both refuse it with `problem` and an issue at `path`, and nothing changes. */
async function refused(sandbox: Sandbox, doc: unknown, problem: string, path: string, what = path): Promise<void> {
  const before = state(sandbox);
  let error: unknown;
  try {
    sandbox.createTenant({ snapshot: doc as TenantDocument });
  } catch (e) {
    error = e;
  }
  expect(error, what).toBeInstanceOf(TenantDocumentError);
  expect((error as TenantDocumentError).problem, what).toBe(problem);
  expect((error as TenantDocumentError).issues.map((i) => i.path), what).toContain(path);
  const response = await sandbox.fetch('/v1/test_helpers/tenants', {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ snapshot: doc }),
  });
  const body = (await response.json()) as { code: string; request_id: string; details: { problem: string; issues: Array<{ path: string; message: string }> } };
  expect(response.status, what).toBe(400);
  expect(body.code, what).toBe('validation_error');
  expect(body.request_id, what).toMatch(/^req_/);
  expect(body.details.problem, what).toBe(problem);
  expect(body.details.issues.map((i) => i.path), what).toContain(path === '' ? 'snapshot' : `snapshot.${path}`);
  expect(state(sandbox), what).toBe(before);
}

const edit = (doc: Doc, change: (d: Doc) => void): Doc => {
  const copy = JSON.parse(JSON.stringify(doc)) as Doc;
  change(copy);
  return copy;
};
const at = <T>(list: unknown, i = 0): T => (list as T[])[i] as T;

describe.each(inMemoryAndStored({ seed: 'document', now: T0 }, closers))('tenant documents (%s)', (_name, make) => {
  it('HIGH: a record whose seq is far past the others restores in work bounded by the document, not by the seq', async () => {
    const sandbox = make();
    const client = clientOf(sandbox);
    await client.webhookEndpoints.create({ url: 'https://receiver.example/a', event_types: ['*'] });
    for (const n of [1, 2, 3]) await client.users.create({ external_id: `e${n}`, name: 'Ana', document_type: 'cpf', document_number: cpf(n) });
    await sandbox.webhooks.flush();
    const doc = exported(sandbox);
    const hooks = doc.tenant.extensions['webhooks'] as { endpoints: Array<{ seq: number }>; deliveries: Array<{ seq: number; id: string }> };
    // The last delivery's position moves far past the others: everything up to it was filled, one slot at a time.
    expect(hooks.deliveries.length).toBeGreaterThan(1);
    const size = JSON.stringify(doc).length;
    const plain = pushesDuring(() => sandbox.createTenant({ snapshot: doc })).pushes;
    // Deliveries are trimmed, so their positions may have gaps: a gap of 2,000,000 or of 2^31 - 2 costs what the document costs.
    for (const seq of [2_000_000, 2 ** 31 - 1]) {
      const far = edit(doc, (d) => ((d.tenant.extensions['webhooks'] as typeof hooks).deliveries.at(-1)!.seq = seq));
      const { result: fork, pushes } = pushesDuring(() => sandbox.createTenant({ snapshot: far }));
      expect(pushes).toBeLessThan(plain + 100);
      expect(pushes).toBeLessThan(size);
      const forkClient = clientOf(sandbox, fork.apiKey);
      const listed = await forkClient.webhookEndpoints.listDeliveries((await forkClient.webhookEndpoints.list()).data[0]!.id);
      expect(listed.data.map((d) => d.id).sort()).toEqual(hooks.deliveries.map((d) => d.id).sort());
    }
    // Endpoints are never removed: their positions are dense, and a document that says otherwise is refused.
    const endpoint = edit(doc, (d) => ((d.tenant.extensions['webhooks'] as typeof hooks).endpoints[0]!.seq = 2_000_000));
    await refused(sandbox, endpoint, 'damaged', 'tenant.extensions.webhooks.endpoints.0.seq');
    await refused(sandbox, edit(doc, (d) => (at<{ seq: number }>(d.tenant.users).seq = 2_000_000)), 'damaged', 'tenant.users.0.seq');
    for (const seq of [2 ** 31, 1e300, -1, 1.5]) {
      await refused(sandbox, edit(doc, (d) => ((d.tenant.extensions['webhooks'] as typeof hooks).deliveries[0]!.seq = seq)), 'damaged', 'tenant.extensions.webhooks.deliveries.0.seq', `seq ${seq}`);
    }
  });

  it('MEDIUM: a stored answer with a status outside 200-599 or headers off the allow-list is refused, field by field', async () => {
    const sandbox = make();
    const client = clientOf(sandbox);
    await client.users.create({ external_id: 'e1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) }, { idempotencyKey: 'u1' });
    const doc = exported(sandbox);
    const answer = (change: (r: Record<string, unknown> & { headers: Record<string, string> }) => void): Doc => edit(doc, (d) => change(at(d.tenant.idempotency)));
    for (const status of [999, 101, 199, 600, 200.5]) await refused(sandbox, answer((r) => (r.status = status)), 'damaged', 'tenant.idempotency.0.status', `status ${status}`);
    const headers: Array<[string, string]> = [
      ['content-length', '495'],
      ['transfer-encoding', 'chunked'],
      ['set-cookie', 'session=stolen'],
      ['location', 'https://evil.example/'],
      ['connection', 'close'],
      ['content-type', 'application/json\r\nset-cookie: a=b'],
      ['x-pix-usdt-note', 'line\nbreak'],
      ['Content-Type', 'text/html'],
    ];
    for (const [name, value] of headers) await refused(sandbox, answer((r) => (r.headers[name] = value)), 'damaged', `tenant.idempotency.0.headers.${name}`, name);
    await refused(sandbox, answer((r) => (r.headers['x-request-id'] = 'req_1\r\nx: y')), 'damaged', 'tenant.idempotency.0.headers.x-request-id');
    await refused(sandbox, answer((r) => (r.body = `${'['.repeat(100)}${']'.repeat(100)}`)), 'damaged', 'tenant.idempotency.0.body');
  });

  it('MEDIUM: a clock or an instant outside 1970-9999 is refused (the far-future clock made the fork, its export and every tenant listing answer 500)', async () => {
    const sandbox = make();
    await createConversion(clientOf(sandbox), { status: 'awaiting_deposit' });
    const doc = exported(sandbox);
    for (const now of ['+275760-09-13T00:00:00.000Z', '10000-01-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z', '2026-03-02', 'March 2, 2026']) {
      await refused(sandbox, edit(doc, (d) => (d.tenant.now = now)), 'damaged', 'tenant.now', now);
    }
    await refused(sandbox, edit(doc, (d) => (at<Record<string, unknown>>(d.tenant.conversions).windowExpiresAt = 8.64e15)), 'damaged', 'tenant.conversions.0.windowExpiresAt');
    await refused(sandbox, edit(doc, (d) => (at<Record<string, unknown>>(d.tenant.events).created_at = '+275760-09-13T00:00:00.000Z')), 'damaged', 'tenant.events.0.created_at');
    // The inspector still lists every tenant.
    const listing = await sandbox.inspector.fetch(new Request('https://sandbox.local/_inspector/api/tenants'));
    expect(listing.status).toBe(200);
  });

  it('LOW: every record field is checked: ids, amounts, instants, states, references, keys, settings and extensions', async () => {
    const sandbox = make();
    await populate(sandbox);
    const doc = exported(sandbox);
    const cases: Array<[string, (d: Doc) => void, string]> = [
      // Ids that text replacement turned into corruption.
      ['a tenant id of "', (d) => (d.tenant.id = '"'), 'tenant.id'],
      ['a tenant id of ,', (d) => (d.tenant.id = ','), 'tenant.id'],
      ['a key id of 1', (d) => (at<Record<string, unknown>>(d.tenant.keys).id = '1'), 'tenant.keys.0.id'],
      ['a key id of status', (d) => (at<Record<string, unknown>>(d.tenant.keys).id = 'status'), 'tenant.keys.0.id'],
      ['a user id that is not a UUID', (d) => (at<Record<string, unknown>>(d.tenant.users).id = 'user-1'), 'tenant.users.0.id'],
      // Amounts.
      ['an amount of NaN', (d) => (at<Record<string, unknown>>(d.tenant.conversions).expected = 'NaN'), 'tenant.conversions.0.expected'],
      ['a negative amount', (d) => (at<Record<string, unknown>>(d.tenant.conversions).received = '-5.00'), 'tenant.conversions.0.received'],
      ['an amount in exponent form', (d) => (at<Record<string, unknown>>(d.tenant.quotes).sourceAmount = '1e3'), 'tenant.quotes.0.sourceAmount'],
      ['an amount past 10^15', (d) => (at<Record<string, unknown>>(d.tenant.users).balance = '1000000000000000.00'), 'tenant.users.0.balance'],
      ['a usage counter that is not an amount', (d) => (d.tenant.usage = [['d1', '-1']]), 'tenant.usage.0.1'],
      // Instants.
      ['a window expiry of "abc"', (d) => (at<Record<string, unknown>>(d.tenant.conversions).windowExpiresAt = 'abc'), 'tenant.conversions.0.windowExpiresAt'],
      ['a quote expiry of {}', (d) => (at<Record<string, unknown>>(d.tenant.quotes).expiresAt = {}), 'tenant.quotes.0.expiresAt'],
      ['a fractional instant', (d) => (at<Record<string, unknown>>(d.tenant.users).createdAt = 1.5), 'tenant.users.0.createdAt'],
      // States the machines never reach, and unknown fields.
      ['a conversion state no machine reaches', (d) => (at<Record<string, unknown>>(d.tenant.conversions).status = 'teleported'), 'tenant.conversions.0.status'],
      ['a KYC state no machine reaches', (d) => (at<Record<string, unknown>>(d.tenant.users).kycStatus = 'blocked'), 'tenant.users.0.kycStatus'],
      ['a field no record has', (d) => (at<Record<string, unknown>>(d.tenant.users).isAdmin = true), 'tenant.users.0'],
      // References that do not resolve.
      ['a conversion of a quote not in the tenant', (d) => (at<Record<string, unknown>>(d.tenant.conversions).quoteId = '00000000-0000-4000-8000-000000000000'), 'tenant.conversions.0.quoteId'],
      ['a quote of a user not in the tenant', (d) => (at<Record<string, unknown>>(d.tenant.quotes).userId = '00000000-0000-4000-8000-000000000000'), 'tenant.quotes.0.userId'],
      // Keys.
      ['two keys with one secret', (d) => d.tenant.keys.push({ ...at<Record<string, unknown>>(d.tenant.keys), id: '00000000-0000-4000-8000-000000000001' } as never), 'tenant.keys.1.secret'],
      ['a key with an unknown capability', (d) => (at<{ capabilities: string[] }>(d.tenant.keys).capabilities = ['root']), 'tenant.keys.0.capabilities.0'],
      ['a rate window of a key not in the tenant', (d) => (d.tenant.rateWindows = [['00000000-0000-4000-8000-000000000000', [T0]]]), 'tenant.rateWindows.0.0'],
      // Settings and extensions (these were 500s).
      ['settings: { price: 5 }', (d) => (d.tenant.settings = { price: 5 } as never), 'tenant.settings.price'],
      ['unknown settings', (d) => (d.tenant.settings = { colour: {} } as never), 'tenant.settings.colour'],
      ['extensions.webhooks: 5', (d) => (d.tenant.extensions['webhooks'] = 5), 'tenant.extensions.webhooks'],
      ['an extension no plugin has', (d) => (d.tenant.extensions['padding'] = 'x'), 'tenant.extensions'],
      ['a delivery to an endpoint not in the tenant', (d) => (at<Record<string, unknown>>((d.tenant.extensions['webhooks'] as { deliveries: unknown }).deliveries).endpointId = '00000000-0000-4000-8000-000000000000'), 'tenant.extensions.webhooks.deliveries.0.endpointId'],
      ['an endpoint URL that is not https', (d) => (at<Record<string, unknown>>((d.tenant.extensions['webhooks'] as { endpoints: unknown }).endpoints).url = 'file:///etc/passwd'), 'tenant.extensions.webhooks.endpoints.0.url'],
    ];
    for (const [what, change, path] of cases) await refused(sandbox, edit(doc, change), 'damaged', path, what);
    // A document nested deeper than any of ours (40 levels: within what the HTTP body reader takes): refused before anything walks it.
    let deep: Record<string, unknown> = {};
    const nested = edit(doc, (d) => (at<{ data: { object: Record<string, unknown> } }>(d.tenant.events).data.object['nested'] = deep));
    for (let i = 0; i < 40; i++) deep = deep['a'] = {};
    await refused(sandbox, nested, 'damaged', '');
    // The secret of another tenant's key, under a tenant id of the document's own.
    const other = sandbox.createTenant();
    await refused(sandbox, edit(doc, (d) => (at<Record<string, unknown>>(d.tenant.keys).secret = other.apiKey)), 'damaged', 'tenant.keys.0.secret');
    // No secret of the document in any refusal.
    const twoKeys = edit(doc, (d) => d.tenant.keys.push({ ...at<Record<string, unknown>>(d.tenant.keys), id: '00000000-0000-4000-8000-000000000001' } as never));
    expect(() => sandbox.createTenant({ snapshot: twoKeys })).toThrow(expect.not.objectContaining({ message: expect.stringContaining(at<{ secret: string }>(doc.tenant.keys).secret) }));
  });

  it('LOW: a fork renames structurally: ids inside other text stay, statuses stay, a stored rotation answer names the new key', async () => {
    const sandbox = make();
    const client = clientOf(sandbox);
    const tenantId = sandbox.tenantId;
    const user = await client.users.create({ external_id: `ext-${tenantId}`, name: 'Ana', document_type: 'cpf', document_number: cpf(1), metadata: { note: `made by tenant ${tenantId}, status: ok` } });
    await createConversion(client, { status: 'standby' });
    const keys = await client.apiKeys.list();
    const rotated = await client.apiKeys.rotate(keys.data[0]!.id, { idempotencyKey: 'rotate-1' });
    const doc = exported(sandbox);
    const fork = sandbox.createTenant({ snapshot: doc });
    const forkClient = clientOf(sandbox, fork.apiKey);
    // Text that holds the old tenant id is the partner's text: it stays as it was.
    const forkedUser = await forkClient.users.retrieve(user.id);
    expect(forkedUser.external_id).toBe(`ext-${tenantId}`);
    expect(forkedUser.metadata).toEqual({ note: `made by tenant ${tenantId}, status: ok` });
    expect((await forkClient.conversions.list()).data.map((c) => c.status)).toEqual(['standby']);
    // The stored answer of the rotation names the fork's own key (id, secret and prefix), as a whole value where it was.
    const forked = documentRecords(sandbox.exportTenant(fork.tenantId)).tenant;
    const replay = JSON.parse(forked.idempotency.find((r) => r.key === 'rotate-1')!.body!) as Record<string, unknown>;
    const newKey = forked.keys.find((k) => k.secret === fork.apiKey)!;
    expect(replay['api_key']).toBe(newKey.secret);
    expect(replay['id']).toBe(newKey.id);
    expect(replay['key_prefix']).toBe(newKey.secret.slice(0, 12));
    expect(JSON.stringify(replay)).not.toContain(rotated.api_key);
  });

  it('a real export of more than 1 MB forks, in process and over HTTP', async () => {
    const sandbox = make();
    const client = clientOf(sandbox);
    for (let i = 0; i < 3; i++) await client.users.create({ external_id: `big-${i}`, name: 'Ana', document_type: 'cpf', document_number: cpf(i + 1), metadata: { notes: 'x'.repeat(300_000) } });
    const doc = exported(sandbox);
    expect(JSON.stringify(doc).length).toBeGreaterThan(1_390_000);
    expect(sandbox.createTenant({ snapshot: doc }).tenantId).toMatch(/^[0-9a-f-]{36}$/);
    const response = await sandbox.fetch('/v1/test_helpers/tenants', {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ snapshot: doc }),
    });
    expect(response.status).toBe(201);
  });
});

describe('a replay answers from the allow-list, whatever its record says', () => {
  /** A stored answer put in the tenant's store directly, as one that reached storage some other way would be. */
  function plant(sandbox: Sandbox, key: string, body: string, record: Partial<IdempotencyRec>): void {
    const { platform } = internalsOf(sandbox)!;
    const tenant = platform.tenants.get(sandbox.tenantId)!;
    const fingerprint = hash53(`POST /v1/users\n${body}`, 1);
    tenant.idempotency.set(key, { key, fingerprint, startedAt: tenant.clock.nowMs(), status: 201, body: '{"id":"x"}', requestId: 'req_0123456789abcdef0123456789abcdef', headers: null, ...record });
  }
  const post = (sandbox: Sandbox, key: string, body: string): Promise<Response> =>
    sandbox.fetch('/v1/users', { method: 'POST', headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': key }, body });

  it('drops framing, cookies, redirects and control characters; answers its own request id; a bad status is an enveloped 500', async () => {
    const sandbox = createSandbox({ seed: 'replay', now: T0 });
    const body = JSON.stringify({ external_id: 'e', name: 'Ana', document_type: 'cpf', document_number: cpf(1) });
    plant(sandbox, 'headers', body, {
      headers: {
        'content-type': 'application/json',
        'content-length': '495',
        'transfer-encoding': 'chunked',
        'set-cookie': 'session=stolen',
        location: 'https://evil.example/',
        'retry-after': '1\r\nx-injected: yes',
        'x-pix-usdt-sandbox-fault-plan': 'plan-1',
      },
      requestId: 'req_1\r\nset-cookie: a=b',
    });
    const replay = await post(sandbox, 'headers', body);
    expect(replay.status).toBe(201);
    expect(Object.fromEntries(replay.headers)).toEqual({
      'content-type': 'application/json',
      'idempotent-replayed': 'true',
      'x-pix-usdt-sandbox-fault-plan': 'plan-1',
      'x-request-id': expect.stringMatching(/^req_[0-9a-f]{32}$/),
    });
    // A 204 answers no body and no type.
    plant(sandbox, 'empty', body, { status: 204, body: 'smuggled', headers: { 'content-type': 'text/html', 'content-length': '495' } });
    const empty = await post(sandbox, 'empty', body);
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe('');
    expect(empty.headers.get('content-type')).toBeNull();
    for (const status of [999, 101, 0.5]) {
      plant(sandbox, `status-${status}`, body, { status });
      const bad = await post(sandbox, `status-${status}`, body);
      expect(bad.status).toBe(500);
      expect(await bad.json()).toMatchObject({ code: 'internal_error', message: expect.stringContaining('cannot be replayed') });
    }
    // Nothing ran: no user was created by any of these.
    expect((await clientOf(sandbox).users.list()).data).toEqual([]);
  });
});

describe('the operator views survive one bad tenant', () => {
  it.each(inMemoryAndStored({ seed: 'views', now: T0 }, closers))('a tenant whose clock is out of range is listed as such; the others answer 200 (%s)', async (_name, make) => {
    const sandbox = make();
    const bad = sandbox.createTenant();
    const good = sandbox.createTenant();
    await createConversion(clientOf(sandbox, good.apiKey), { status: 'awaiting_deposit' });
    // A clock no document may carry any more, as a tenant stored before the schema could have.
    internalsOf(sandbox)!.platform.tenants.get(bad.tenantId)!.clock.set(8.64e15 + 60_000);
    const get = (path: string): Promise<Response> => sandbox.inspector.fetch(new Request(`https://sandbox.local/_inspector/api/${path}`));
    const listing = await get('tenants');
    expect(listing.status).toBe(200);
    const tenants = (await listing.json()) as Array<{ id: string; now: string | null; problem?: string }>;
    expect(tenants.map((t) => t.id)).toEqual([sandbox.tenantId, bad.tenantId, good.tenantId]);
    expect(tenants.find((t) => t.id === bad.tenantId)).toMatchObject({ now: null, problem: expect.stringContaining('cannot be shown') });
    expect(tenants.find((t) => t.id === good.tenantId)).toMatchObject({ now: expect.any(String) });
    expect(tenants.find((t) => t.id === good.tenantId)?.problem).toBeUndefined();
    expect((await get(`tenants/${good.tenantId}`)).status).toBe(200);
    expect((await get(`search?q=${good.tenantId.slice(0, 8)}`)).status).toBe(200);
    const page = await get(`tenants/${bad.tenantId}`);
    expect(page.status).toBe(500);
    expect(await page.json()).toMatchObject({ code: 'internal_error', message: expect.stringContaining(bad.tenantId), details: { tenant_id: bad.tenantId } });
    // The other tenants' exports answer.
    expect(sandbox.exportTenant(good.tenantId).tenant.id).toBe(good.tenantId);
  });
});

describe('shared platform limits: a fork holds what its records hold', () => {
  const limits = { platformScope: 'shared' as const, platform: { daily: '2000.00', monthly: '100000.00' } };

  it('holds its reservations on the platform, releases only those, and is refused when they do not fit', async () => {
    const sandbox = createSandbox({ seed: 'shared', now: T0, limits });
    const { platform } = internalsOf(sandbox)!;
    const usage = (): Record<string, string> => Object.fromEntries(platform.platformUsage);
    const x = sandbox.createTenant();
    const y = sandbox.createTenant();
    // X fills most of the platform's daily ceiling.
    await createConversion(clientOf(sandbox, x.apiKey), { status: 'awaiting_deposit', amount: '1500.00' });
    // Y holds a small conversion, and a document of it says 1,000,000.00 is reserved.
    const held = await createConversion(clientOf(sandbox, y.apiKey), { status: 'awaiting_deposit', amount: '100.00' });
    const before = usage();
    const doc = edit(exported(sandbox, y.tenantId), (d) => (at<Record<string, unknown>>(d.tenant.conversions).reservedBrl = '1000000.00'));
    await refused(sandbox, doc, 'limits', 'tenant');
    expect(usage()).toEqual(before);
    // A fork that fits holds its reservation; cancelling it in the fork gives back exactly that.
    const fits = edit(exported(sandbox, y.tenantId), (d) => (at<Record<string, unknown>>(d.tenant.conversions).reservedBrl = '300.00'));
    const fork = sandbox.createTenant({ snapshot: fits });
    const day = Object.keys(before).find((k) => k.startsWith('d'))!;
    expect(usage()[day]).toBe((Number(before[day]) + 300).toFixed(2));
    await clientOf(sandbox, fork.apiKey).conversions.cancel(held.conversion.id);
    expect(usage()).toEqual(before);
    // X's next conversion still meets the operator's ceiling.
    await expect(createConversion(clientOf(sandbox, x.apiKey), { status: 'awaiting_deposit', amount: '500.00' })).rejects.toMatchObject({ code: 'transaction_limit_exceeded' });
  });
});

describe('a whole-sandbox snapshot is checked as a tenant document is', () => {
  it('refuses a damaged tenant, two tenants sharing a secret, or a missing default tenant, and changes nothing', async () => {
    const source = createSandbox({ seed: 'whole', now: T0 });
    source.createTenant();
    await clientOf(source).users.create({ external_id: 'e1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) });
    const target = createSandbox({ seed: 'whole-target', now: T0 });
    const before = JSON.stringify(target.snapshot());
    const snap = (): { tenants: Array<Record<string, unknown> & { keys: Array<Record<string, unknown>> }>; defaultTenantId: string } => JSON.parse(JSON.stringify(source.snapshot())) as never;
    const cases: Array<[string, ReturnType<typeof snap>, string]> = [];
    const damaged = snap();
    (damaged.tenants[0]!['users'] as Array<Record<string, unknown>>)[0]!['balance'] = 'NaN';
    cases.push(['a damaged tenant', damaged, 'tenants.0.users.0.balance']);
    const shared = snap();
    shared.tenants[1]!.keys[0]!['secret'] = shared.tenants[0]!.keys[0]!['secret'];
    cases.push(['two tenants sharing a secret', shared, 'tenants.1.keys.0.secret']);
    const headless = snap();
    headless.defaultTenantId = '00000000-0000-4000-8000-000000000000';
    cases.push(['no default tenant', headless, 'defaultTenantId']);
    for (const [what, snapshot, path] of cases) {
      let error: unknown;
      try {
        target.restore(snapshot as never);
      } catch (e) {
        error = e;
      }
      expect(error, what).toBeInstanceOf(TenantDocumentError);
      expect((error as TenantDocumentError).issues.map((i) => i.path), what).toContain(path);
      expect(JSON.stringify(target.snapshot()), what).toBe(before);
    }
  });
});
