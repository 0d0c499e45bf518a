/**
 * The platform's timer table: the seams later work builds on (next due instant across tenants,
 * firing every tenant's due timers from one place, plugin kinds registered once).
 */
import { describe, expect, it } from 'vitest';
import { build } from '../../../src/sandbox/sandbox.js';

const HEADERS = { 'content-type': 'application/json' };

async function post(app: ReturnType<typeof build>['app'], key: string, path: string, body: unknown, idem: string): Promise<Record<string, unknown>> {
  const response = await app.handle(
    new Request(`https://sandbox.pix-usdt.local${path}`, { method: 'POST', headers: { ...HEADERS, authorization: `Bearer ${key}`, 'idempotency-key': idem }, body: JSON.stringify(body) }),
  );
  const json = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(json)).toBeLessThan(300);
  return json;
}

describe('Platform timers', () => {
  it('nextDue answers the earliest timer across tenants, and runDue fires it', async () => {
    const { platform, app } = build({ now: '2026-01-01T00:00:00Z', seed: 'timers' });
    expect(platform.nextDue()).toBeNull();
    const other = platform.createTenant();
    const key = other.key.secret;
    const user = await post(app, key, '/v1/users', { external_id: 'u1', name: 'Ana Souza', document_type: 'cpf', document_number: '52998224725' }, 'u1');
    await post(app, key, `/v1/test_helpers/users/${String(user['id'])}/kyc`, { status: 'approved' }, 'k1');
    const quote = await post(
      app,
      key,
      '/v1/quotes',
      { user_id: user['id'], source_currency: 'USDT', target_currency: 'BRL', source_amount: '10.000000', pix_key: '52998224725', pix_key_type: 'cpf', deposit_network: 'polygon' },
      'q1',
    );
    // The earliest timer is the quote's expiry (the KYC approval lapses a year later).
    expect(platform.nextDue()).toBe(Date.parse(String(quote['expires_at'])));
    other.tenant.clock.set(Date.parse(String(quote['expires_at'])) + 1000);
    platform.runDue();
    expect(other.tenant.quotes.get(String(quote['id']))?.status).toBe('expired');
    expect(platform.nextDue()).toBeGreaterThan(Date.parse(String(quote['expires_at'])));
  });

  it('refuses a timer kind defined twice', () => {
    const { platform } = build({ seed: 'timers' });
    expect(() => platform.addTimers({ 'quote.ttl': { load: () => undefined, due: () => null, fire: () => undefined } })).toThrow(/already defined/);
    expect(() => platform.addTimers({ 'webhook.attempt': { load: () => undefined, due: () => null, fire: () => undefined } })).toThrow(/already defined/);
  });
});
