/**
 * Issue 21, in process: every tenant has its own price feed, limits and timings, starting from
 * the sandbox's options; one validation for options, setters and routes (a RangeError naming
 * the field in process); `platformScope` is the operator's; snapshots carry what a tenant set.
 */
import { describe, expect, it } from 'vitest';
import { type Sandbox, type SandboxSnapshot, createSandbox } from '../../../src/sandbox/index.js';
import { approvedUser, raw } from '../raw.js';
import { onrampBody, offrampBody } from '../../support/fixtures.js';
import { snapshotRecords } from '../../support/records.js';

const NOW = '2026-03-02T12:00:00Z';

async function quoteOf(sandbox: Sandbox, apiKey: string, n: number): Promise<{ rate: string; ttlMs: number; status: number; id: string }> {
  const user = await approvedUser(sandbox, n, apiKey);
  const quote = await raw(sandbox, 'POST', '/v1/quotes', onrampBody(user), { apiKey });
  return { rate: quote.body.exchange_rate, ttlMs: Date.parse(quote.body.expires_at) - Date.parse(quote.body.created_at), status: quote.status, id: quote.body.id };
}

describe('settings per tenant, in process', () => {
  it("a tenant's price, limits and timings change for it alone", async () => {
    const sandbox = createSandbox({ seed: 'own-settings', now: NOW, pricing: { midRate: '5.00' }, quoteTtlSeconds: 120 });
    const other = sandbox.createTenant();
    sandbox.setPrice({ midRate: '6.00', spreadBps: 0 });
    sandbox.setLimits({ user: { daily: '10.00' } });
    sandbox.setTimings({ quoteTtlSeconds: 30 });
    expect(sandbox.price).toMatchObject({ midRate: '6.00', spreadBps: 0 });
    expect(sandbox.limits.user).toEqual({ daily: '10.00', monthly: '200000.00' });
    expect(sandbox.timings).toEqual({ quoteTtlSeconds: 30, depositWindowSeconds: 900, settlementDelaySeconds: 60 });
    expect(other.settings.price).toMatchObject({ midRate: '5.00', spreadBps: 50 });
    expect(sandbox.settingsOf(other.tenantId).limits.user.daily).toBe('50000.00');
    expect(other.settings.timings.quoteTtlSeconds).toBe(120);
    const mine = await quoteOf(sandbox, sandbox.apiKey, 1);
    const theirs = await quoteOf(sandbox, other.apiKey, 2);
    expect([mine.rate, mine.ttlMs]).toEqual(['6.000000', 30_000]);
    expect([theirs.rate, theirs.ttlMs]).toEqual(['5.025000', 120_000]);
    expect((await raw(sandbox, 'POST', `/v1/quotes/${mine.id}/accept`, {})).body.code).toBe('transaction_limit_exceeded');
    expect((await raw(sandbox, 'POST', `/v1/quotes/${theirs.id}/accept`, {}, { apiKey: other.apiKey })).status).toBe(201);
    // The other way round: the other tenant takes its feed down; the default tenant quotes on.
    other.settings.setPrice({ available: false });
    expect((await quoteOf(sandbox, other.apiKey, 3)).status).toBe(503);
    expect((await quoteOf(sandbox, sandbox.apiKey, 4)).status).toBe(201);
    // Over HTTP each key reads its own tenant's.
    expect((await raw(sandbox, 'GET', '/v1/test_helpers/price', undefined, { apiKey: other.apiKey })).body).toMatchObject({ mid_rate: '5.00', available: false });
    expect((await raw(sandbox, 'GET', '/v1/test_helpers/price')).body).toMatchObject({ mid_rate: '6.00', available: true });
    expect(() => sandbox.settingsOf('nope')).toThrow(RangeError);
  });

  it('one validation: options, setters and routes refuse the same values, each face naming the field its way', async () => {
    expect(() => createSandbox({ pricing: { midRate: '0.001' } })).toThrow(/^createSandbox: pricing: midRate: Expected a decimal string from 0\.01/);
    expect(() => createSandbox({ limits: { user: { daily: '1.005' } } })).toThrow(/createSandbox: limits: user\.daily: Expected a non-negative decimal string with at most 2 decimals/);
    expect(() => createSandbox({ quoteTtlSeconds: 0 })).toThrow(/createSandbox: quoteTtlSeconds: Expected a number >= 0\.001/);
    expect(() => createSandbox({ pricing: { rate: '1' } as never })).toThrow(/Unknown field "rate"/);
    const sandbox = createSandbox({ seed: 'validation', now: NOW });
    const refusals: Array<[() => void, RegExp, string, unknown]> = [
      [() => sandbox.setPrice({ midRate: '0' }), /^setPrice: midRate: /, 'price', { mid_rate: '0' }],
      [() => sandbox.setPrice({ withdrawalFeeUsdt: '1.0000001' }), /^setPrice: withdrawalFeeUsdt: /, 'price', { withdrawal_fee_usdt: '1.0000001' }],
      [() => sandbox.setPrice({ spreadBps: 10_000 }), /^setPrice: spreadBps: /, 'price', { spread_bps: 10_000 }],
      [() => sandbox.setLimits({ partner: { monthly: '-1' } }), /^setLimits: partner\.monthly: /, 'limits', { partner: { monthly: '-1' } }],
      [() => sandbox.setLimits({ platformScope: 'shared' } as never), /^setLimits: platformScope: The platform scope is set once/, 'limits', { platform_scope: 'shared' }],
      [() => sandbox.setTimings({ depositWindowSeconds: 31_536_001 }), /^setTimings: depositWindowSeconds: /, 'settings', { deposit_window_seconds: 31_536_001 }],
      [() => sandbox.setTimings({ quoteTtlSeconds: Number.NaN }), /^setTimings: quoteTtlSeconds: /, 'settings', { quote_ttl_seconds: 'NaN' }],
    ];
    for (const [set, message, route, body] of refusals) {
      expect(set, String(message)).toThrow(RangeError);
      expect(set).toThrow(message);
      const answer = await raw(sandbox, 'POST', `/v1/test_helpers/${route}`, body);
      expect([answer.status, answer.body.code], JSON.stringify(body)).toEqual([400, 'validation_error']);
      expect(answer.body.details.issues.length).toBeGreaterThan(0);
    }
    // Nothing changed.
    expect(sandbox.settingsOf(sandbox.tenantId)).toMatchObject({ price: { midRate: '5.40', spreadBps: 50, withdrawalFeeUsdt: '1.00' } });
    expect(sandbox.limits.partner.monthly).toBe('50000000.00');
    // Timings are kept to the millisecond.
    sandbox.setTimings({ quoteTtlSeconds: 0.0015 });
    expect(sandbox.timings.quoteTtlSeconds).toBe(0.002);
    // What the schema allows the platform prices: no rate rounds to zero (the offramp used to divide by it).
    sandbox.setPrice({ midRate: '0.01', spreadBps: 9_999 });
    const user = await approvedUser(sandbox, 9);
    const quote = await raw(sandbox, 'POST', '/v1/quotes', { ...offrampBody(user), source_amount: undefined, target_amount: '1.00' });
    expect(quote.status).toBe(201);
  });

  it("platformScope is the operator's: shared, a tenant cannot set the platform limit; its own partner and user levels it can", async () => {
    const sandbox = createSandbox({ seed: 'shared', now: NOW, limits: { platformScope: 'shared', platform: { daily: '1000.00' } } });
    expect(sandbox.limits).toMatchObject({ platformScope: 'shared', platform: { daily: '1000.00' } });
    expect(() => sandbox.setLimits({ platform: { daily: '5.00' } })).toThrow(/^setLimits: platform: Under shared platform limits/);
    sandbox.setLimits({ user: { daily: '70.00' } });
    const answer = await raw(sandbox, 'POST', '/v1/test_helpers/limits', { platform: { daily: '5.00' } });
    expect(answer.status).toBe(400);
    expect(answer.body.details.issues).toEqual([{ path: 'platform', message: expect.stringContaining('the operator') }]);
    const scope = await raw(sandbox, 'POST', '/v1/test_helpers/limits', { platform_scope: 'tenant' });
    expect(scope.body.details.issues).toEqual([{ path: 'platform_scope', message: expect.stringContaining("Read-only: the platform scope is the operator's") }]);
    const limits = await raw(sandbox, 'GET', '/v1/test_helpers/limits');
    expect(limits.body).toMatchObject({ platform: { daily: '1000.00' }, platform_scope: 'shared', user: { daily: '70.00' } });
    // The operator's fields sent unchanged (a GET body posted back) are accepted, and change nothing.
    const back = await raw(sandbox, 'POST', '/v1/test_helpers/limits', limits.body);
    expect([back.status, back.body]).toEqual([200, limits.body]);
    sandbox.setLimits({ platform: { daily: '1000.00' } });
    const changed = sandbox.inspector.tenant(sandbox.tenantId).settings.changed;
    expect(changed).toContain('limits.user.daily');
    expect(changed.filter((c) => c.startsWith('limits.platform'))).toEqual([]);
    expect(() => createSandbox({ limits: { platformScope: 'global' as never } })).toThrow(/platformScope must be 'tenant' or 'shared'/);
  });

  it('snapshot() and restore() carry what each tenant set; reset() goes back to the defaults', async () => {
    const source = createSandbox({ seed: 'snap', now: NOW });
    const other = source.createTenant();
    source.setPrice({ midRate: '6.10' });
    other.settings.setLimits({ partner: { daily: '123.45' } });
    other.settings.setTimings({ settlementDelaySeconds: 5 });
    const snapshot = source.snapshot();
    expect(snapshotRecords(snapshot).tenants.find((t) => t.id === other.tenantId)?.settings).toEqual({ limits: { partner: { daily: '123.45' } }, timings: { settlementDelaySeconds: 5 } });
    const target = createSandbox({ seed: 'snap-target', now: NOW, depositWindowSeconds: 60 });
    target.restore(JSON.stringify(snapshot));
    expect(target.price.midRate).toBe('6.10');
    expect(target.settingsOf(other.tenantId).limits.partner).toEqual({ daily: '123.45', monthly: '50000000.00' });
    // What a tenant did not set comes from the restoring sandbox's own options.
    expect(target.settingsOf(other.tenantId).timings).toEqual({ quoteTtlSeconds: 300, depositWindowSeconds: 60, settlementDelaySeconds: 5 });
    target.reset();
    expect(target.price.midRate).toBe('5.40');
  });

  it('an older snapshot, without per-tenant settings, opens: its tenants have the defaults', () => {
    const source = createSandbox({ seed: 'old', now: NOW });
    const other = source.createTenant();
    other.settings.setPrice({ midRate: '9.00' });
    const old = JSON.parse(JSON.stringify(source.snapshot())) as SandboxSnapshot & { tenants: Array<{ settings?: unknown }> };
    for (const t of old.tenants) delete t.settings;
    // Before issue 21 the sandbox-wide settings sat at the top; they no longer apply to anyone.
    old.pricing = { midRate: '7.00', spreadBps: 1, withdrawalFeeUsdt: '0', available: false };
    const target = createSandbox({ seed: 'old-target', now: NOW, pricing: { midRate: '5.55' } });
    target.restore(old);
    expect(target.price).toMatchObject({ midRate: '5.55', available: true });
    expect(target.settingsOf(other.tenantId).price.midRate).toBe('5.55');
    // A snapshot whose settings break the rules is refused with the tenant and the field named.
    const bad = JSON.parse(JSON.stringify(source.snapshot())) as { tenants: Array<{ id: string; settings?: unknown }> };
    const at = bad.tenants.findIndex((t) => t.id === other.tenantId);
    (bad.tenants[at] as { settings?: unknown }).settings = { price: { midRate: '0' } };
    expect(() => target.restore(bad as never)).toThrow(new RegExp(`tenants\\.${at}\\.settings\\.price: midRate`));
    expect(target.settingsOf(other.tenantId).price.midRate).toBe('5.55');
  });
});
