/**
 * Issue 21, on the real server (`dist/cli.js serve`): two tenants share it, A changes each of its
 * price feed, limits and timings, and B reads and quotes exactly as before. What each set
 * survives `kill -9` with `--data`; an older data folder (no per-tenant settings) opens with the
 * defaults of this start.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/index.js';
import { type Ready, exitCode, serve, stopAll } from '../helpers.js';
import { cpf, onrampBody } from '../../support/fixtures.js';

afterEach(() => stopAll());


async function call(ready: Ready, key: string, method: string, route: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${ready.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** A KYC-approved user's onramp quote and its accept: what a suite's first test does. */
async function quoteAndAccept(ready: Ready, key: string, n: number): Promise<{ quote: Record<string, unknown>; accept: { status: number; json: Record<string, unknown> } }> {
  const user = await call(ready, key, 'POST', '/v1/users', { external_id: `u${n}`, name: 'Ana Souza', document_type: 'cpf', document_number: cpf(n) });
  await call(ready, key, 'POST', `/v1/test_helpers/users/${String(user.json['id'])}/kyc`, { status: 'approved' });
  const quote = await call(ready, key, 'POST', '/v1/quotes', onrampBody(String(user.json['id'])));
  const accept = quote.status === 201 ? await call(ready, key, 'POST', `/v1/quotes/${String(quote.json['id'])}/accept`, {}) : quote;
  return { quote: quote.json, accept };
}

const SETTINGS = ['price', 'limits', 'settings'] as const;

async function readAll(ready: Ready, key: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of SETTINGS) {
    const answer = await call(ready, key, 'GET', `/v1/test_helpers/${name}`);
    expect(answer.status).toBe(200);
    out[name] = answer.json;
  }
  return out;
}

async function newTenant(ready: Ready): Promise<string> {
  const created = await call(ready, ready.api_key, 'POST', '/v1/test_helpers/tenants', {});
  expect(created.status).toBe(201);
  return created.json['api_key'] as string;
}

describe('two tenants on one server (issue 21)', () => {
  it("A changes each of its price, limits and timings; B's reads and quotes are unchanged", async () => {
    const { ready } = await serve();
    const a = await newTenant(ready);
    const b = await newTenant(ready);
    const before = await readAll(ready, b);
    const first = await quoteAndAccept(ready, b, 1);
    expect(first.accept.status).toBe(201);
    const changes: Array<[string, unknown]> = [
      ['price', { mid_rate: '9.99', spread_bps: 0, withdrawal_fee_usdt: '0', available: false }],
      ['limits', { platform: { daily: '1.00', monthly: '1.00' }, partner: { daily: '1.00' }, user: { daily: '1.00' } }],
      ['settings', { quote_ttl_seconds: 5, deposit_window_seconds: 10, settlement_delay_seconds: 1 }],
    ];
    for (const [name, body] of changes) {
      const changed = await call(ready, a, 'POST', `/v1/test_helpers/${name}`, body);
      expect(changed.status, name).toBe(200);
      expect(changed.json, name).toMatchObject(body as object);
      // B reads what it read before, after each one of A's changes.
      expect(await readAll(ready, b), `after A's ${name}`).toEqual(before);
    }
    // A lives with its own: its feed is down.
    expect((await quoteAndAccept(ready, a, 2)).accept.json['code']).toBe('price_feed_unavailable');
    // B quotes at the same rate and TTL as before, and its accept fits its limits.
    const second = await quoteAndAccept(ready, b, 3);
    expect(second.accept.status).toBe(201);
    expect(second.quote['exchange_rate']).toBe(first.quote['exchange_rate']);
    const ttl = (q: Record<string, unknown>): number => Date.parse(String(q['expires_at'])) - Date.parse(String(q['created_at']));
    expect(ttl(second.quote)).toBe(ttl(first.quote));
    expect(ttl(second.quote)).toBe(300_000);
    const window = (c: Record<string, unknown>): number => Date.parse(String(c['deposit_window_expires_at'])) - Date.parse(String(c['created_at']));
    expect(window(second.accept.json)).toBe(900_000);
    // A tenant's request cannot set the operator's platform scope.
    const scope = await call(ready, a, 'POST', '/v1/test_helpers/limits', { platform_scope: 'shared' });
    expect([scope.status, scope.json['code']]).toEqual([400, 'validation_error']);
    expect((await call(ready, b, 'GET', '/v1/test_helpers/limits')).json['platform_scope']).toBe('tenant');
  });

  it('with --data, what each tenant set survives kill -9; an older folder without them opens with the defaults', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-tenant-settings-'));
    try {
      const data = path.join(dir, 'data');
      const first = await serve(['--data', data, '--price', '6.00']);
      const b = await newTenant(first.ready);
      expect((await call(first.ready, first.ready.api_key, 'POST', '/v1/test_helpers/price', { mid_rate: '7.00' })).status).toBe(200);
      expect((await call(first.ready, b, 'POST', '/v1/test_helpers/limits', { user: { daily: '77.00' } })).status).toBe(200);
      expect((await call(first.ready, b, 'POST', '/v1/test_helpers/settings', { quote_ttl_seconds: 45 })).status).toBe(200);
      const setA = await readAll(first.ready, first.ready.api_key);
      const setB = await readAll(first.ready, b);
      first.child.process.kill('SIGKILL');
      expect(await exitCode(first.child)).toBe('SIGKILL');
      const again = await serve(['--data', data, '--price', '6.00']);
      expect(await readAll(again.ready, again.ready.api_key)).toEqual(setA);
      expect(await readAll(again.ready, b)).toEqual(setB);
      expect(setB).toMatchObject({ price: { mid_rate: '6.00' }, limits: { user: { daily: '77.00' } }, settings: { quote_ttl_seconds: 45 } });
      again.child.process.kill('SIGTERM');
      expect(await exitCode(again.child)).toBe(0);

      // A folder written before per-tenant settings: tenants without `settings`, the old
      // sandbox-wide ones at the top of the snapshot.
      const old = path.join(dir, 'old');
      const sandbox = createSandbox({ seed: 7 });
      const other = sandbox.createTenant();
      const snapshot = JSON.parse(JSON.stringify(sandbox.snapshot())) as { tenants: Array<{ settings?: unknown }>; pricing: unknown };
      for (const t of snapshot.tenants) delete t.settings;
      snapshot.pricing = { midRate: '8.88', spreadBps: 50, withdrawalFeeUsdt: '1.00', available: true };
      mkdirSync(old, { mode: 0o700 });
      writeFileSync(path.join(old, 'snapshot.json'), JSON.stringify({ format: 'pix-usdt-sandbox-data', version: 1, seq: 0, writtenAt: Date.now(), snapshot }));
      const opened = await serve(['--data', old, '--price', '5.10']);
      expect(opened.ready.api_key).toBe(sandbox.apiKey);
      expect((await call(opened.ready, opened.ready.api_key, 'GET', '/v1/test_helpers/price')).json).toMatchObject({ mid_rate: '5.10' });
      expect((await call(opened.ready, other.apiKey, 'GET', '/v1/test_helpers/settings')).json).toEqual({ quote_ttl_seconds: 300, deposit_window_seconds: 900, settlement_delay_seconds: 60 });
      opened.child.process.kill('SIGTERM');
      expect(await exitCode(opened.child)).toBe(0);
      // It was imported into the database; the old files stepped aside, and a restart on the
      // database keeps the defaults of its start for tenants that set nothing.
      expect(readdirSync(old)).toEqual(expect.arrayContaining(['snapshot.json.migrated', 'data.db']));
      const reopened = await serve(['--data', old, '--price', '5.20']);
      expect((await call(reopened.ready, reopened.ready.api_key, 'GET', '/v1/test_helpers/price')).json).toMatchObject({ mid_rate: '5.20' });
      reopened.child.process.kill('SIGTERM');
      expect(await exitCode(reopened.child)).toBe(0);
    } finally {
      stopAll();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('--shared-platform-limits: the platform limit is the operator\'s; a tenant still sets its own partner and user levels', async () => {
    const { ready } = await serve(['--shared-platform-limits', '--limit', 'platform.daily=900.00']);
    const a = await newTenant(ready);
    const refused = await call(ready, a, 'POST', '/v1/test_helpers/limits', { platform: { daily: '1.00' } });
    expect([refused.status, (refused.json['details'] as { issues: Array<{ path: string }> }).issues[0]?.path]).toEqual([400, 'platform']);
    expect((await call(ready, a, 'POST', '/v1/test_helpers/limits', { user: { daily: '10.00' } })).json).toMatchObject({ platform: { daily: '900.00' }, platform_scope: 'shared', user: { daily: '10.00' } });
    expect((await call(ready, ready.api_key, 'GET', '/v1/test_helpers/limits')).json).toMatchObject({ platform: { daily: '900.00' }, user: { daily: '50000.00' } });
  });
});
