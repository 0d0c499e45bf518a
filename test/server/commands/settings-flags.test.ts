/**
 * Issue 13: `serve` flags for the price feed, limits and timings, read back over HTTP from the
 * spawned server; a bad value is a usage error (exit code 2) that names the flag.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSettingFlags } from '../../../src/server/commands/serve-settings.js';
import { exitCode, run, serve, stopAll } from '../helpers.js';

afterEach(() => stopAll());

async function get(url: string, key: string, path: string): Promise<unknown> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return response.json();
}

describe('serve --price --quote-ttl --limit ...', () => {
  it('starts the sandbox with them; the test helper routes read them back', async () => {
    const { ready } = await serve([
      '--price',
      '6.10',
      '--spread-bps',
      '0',
      '--withdrawal-fee',
      '0.50',
      '--quote-ttl',
      '30',
      '--deposit-window',
      '120',
      '--settlement-delay',
      '5',
      '--limit',
      'user.daily=100.00',
      '--limit',
      'partner.monthly=900000.00',
    ]);
    expect(await get(ready.url, ready.api_key, '/v1/test_helpers/price')).toEqual({ mid_rate: '6.10', spread_bps: 0, withdrawal_fee_usdt: '0.50', available: true });
    expect(await get(ready.url, ready.api_key, '/v1/test_helpers/settings')).toEqual({ quote_ttl_seconds: 30, deposit_window_seconds: 120, settlement_delay_seconds: 5 });
    expect(await get(ready.url, ready.api_key, '/v1/test_helpers/limits')).toMatchObject({
      user: { daily: '100.00', monthly: '200000.00' },
      partner: { daily: '5000000.00', monthly: '900000.00' },
      platform_scope: 'tenant',
    });
  });

  it("with --data, what a tenant set survives; the flags are the defaults of each start (issue 21)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-settings-'));
    try {
      const data = path.join(dir, 'data');
      const first = await serve(['--data', data, '--price', '6.00']);
      const post = async (key: string, route: string, body: unknown): Promise<Record<string, unknown>> => {
        const answer = await fetch(`${first.ready.url}${route}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(answer.status, route).toBeLessThan(300);
        return (await answer.json()) as Record<string, unknown>;
      };
      await post(first.ready.api_key, '/v1/test_helpers/price', { spread_bps: 7 });
      const other = (await post(first.ready.api_key, '/v1/test_helpers/tenants', {})) as { api_key: string };
      const otherKey = other.api_key;
      await post(otherKey, '/v1/test_helpers/price', { mid_rate: '7.77' });
      first.child.process.kill('SIGTERM');
      expect(await exitCode(first.child)).toBe(0);
      // No flag this time: the 6.00 of the first start was a default, not a tenant's choice.
      const kept = await serve(['--data', data]);
      expect(await get(kept.ready.url, kept.ready.api_key, '/v1/test_helpers/price')).toMatchObject({ mid_rate: '5.40', spread_bps: 7 });
      expect(await get(kept.ready.url, otherKey, '/v1/test_helpers/price')).toMatchObject({ mid_rate: '7.77', spread_bps: 50 });
      kept.child.process.kill('SIGTERM');
      expect(await exitCode(kept.child)).toBe(0);
      // A flag moves the defaults; what a tenant set itself wins over it.
      const flagged = await serve(['--data', data, '--price', '7.00']);
      expect(await get(flagged.ready.url, flagged.ready.api_key, '/v1/test_helpers/price')).toMatchObject({ mid_rate: '7.00', spread_bps: 7 });
      expect(await get(flagged.ready.url, otherKey, '/v1/test_helpers/price')).toMatchObject({ mid_rate: '7.77' });
    } finally {
      stopAll();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a bad value exits with code 2 and names the flag', async () => {
    for (const [flag, value] of [
      ['--price', '5,40'],
      ['--quote-ttl', '0'],
      ['--limit', 'user.weekly=1.00'],
      ['--spread-bps', '10000'],
    ] as const) {
      const child = run(['serve', '--port', '0', flag, value]);
      expect(await exitCode(child)).toBe(2);
      expect(child.stderr()).toContain(flag);
    }
  });
});

describe('parseSettingFlags', () => {
  it('leaves absent flags out, so the defaults stay', () => {
    expect(parseSettingFlags({})).toEqual({});
    expect(parseSettingFlags({ quoteTtl: '30', limit: ['user.daily=1.00', 'user.monthly=2.00'] })).toEqual({
      quoteTtlSeconds: 30,
      limits: { user: { daily: '1.00', monthly: '2.00' } },
    });
  });

  it('takes seconds to the millisecond, as the route does', () => {
    expect(parseSettingFlags({ settlementDelay: '1.5', quoteTtl: '0.25' })).toEqual({ settlementDelaySeconds: 1.5, quoteTtlSeconds: 0.25 });
  });

  it('refuses floats in disguise, zero rates, what the route refuses and unknown levels', () => {
    expect(() => parseSettingFlags({ price: '0' })).toThrow(/--price/);
    expect(() => parseSettingFlags({ price: '1e3' })).toThrow(/--price/);
    expect(() => parseSettingFlags({ withdrawalFee: '-1' })).toThrow(/--withdrawal-fee/);
    expect(() => parseSettingFlags({ settlementDelay: '0' })).toThrow(/--settlement-delay/);
    expect(() => parseSettingFlags({ settlementDelay: '1e3' })).toThrow(/--settlement-delay/);
    expect(() => parseSettingFlags({ quoteTtl: '31536001' })).toThrow(/--quote-ttl/);
    expect(() => parseSettingFlags({ price: '0.001' })).toThrow(/--price/);
    expect(() => parseSettingFlags({ withdrawalFee: '1.0000001' })).toThrow(/--withdrawal-fee/);
    expect(() => parseSettingFlags({ limit: ['user.daily=1.001'] })).toThrow(/--limit user.daily/);
    expect(() => parseSettingFlags({ quoteRateLimit: '-1' })).toThrow(/--quote-rate-limit/);
    expect(() => parseSettingFlags({ quoteRateLimit: '2.5' })).toThrow(/--quote-rate-limit/);
    expect(parseSettingFlags({ quoteRateLimit: '0' })).toEqual({ quoteRateLimit: 0 });
    expect(parseSettingFlags({ quoteRateLimit: '600' })).toEqual({ quoteRateLimit: 600 });
    expect(() => parseSettingFlags({ limit: ['tenant.daily=1.00'] })).toThrow(/--limit/);
    expect(() => parseSettingFlags({ limit: ['user.daily=abc'] })).toThrow(/--limit user.daily/);
  });
});
