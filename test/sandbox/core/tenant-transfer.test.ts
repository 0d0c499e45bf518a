/**
 * Tenants that move: a tenant as one versioned document (in process and over HTTP), a fork made
 * from it (same data, new tenant id and keys, timers on its own clock), and the refusals (another
 * version, damaged, too large) that create nothing. In memory and on stored tenants alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import { constructEvent } from '../../../src/webhooks/index.js';
import { MAX_TENANT_DOCUMENT_CHARS, type Sandbox, type TenantDocument, TenantDocumentError, createSandbox } from '../../../src/sandbox/index.js';
import { cpf, onrampBody } from '../../support/fixtures.js';
import { inMemoryAndStored } from '../../support/stored.js';
import { documentRecords } from '../../support/records.js';
import type { TenantDocumentRecords } from '../../../src/sandbox/core/transfer.js';

const T0 = Date.parse('2026-03-02T12:00:00.000Z');
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A tenant with a bit of everything: users, a conversion waiting to settle, an endpoint with its secret, a price of its own, a replayable answer. */
async function populate(sandbox: Sandbox, apiKey = sandbox.apiKey): Promise<{ client: PixUsdt; conversionId: string; endpointId: string }> {
  const client = new PixUsdt({ apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  const endpoint = await client.webhookEndpoints.create({ url: 'https://receiver.example/hooks', event_types: ['conversion.completed'] });
  const user = await client.users.create({ external_id: 'ext-1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const quote = await client.quotes.create(
    onrampBody(user.id),
    { idempotencyKey: 'quote-1' },
  );
  const conv = await client.quotes.accept(quote.id);
  // Paid: the conversion settles when its settlement delay has passed on the tenant's clock.
  await client.testHelpers.conversions.simulateOnrampPixPaid(conv.id);
  return { client, conversionId: conv.id, endpointId: endpoint.id };
}

/** A document with the ids of its tenant and keys (and the key secrets) replaced by placeholders, and its export time dropped. */
function anonymous(doc: TenantDocumentRecords): unknown {
  let text = JSON.stringify({ ...doc, exported_at: '' });
  text = text.split(doc.tenant.id).join('<tenant>');
  doc.tenant.keys.forEach((k, i) => {
    text = text.split(k.id).join(`<key ${i}>`).split(k.secret).join(`<secret ${i}>`);
  });
  return JSON.parse(text);
}

describe.each(inMemoryAndStored({ seed: 'transfer', now: T0 }, closers))('tenant snapshots and forks (%s)', (_name, make) => {
  it('exports a tenant as one versioned document, the same in process and over HTTP, with everything it holds', async () => {
    const sandbox = make();
    const { client, endpointId } = await populate(sandbox);
    const doc = documentRecords(sandbox.exportTenant());
    expect(doc).toMatchObject({ format: 'pix-usdt-tenant', version: 1, environment: 'sandbox' });
    const t = doc.tenant;
    expect(t.id).toBe(sandbox.tenantId);
    expect([t.users.length, t.quotes.length, t.conversions.length]).toEqual([1, 1, 1]);
    expect(t.keys.map((k) => k.secret)).toContain(sandbox.apiKey);
    expect(t.idempotency.map((r) => r.key)).toContain('quote-1');
    expect(t.events.map((e) => e.type)).toContain('conversion.created');
    const webhooks = t.extensions['webhooks'] as { endpoints: Array<{ id: string; secret: string }> };
    expect(webhooks.endpoints.map((e) => e.id)).toEqual([endpointId]);
    expect(webhooks.endpoints[0]?.secret).toMatch(/^whsec_/);
    const overHttp = await client.testHelpers.tenants.snapshot();
    expect({ ...overHttp, exported_at: '' }).toEqual({ ...JSON.parse(JSON.stringify(doc)), exported_at: '' });
  });

  it('round-trips: a fork of a fork exports what its source exports, but for the ids of the tenant and the keys', async () => {
    const sandbox = make();
    await populate(sandbox);
    const doc = documentRecords(sandbox.exportTenant());
    const fork = sandbox.createTenant({ snapshot: doc });
    expect(fork.tenantId).not.toBe(sandbox.tenantId);
    expect(fork.apiKey).not.toBe(sandbox.apiKey);
    const forked = documentRecords(sandbox.exportTenant(fork.tenantId));
    expect(forked.tenant.id).toBe(fork.tenantId);
    expect(forked.tenant.keys.map((k) => k.id)).not.toEqual(doc.tenant.keys.map((k) => k.id));
    expect(anonymous(forked)).toEqual(anonymous(doc));
    // As JSON text too, into another sandbox.
    const other = make();
    const again = other.createTenant({ snapshot: JSON.stringify(forked) });
    expect(anonymous(documentRecords(other.exportTenant(again.tenantId)))).toEqual(anonymous(doc));
  });

  it("a fork answers with its own keys only, replays its source's idempotent answers, and leaves its source alone", async () => {
    const sandbox = make();
    const { conversionId } = await populate(sandbox);
    const fork = sandbox.createTenant({ snapshot: documentRecords(sandbox.exportTenant()) });
    const forkClient = new PixUsdt({ apiKey: fork.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    expect((await forkClient.conversions.retrieve(conversionId)).status).toBe('funded');
    const users = await forkClient.users.list();
    expect(users.data).toHaveLength(1);
    // The stored answer of the quote's Idempotency-Key came along.
    const replay = await forkClient.quotes
      .create(
        onrampBody(users.data[0]!.id),
        { idempotencyKey: 'quote-1' },
      )
      .withResponse();
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    // A user created in the fork is not in the source.
    await forkClient.users.create({ external_id: 'ext-2', name: 'Bia', document_type: 'cpf', document_number: cpf(2) });
    const source = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    expect((await source.users.list()).data).toHaveLength(1);
  });

  it("a fork's timers fire on its own clock", async () => {
    const sandbox = make();
    const { conversionId } = await populate(sandbox);
    const fork = sandbox.createTenant({ snapshot: documentRecords(sandbox.exportTenant()) });
    expect(fork.clock.now().getTime()).toBe(sandbox.clock.now().getTime());
    await fork.clock.advance({ minutes: 5 });
    const forkClient = new PixUsdt({ apiKey: fork.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    const source = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    expect((await forkClient.conversions.retrieve(conversionId)).status).toBe('completed');
    expect((await source.conversions.retrieve(conversionId)).status).toBe('funded');
    // And the source's own timer, on its own clock.
    await sandbox.clock.advance({ minutes: 5 });
    expect((await source.conversions.retrieve(conversionId)).status).toBe('completed');
    // The fork's endpoint got its own delivery of conversion.completed, signed with the endpoint's secret it inherited.
    const types = sandbox.events(fork.tenantId).map((e) => e.type);
    expect(types.filter((t) => t === 'conversion.completed')).toHaveLength(1);
  });

  it('forks over HTTP: 201 with the new tenant id and its keys with their secrets', async () => {
    const sandbox = make();
    const { client, conversionId } = await populate(sandbox);
    const snapshot = await client.testHelpers.tenants.snapshot();
    const created = await client.testHelpers.tenants.create({ snapshot });
    expect(created.tenant_id).not.toBe(sandbox.tenantId);
    expect(created.api_keys).toHaveLength(snapshot.tenant['keys'] instanceof Array ? (snapshot.tenant['keys'] as unknown[]).length : -1);
    expect(created.api_key).toMatch(/^sk_test_/);
    expect(created.api_keys.map((k) => k.api_key)).toContain(created.api_key);
    const forkClient = new PixUsdt({ apiKey: created.api_key, fetch: sandbox.fetch, maxRetries: 0 });
    expect((await forkClient.testHelpers.clock.advance({ seconds: 300 })).now).toBeDefined();
    expect((await forkClient.conversions.retrieve(conversionId)).status).toBe('completed');
    expect((await client.conversions.retrieve(conversionId)).status).toBe('funded');
  });

  it('refuses a snapshot of another version, format or environment, damaged, or too large, and creates nothing', async () => {
    const sandbox = make();
    const { client } = await populate(sandbox);
    const doc = documentRecords(sandbox.exportTenant());
    const before = JSON.stringify(sandbox.snapshot().tenants.map((t) => t.id));
    const bad: Array<[string, unknown, string, string]> = [
      ['another version', { ...doc, version: 2 }, 'version', 'version'],
      ['not a tenant snapshot', sandbox.snapshot(), 'format', 'format'],
      ['another environment', { ...doc, environment: 'production' }, 'environment', 'environment'],
      ['a missing field', { ...doc, tenant: { ...doc.tenant, users: undefined } }, 'damaged', 'tenant.users'],
      ['a key of another tenant', { ...doc, tenant: { ...doc.tenant, keys: [{ ...doc.tenant.keys[0], tenantId: 'other' }] } }, 'damaged', 'tenant.keys.0.tenantId'],
      ['a duplicated record', { ...doc, tenant: { ...doc.tenant, users: [doc.tenant.users[0], doc.tenant.users[0]] } }, 'damaged', 'tenant.users.1.id'],
      ['an amount that is not a decimal', { ...doc, tenant: { ...doc.tenant, usage: [['d1', '1e3']] } }, 'damaged', 'tenant.usage.0.1'],
      // Settings the settings' own rules refuse (over HTTP this was a 500 before one fork path served both faces).
      ['settings that cannot be restored', { ...doc, tenant: { ...doc.tenant, settings: { price: { midRate: 'abc' } } } }, 'damaged', 'tenant.settings.price'],
    ];
    for (const [what, snapshot, problem, path] of bad) {
      let error: unknown;
      try {
        sandbox.createTenant({ snapshot: snapshot as TenantDocument });
      } catch (e) {
        error = e;
      }
      expect(error, what).toBeInstanceOf(TenantDocumentError);
      expect((error as TenantDocumentError).problem, what).toBe(problem);
      expect((error as TenantDocumentError).issues.map((i) => i.path), what).toContain(path);
      const response = await sandbox.fetch('/v1/test_helpers/tenants', {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ snapshot }),
      });
      expect(response.status, what).toBe(400);
      const body = (await response.json()) as { code: string; details: { problem: string; issues: Array<{ path: string }> } };
      expect(body.code, what).toBe('validation_error');
      expect(body.details.problem, what).toBe(problem);
      expect(body.details.issues.map((i) => i.path), what).toContain(`snapshot.${path}`);
      // No secret of the snapshot in the refusal.
      expect(JSON.stringify(body), what).not.toContain(doc.tenant.keys[0]!.secret);
    }
    // Cut short (damaged JSON text), and too large.
    expect(() => sandbox.createTenant({ snapshot: JSON.stringify(doc).slice(0, 200) })).toThrow(expect.objectContaining({ problem: 'damaged' }));
    const huge = { ...doc, tenant: { ...doc.tenant, extensions: { ...doc.tenant.extensions, padding: 'x'.repeat(MAX_TENANT_DOCUMENT_CHARS) } } };
    expect(() => sandbox.createTenant({ snapshot: huge })).toThrow(expect.objectContaining({ problem: 'too_large' }));
    const tooLarge = await sandbox.fetch('/v1/test_helpers/tenants', {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ snapshot: huge }),
    });
    expect(tooLarge.status).toBe(400);
    expect(((await tooLarge.json()) as { code: string }).code).toBe('validation_error');
    // Nothing was created: the same tenants, and the caller's data as it was.
    expect(JSON.stringify(sandbox.snapshot().tenants.map((t) => t.id))).toBe(before);
    expect(anonymous(documentRecords(sandbox.exportTenant()))).toEqual(anonymous({ ...doc, tenant: { ...doc.tenant, idempotency: documentRecords(sandbox.exportTenant()).tenant.idempotency, events: doc.tenant.events } }));
    expect((await client.users.list()).data).toHaveLength(1);
  });
});

describe('a fork of a tenant with webhook deliveries', () => {
  it('delivers to the endpoint it inherited, signed with the secret it inherited', async () => {
    const sandbox = createSandbox({ seed: 'transfer-hooks', now: T0 });
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    const url = 'https://receiver.example/hooks';
    const endpoint = await client.webhookEndpoints.create({ url, event_types: ['*'] });
    const fork = sandbox.createTenant({ snapshot: documentRecords(sandbox.exportTenant()) });
    const verified: string[] = [];
    sandbox.webhooks.listen(url, async (request, { now }) => {
      const event = await constructEvent(request, endpoint.secret, { now });
      verified.push(event.type);
      return 204;
    });
    const forkClient = new PixUsdt({ apiKey: fork.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    await forkClient.users.create({ external_id: 'ext-9', name: 'Caio', document_type: 'cpf', document_number: cpf(9) });
    await sandbox.webhooks.flush();
    const forkEvents = sandbox.events(fork.tenantId).map((e) => e.type);
    expect(forkEvents.length).toBeGreaterThan(0);
    expect(verified).toEqual(forkEvents);
    // The source recorded none of them.
    expect(sandbox.events()).toEqual([]);
  });
});
