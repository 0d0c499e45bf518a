/**
 * Issue 13: what the in-process API can do, HTTP can too: the price feed, limits and timings
 * under /v1/test_helpers (capability sandbox:control, 404 in production, strict bodies,
 * optional idempotency).
 */
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/index.js';
import type { Sandbox } from '../../../src/sandbox/index.js';
import { cpf, onrampBody } from '../../support/fixtures.js';

interface Answer {
  status: number;
  json: Record<string, unknown>;
  headers: Headers;
}

async function call(sandbox: Sandbox, method: string, path: string, body?: unknown, options: { key?: string; idem?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.key ?? sandbox.apiKey}`, 'content-type': 'application/json' };
  if (options.idem !== undefined) headers['idempotency-key'] = options.idem;
  else if (method === 'POST') headers['idempotency-key'] = crypto.randomUUID();
  const response = await sandbox.fetch(`https://sandbox.pix-usdt.local${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), headers: response.headers };
}

async function quote(sandbox: Sandbox, n: number, amount = '540.00'): Promise<Answer> {
  const user = await call(sandbox, 'POST', '/v1/users', { external_id: `u${n}`, name: 'Ana Souza', document_type: 'cpf', document_number: cpf(n) });
  await call(sandbox, 'POST', `/v1/test_helpers/users/${String(user.json['id'])}/kyc`, { status: 'approved' });
  return call(sandbox, 'POST', '/v1/quotes', onrampBody(String(user.json['id']), amount));
}

function errorCode(answer: Answer): unknown {
  return answer.json['code'];
}

describe('GET and POST /v1/test_helpers/price', () => {
  it('reads the feed, moves the rate (quotes follow), takes the feed down and up', async () => {
    const sandbox = createSandbox({ seed: 'price', now: '2026-01-01T00:00:00Z' });
    expect((await call(sandbox, 'GET', '/v1/test_helpers/price')).json).toEqual({ mid_rate: '5.40', spread_bps: 50, withdrawal_fee_usdt: '1.00', available: true });
    const moved = await call(sandbox, 'POST', '/v1/test_helpers/price', { mid_rate: '6.00', spread_bps: 0 });
    expect(moved.status).toBe(200);
    expect(moved.json).toEqual({ mid_rate: '6.00', spread_bps: 0, withdrawal_fee_usdt: '1.00', available: true });
    expect(sandbox.price.midRate).toBe('6.00');
    const q = await quote(sandbox, 1);
    expect(q.status).toBe(201);
    expect(q.json['exchange_rate']).toMatch(/^6(\.0+)?$/);
    await call(sandbox, 'POST', '/v1/test_helpers/price', { available: false });
    const down = await quote(sandbox, 2);
    expect([down.status, errorCode(down)]).toEqual([503, 'price_feed_unavailable']);
    await call(sandbox, 'POST', '/v1/test_helpers/price', { available: true });
    expect((await quote(sandbox, 3)).status).toBe(201);
  });

  it('refuses a float, a zero rate and an unknown field with the envelope, and changes nothing', async () => {
    const sandbox = createSandbox({ seed: 'price-bad' });
    for (const body of [{ mid_rate: 5.5 }, { mid_rate: '0' }, { mid_rate: '5.50', rate: '1' }, { spread_bps: 10_000 }, { spread_bps: 1.5 }]) {
      const answer = await call(sandbox, 'POST', '/v1/test_helpers/price', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(errorCode(answer)).toBe('validation_error');
    }
    expect(sandbox.price).toMatchObject({ midRate: '5.40', spreadBps: 50 });
  });

  it('replays with the same Idempotency-Key; needs sandbox:control; absent in production', async () => {
    const sandbox = createSandbox({ seed: 'price-idem' });
    const first = await call(sandbox, 'POST', '/v1/test_helpers/price', { mid_rate: '5.10' }, { idem: 'p1' });
    const again = await call(sandbox, 'POST', '/v1/test_helpers/price', { mid_rate: '5.10' }, { idem: 'p1' });
    expect(again.json).toEqual(first.json);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const limited = sandbox.createTenant({ capabilities: ['quotes:write'] });
    expect((await call(sandbox, 'POST', '/v1/test_helpers/price', { mid_rate: '9.00' }, { key: limited.apiKey })).status).toBe(403);
    expect(sandbox.price.midRate).toBe('5.10');
    const production = createSandbox({ seed: 'price-prod', environment: 'production' });
    for (const path of ['price', 'limits', 'settings']) {
      expect((await call(production, 'GET', `/v1/test_helpers/${path}`)).status).toBe(404);
      expect((await call(production, 'POST', `/v1/test_helpers/${path}`, {})).status).toBe(404);
    }
  });
});

describe('GET and POST /v1/test_helpers/limits', () => {
  it('changes the limits a conversion is held to; a bad amount is refused', async () => {
    const sandbox = createSandbox({ seed: 'limits', now: '2026-01-01T00:00:00Z' });
    const before = await call(sandbox, 'GET', '/v1/test_helpers/limits');
    expect(before.json).toMatchObject({ platform_scope: 'tenant', user: { daily: '50000.00', monthly: '200000.00' } });
    const set = await call(sandbox, 'POST', '/v1/test_helpers/limits', { user: { daily: '100.00' } });
    expect(set.json).toMatchObject({ user: { daily: '100.00', monthly: '200000.00' }, partner: before.json['partner'] });
    const q = await quote(sandbox, 4, '540.00');
    const accepted = await call(sandbox, 'POST', `/v1/quotes/${String(q.json['id'])}/accept`, {});
    expect(errorCode(accepted)).toBe('transaction_limit_exceeded');
    for (const body of [{ user: { daily: 100 } }, { user: { weekly: '1.00' } }, { platform_scope: 'global' }]) {
      expect((await call(sandbox, 'POST', '/v1/test_helpers/limits', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await call(sandbox, 'GET', '/v1/test_helpers/limits')).json).toEqual(set.json);
  });
});

describe('GET and POST /v1/test_helpers/settings', () => {
  it('a 30 s quote TTL, a deposit window and a settlement delay for what is created next', async () => {
    const sandbox = createSandbox({ seed: 'settings', now: '2026-01-01T00:00:00Z' });
    expect((await call(sandbox, 'GET', '/v1/test_helpers/settings')).json).toEqual({ quote_ttl_seconds: 300, deposit_window_seconds: 900, settlement_delay_seconds: 60 });
    const set = await call(sandbox, 'POST', '/v1/test_helpers/settings', { quote_ttl_seconds: 30, deposit_window_seconds: 120 });
    expect(set.json).toEqual({ quote_ttl_seconds: 30, deposit_window_seconds: 120, settlement_delay_seconds: 60 });
    const q = await quote(sandbox, 5);
    expect(Date.parse(String(q.json['expires_at'])) - Date.parse(String(q.json['created_at']))).toBe(30_000);
    const conversion = await call(sandbox, 'POST', `/v1/quotes/${String(q.json['id'])}/accept`, {});
    expect(conversion.status).toBe(201);
    await sandbox.clock.advance({ seconds: 121 });
    expect((await call(sandbox, 'GET', `/v1/conversions/${String(conversion.json['id'])}`)).json['status']).toBe('expired');
    for (const body of [{ quote_ttl_seconds: 0 }, { quote_ttl_seconds: 0.0009 }, { quote_ttl_seconds: 31_536_001 }, { quote_ttl_seconds: '30' }, { ttl: 30 }]) {
      expect((await call(sandbox, 'POST', '/v1/test_helpers/settings', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await call(sandbox, 'GET', '/v1/test_helpers/settings')).json).toEqual(set.json);
  });
});
