/**
 * Issue 13: every tenant's due timers fire on time with no request, in process, for tenants
 * created over HTTP (`POST /v1/test_helpers/tenants`), through one real timer (core/alarm.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { loadSnapshot, takeSnapshot } from '../../../src/sandbox/core/snapshot.js';
import { build } from '../../../src/sandbox/sandbox.js';
import { cpf } from '../../support/fixtures.js';

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** The platform (read without a request, so without `runDue`), a fetch over its app and the default key. */
function sandboxOf(options: Parameters<typeof build>[0]) {
  const { platform, app } = build(options);
  const fetch: Fetch = (input, init) => app.handle(new Request(input, init));
  const apiKey = [...platform.keys.values()][0]?.secret ?? '';
  const quoteStatus = (tenantId: string, quoteId: string) => platform.tenants.get(tenantId)?.quotes.get(quoteId)?.status;
  const clockOf = (tenantId: string) => platform.tenants.get(tenantId)?.clock ?? expect.unreachable();
  return { platform, fetch, apiKey, quoteStatus, clockOf };
}

async function call(fetch: Fetch, key: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`https://sandbox.pix-usdt.local${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'idempotency-key': crypto.randomUUID() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(json)).toBeLessThan(300);
  return json;
}

/** A tenant created over HTTP with an active quote in it. */
async function tenantWithQuote(fetch: Fetch, controlKey: string, n: number): Promise<{ tenantId: string; quoteId: string }> {
  const created = await call(fetch, controlKey, 'POST', '/v1/test_helpers/tenants', {});
  const key = String(created['api_key']);
  const user = await call(fetch, key, 'POST', '/v1/users', { external_id: `u${n}`, name: 'Ana Souza', document_type: 'cpf', document_number: cpf(n) });
  await call(fetch, key, 'POST', `/v1/test_helpers/users/${String(user['id'])}/kyc`, { status: 'approved' });
  const quote = await call(fetch, key, 'POST', '/v1/quotes', {
    user_id: user['id'],
    source_currency: 'USDT',
    target_currency: 'BRL',
    source_amount: '10.000000',
    pix_key: cpf(n),
    pix_key_type: 'cpf',
    deposit_network: 'polygon',
  });
  return { tenantId: String(created['tenant_id']), quoteId: String(quote['id']) };
}

describe('timers of every tenant (real-time clocks)', () => {
  it('fire on time in tenants created over HTTP, with no request to them', async () => {
    const sandbox = sandboxOf({ seed: 'tenant-timers', quoteTtlSeconds: 0.3 });
    const tenants: Array<{ tenantId: string; quoteId: string }> = [];
    for (let n = 1; n <= 3; n++) tenants.push(await tenantWithQuote(sandbox.fetch, sandbox.apiKey, n));
    // No request reaches any tenant from here on: only the alarm can expire the quotes.
    await vi.waitFor(
      () => {
        for (const { tenantId, quoteId } of tenants) expect(sandbox.quoteStatus(tenantId, quoteId), `tenant ${tenantId}`).toBe('expired');
      },
      { timeout: 10_000, interval: 50 },
    );
  });

  it('a clock advance brings the next timer closer: it fires with no further request', async () => {
    const sandbox = sandboxOf({ seed: 'tenant-advance', quoteTtlSeconds: 3_600 });
    const { tenantId, quoteId } = await tenantWithQuote(sandbox.fetch, sandbox.apiKey, 7);
    // The quote expires in an hour; advancing by 59 min 59.7 s leaves 0.3 s of real time.
    await sandbox.clockOf(tenantId).advance({ ms: 3_600_000 - 300 });
    expect(sandbox.quoteStatus(tenantId, quoteId)).toBe('active');
    await vi.waitFor(() => expect(sandbox.quoteStatus(tenantId, quoteId)).toBe('expired'), {
      timeout: 10_000,
      interval: 50,
    });
  });

  it('a restored tenant is woken too: its timers fire with no request', async () => {
    const source = sandboxOf({ seed: 'restore-source', quoteTtlSeconds: 0.5 });
    const { tenantId, quoteId } = await tenantWithQuote(source.fetch, source.apiKey, 8);
    const target = sandboxOf({ seed: 'restore-target', quoteTtlSeconds: 0.5 });
    loadSnapshot(target.platform, takeSnapshot(source.platform));
    expect(target.platform.tenantsAwaitingAlarm).toBeGreaterThan(0);
    await vi.waitFor(() => expect(target.quoteStatus(tenantId, quoteId)).toBe('expired'), { timeout: 10_000, interval: 50 });
  });

  it('idle tenants cost nothing: only the tenants with a timer wait for the alarm', async () => {
    const { platform, fetch, apiKey: control } = sandboxOf({ seed: 'idle-tenants', quoteTtlSeconds: 3_600 });
    for (let i = 0; i < 200; i++) await call(fetch, control, 'POST', '/v1/test_helpers/tenants', {});
    expect(platform.tenants.size).toBe(201);
    expect(platform.tenantsAwaitingAlarm).toBe(0);
    await tenantWithQuote(fetch, control, 3);
    // The new tenant's KYC expiry and quote TTL: one entry for that tenant, none for the idle ones.
    expect(platform.tenantsAwaitingAlarm).toBe(1);
  });

  it('a frozen clock fires only when advanced', async () => {
    const sandbox = sandboxOf({ seed: 'frozen', now: '2026-01-01T00:00:00Z', quoteTtlSeconds: 0.1 });
    const { tenantId, quoteId } = await tenantWithQuote(sandbox.fetch, sandbox.apiKey, 4);
    expect(sandbox.platform.tenantsAwaitingAlarm).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sandbox.quoteStatus(tenantId, quoteId)).toBe('active');
    await sandbox.clockOf(tenantId).advance({ seconds: 1 });
    expect(sandbox.quoteStatus(tenantId, quoteId)).toBe('expired');
  });
});
