/**
 * The data folder's database in process: what a commit writes (a read and an idempotent replay
 * write nothing), tenants that load on first use and leave memory when idle (key lookups through
 * storage, at most `maxTenants` in memory), the timers of a tenant out of memory firing on time,
 * and a write that cannot commit: 503 in the envelope, nothing changed in memory, one log line,
 * and a folder that reopens with what was answered.
 */
import { describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import type { SandboxOptions } from '../../../src/sandbox/index.js';
import type { SqlDriver } from '../../../src/sandbox/storage/sql.js';
import { type DataStore, openDataStore } from '../../../src/server/data/store.js';
import { approvedUser, cpf, onrampBody } from '../../support/fixtures.js';
import { type DriverProbe, failingDriver, probe } from '../../support/stored.js';
import { snapshotRecords } from '../../support/records.js';
import { storeScratch } from './scratch.js';

const OPTIONS: SandboxOptions = { seed: 'stored', now: '2026-03-02T12:00:00.000Z', quoteRateLimit: 0 };
const { tempDir, open } = storeScratch('pix-usdt-store-', OPTIONS);

/** A driver wrapper that counts what it writes, and fails every commit while `failing.on` is set. */
function counting(): DriverProbe & { wrap: (d: SqlDriver) => SqlDriver } {
  const state = probe();
  return { ...state, wrap: (d) => failingDriver(d, state).driver };
}

function post(store: DataStore, apiKey: string, route: string, body: unknown, idempotencyKey?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return store.sandbox.fetch(route, { method: 'POST', headers, body: JSON.stringify(body) });
}

async function newTenant(store: DataStore): Promise<{ tenantId: string; apiKey: string }> {
  const res = await post(store, store.sandbox.apiKey, '/v1/test_helpers/tenants', {});
  const body = (await res.json()) as { tenant_id: string; api_key: string };
  return { tenantId: body.tenant_id, apiKey: body.api_key };
}

describe('what a commit writes', () => {
  it('a mutation writes its rows; a read and an idempotent replay write nothing', async () => {
    const { wrap, writes } = counting();
    const store = open(tempDir(), OPTIONS, { wrapDriver: wrap });
    const client = new PixUsdt({ apiKey: store.sandbox.apiKey, fetch: store.sandbox.fetch, maxRetries: 0 });
    const userId = await approvedUser(client, 1);
    const quote = await client.quotes.create(onrampBody(userId));
    const conversion = await client.quotes.accept(quote.id, undefined, { idempotencyKey: 'accept-1' });
    await new Promise((resolve) => setImmediate(resolve));
    const before = { ...writes };
    expect(before.transactions).toBeGreaterThan(0);

    await client.conversions.retrieve(conversion.id);
    await client.conversions.list({ limit: 10 });
    await client.users.retrieve(userId);
    const replay = await client.quotes.accept(quote.id, undefined, { idempotencyKey: 'accept-1' });
    expect(replay.id).toBe(conversion.id);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(before);

    // A usage counter is one row: a second accept writes the rows it changed, not the tenant.
    const second = await client.quotes.create(onrampBody(userId, '100.00'));
    const mark = writes.statements;
    await client.quotes.accept(second.id);
    expect(writes.statements - mark).toBeGreaterThan(0);
    expect(writes.statements - mark).toBeLessThan(20);
  });
});

describe('idempotency keys', () => {
  it('a new key reads no idempotency row; its replay reads none while among the last 64 answers written, one after 64 more and after a restart (the tenant loaded again)', async () => {
    const lookups = { n: 0, exact: 0 };
    // The driver without `get`: every query through `all`, counted when it looks up one key (the
    // exact form: by the start the tenant knows, schema 3's one index).
    const wrap = (d: SqlDriver): SqlDriver => ({
      all: (sql, params) => {
        if (/^SELECT key, started_at, data FROM idempotency WHERE .*key = \?/.test(sql)) lookups.n++;
        if (sql.startsWith('SELECT key, started_at, data FROM idempotency WHERE tenant = ? AND started_at = ? AND key = ?')) lookups.exact++;
        return d.all(sql, params);
      },
      run: (sql, params) => d.run(sql, params),
      transaction: (fn) => d.transaction(fn),
    });
    const dir = tempDir();
    const first = open(dir, OPTIONS, { wrapDriver: wrap });
    const { apiKey } = await newTenant(first);
    const body = { external_id: 'k-1', name: 'User 1', document_type: 'cpf', document_number: cpf(1) };
    const created = await post(first, apiKey, '/v1/users', body, 'key-1');
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    await new Promise((resolve) => setImmediate(resolve));
    expect(lookups.n).toBe(0);
    const replay = await post(first, apiKey, '/v1/users', body, 'key-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as { id: string }).id).toBe(id);
    // Written, and still among the tenant's last answers in memory: no row read.
    expect(lookups.n).toBe(0);
    for (let i = 0; i < 64; i++) {
      const more = await post(first, apiKey, '/v1/users', { ...body, external_id: `m-${i}`, document_number: cpf(100 + i) }, `more-${i}`);
      expect(more.status).toBe(201);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(lookups.n).toBe(0);
    const later = await post(first, apiKey, '/v1/users', body, 'key-1');
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(((await later.json()) as { id: string }).id).toBe(id);
    expect(lookups.n).toBe(1);
    expect(lookups.exact).toBe(1);
    first.close();

    lookups.n = 0;
    lookups.exact = 0;
    const second = open(dir, OPTIONS, { wrapDriver: wrap });
    const again = await post(second, apiKey, '/v1/users', body, 'key-1');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { id: string }).id).toBe(id);
    expect(lookups.n).toBe(1);
    expect(lookups.exact).toBe(1);
    const other = await post(second, apiKey, '/v1/users', { ...body, external_id: 'k-2', document_number: cpf(2) }, 'key-2');
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(lookups.n).toBe(1);
    second.close();
  });

  it('an answer kept in memory after its write expires as the stored one does: past the 24 hours its key answers anew', async () => {
    const store = open(tempDir(), OPTIONS);
    const { apiKey } = await newTenant(store);
    const body = { external_id: 'x-1', name: 'User 1', document_type: 'cpf', document_number: cpf(1) };
    const first = (await (await post(store, apiKey, '/v1/users', body, 'x-key')).json()) as { id: string };
    await new Promise((resolve) => setImmediate(resolve));
    const replay = await post(store, apiKey, '/v1/users', body, 'x-key');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as { id: string }).id).toBe(first.id);
    await new PixUsdt({ apiKey, fetch: store.sandbox.fetch, maxRetries: 0 }).testHelpers.clock.advance({ seconds: 24 * 3600 + 1 });
    // The same external id: a new request under the key, refused as a duplicate user (not the first answer again).
    const later = await post(store, apiKey, '/v1/users', body, 'x-key');
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.status).not.toBe(201);
    store.close();
  });

  it('a key reused after it expired, and two keys of one hash: each replays its own answer, out of the recent answers and after a restart (schema 3 has no index by key)', async () => {
    // Two keys of one 30-bit FNV-1a hash (core/persist.ts keyHash), found by trying.
    const hash = (key: string): number => {
      let h = 0x811c9dc5;
      for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
      return h & 0x3fffffff;
    };
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; pair === undefined; i++) {
      const key = `c-${i}`;
      const other = seen.get(hash(key));
      if (other !== undefined) pair = [other, key];
      else seen.set(hash(key), key);
    }
    const dir = tempDir();
    const first = open(dir, OPTIONS);
    const { apiKey } = await newTenant(first);
    const user = (n: number): Record<string, string> => ({ external_id: `h-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
    const answers = new Map<string, { body: unknown; text: string }>();
    const create = async (store: DataStore, key: string, body: unknown): Promise<Response> => {
      const res = await post(store, apiKey, '/v1/users', body, key);
      await new Promise((resolve) => setImmediate(resolve));
      return res;
    };
    // The reused key: answered, expired (a day passes), answered anew with another body.
    const reused = await create(first, 'reused', user(1));
    expect(reused.status).toBe(201);
    await new PixUsdt({ apiKey, fetch: first.sandbox.fetch, maxRetries: 0 }).testHelpers.clock.advance({ seconds: 24 * 3600 + 1 });
    const again = await create(first, 'reused', user(2));
    expect(again.status).toBe(201);
    answers.set('reused', { body: user(2), text: await again.text() });
    const clock = new PixUsdt({ apiKey, fetch: first.sandbox.fetch, maxRetries: 0 }).testHelpers.clock;
    for (const [n, key] of pair.entries()) {
      // Started a second apart: one hash, two starts.
      await clock.advance({ seconds: 1 });
      const res = await create(first, key, user(10 + n));
      expect(res.status).toBe(201);
      answers.set(key, { body: user(10 + n), text: await res.text() });
    }
    // Out of the last 64 answers kept in memory: every replay reads storage.
    for (let i = 0; i < 64; i++) expect((await create(first, `more-${i}`, user(100 + i))).status).toBe(201);
    const replays = async (store: DataStore): Promise<void> => {
      for (const [key, { body, text }] of answers) {
        const res = await post(store, apiKey, '/v1/users', body, key);
        expect(res.headers.get('idempotent-replayed'), key).toBe('true');
        expect(await res.text(), key).toBe(text);
      }
    };
    await replays(first);
    first.close();
    await replays(open(dir, OPTIONS));
  });
});

describe('platform values', () => {
  it("the shared platform usage is written at each change, not only its first (kept JSON): a reopened folder counts every accept", async () => {
    const options: SandboxOptions = { ...OPTIONS, limits: { platform: { daily: '1000.00' }, platformScope: 'shared' } };
    const dir = tempDir();
    const first = open(dir, options);
    const client = new PixUsdt({ apiKey: first.sandbox.apiKey, fetch: first.sandbox.fetch, maxRetries: 0 });
    const userId = await approvedUser(client, 1);
    for (const amount of ['450.00', '450.00']) await client.quotes.accept((await client.quotes.create(onrampBody(userId, amount))).id);
    first.close();
    const second = open(dir, options);
    const again = new PixUsdt({ apiKey: second.sandbox.apiKey, fetch: second.sandbox.fetch, maxRetries: 0 });
    // 900 of 1,000 used before the restart: 200 more is over the platform's day.
    const quote = await again.quotes.create(onrampBody(userId, '200.00'));
    await expect(again.quotes.accept(quote.id)).rejects.toMatchObject({ code: 'transaction_limit_exceeded', details: { limit: 'platform_daily' } });
  });
});

describe('tenants in memory', () => {
  it('load on first use through their key, leave when idle, and come back with their state', async () => {
    const { wrap, writes } = counting();
    const store = open(tempDir(), OPTIONS, { idleMs: 60_000, wrapDriver: wrap });
    const tenant = await newTenant(store);
    const client = new PixUsdt({ apiKey: tenant.apiKey, fetch: store.sandbox.fetch, maxRetries: 0 });
    const userId = await approvedUser(client, 2);
    expect(store.persistence.loaded).toBe(2);

    // A minute later every tenant is idle: all of them leave memory.
    expect(store.persistence.sweep(Date.now() + 61_000)).toBe(2);
    expect(store.persistence.loaded).toBe(0);
    // The inspector still lists them, from storage, with their counts.
    const listed = store.sandbox.inspector.tenants();
    expect(listed.map((t) => t.id).sort()).toEqual([store.sandbox.tenantId, tenant.tenantId].sort());
    expect(listed.find((t) => t.id === tenant.tenantId)?.counts.users).toBe(1);
    expect(store.persistence.loaded).toBe(0);

    // The key finds its tenant through storage; the state is there, and loading it wrote nothing.
    const before = { ...writes };
    expect((await client.users.retrieve(userId)).kyc_status).toBe('approved');
    expect(store.persistence.loaded).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(before);
    // An unknown key is still refused.
    const unknown = new PixUsdt({ apiKey: `sk_test_${'x'.repeat(32)}`, fetch: store.sandbox.fetch, maxRetries: 0 });
    await expect(unknown.users.list()).rejects.toMatchObject({ status: 401, code: 'authentication_failed' });
  });

  it('stay at most maxTenants, the least recently used leaving first', async () => {
    const store = open(tempDir(), OPTIONS, { maxTenants: 2 });
    const tenants = [];
    for (let i = 0; i < 4; i++) tenants.push(await newTenant(store));
    for (const [i, t] of tenants.entries()) {
      const client = new PixUsdt({ apiKey: t.apiKey, fetch: store.sandbox.fetch, maxRetries: 0 });
      await client.users.create({ external_id: `e-${i}`, name: `U ${i}`, document_type: 'cpf', document_number: cpf(100 + i) });
      expect(store.persistence.loaded).toBeLessThanOrEqual(2);
    }
    for (const [i, t] of tenants.entries()) {
      const client = new PixUsdt({ apiKey: t.apiKey, fetch: store.sandbox.fetch, maxRetries: 0 });
      const page = await client.users.list();
      expect(page.data.map((u) => u.external_id)).toEqual([`e-${i}`]);
      expect(store.persistence.loaded).toBeLessThanOrEqual(2);
    }
  });

  it("an idle tenant's timer fires on time out of memory: the alarm loads it", async () => {
    // A clock that follows real time and a settlement one second after the payment.
    const store = open(tempDir(), { seed: 'alarm', quoteRateLimit: 0, settlementDelaySeconds: 1 });
    const tenant = await newTenant(store);
    const client = new PixUsdt({ apiKey: tenant.apiKey, fetch: store.sandbox.fetch, maxRetries: 0 });
    const userId = await approvedUser(client, 3);
    const quote = await client.quotes.create(onrampBody(userId));
    const conversion = await client.quotes.accept(quote.id);
    await client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id);
    expect(store.persistence.sweep(Date.now() + 61_000)).toBe(2);
    expect(store.persistence.loaded).toBe(0);
    // No request: the settlement falls due, the alarm loads the tenant and fires it, and commits.
    const deadline = Date.now() + 10_000;
    let status = '';
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (store.persistence.loaded > 0) {
        status = snapshotRecords(store.sandbox.snapshot()).tenants.find((t) => t.id === tenant.tenantId)?.conversions[0]?.status ?? '';
        if (status === 'completed') break;
      }
    }
    expect(status).toBe('completed');
  });
});

describe('a write that cannot commit', () => {
  it('answers 503 storage_unavailable, changes nothing in memory, logs once, and the folder reopens', async () => {
    const dir = tempDir();
    const { wrap, failing } = counting();
    const lines: string[] = [];
    const store = openDataStore(dir, OPTIONS, { wrapDriver: wrap, log: (line) => lines.push(line) });
    const client = new PixUsdt({ apiKey: store.sandbox.apiKey, fetch: store.sandbox.fetch, maxRetries: 0 });
    const kept = await client.users.create({ external_id: 'kept', name: 'Kept', document_type: 'cpf', document_number: cpf(11) });

    failing.on = true;
    const refused = await post(store, store.sandbox.apiKey, '/v1/users', { external_id: 'lost', name: 'Lost', document_type: 'cpf', document_number: cpf(12) }, 'lost-1');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    const envelope = (await refused.json()) as { code: string; message: string; request_id: string };
    expect(envelope.code).toBe('storage_unavailable');
    expect(envelope.request_id).toMatch(/^req_/);
    // The client sees a typed, retryable 503.
    await expect(client.users.create({ external_id: 'lost-2', name: 'Lost', document_type: 'cpf', document_number: cpf(13) })).rejects.toMatchObject({
      status: 503,
      code: 'storage_unavailable',
    });
    // Reads go on, from what was answered before: the refused user is not in memory either.
    const page = await client.users.list();
    expect(page.data.map((u) => u.external_id)).toEqual(['kept']);
    expect(lines.filter((l) => l.includes('cannot write'))).toHaveLength(1);
    expect(lines[0]).toContain('database or disk is full');

    // Writes work again: the same key runs now (the refused answer was not stored for it).
    failing.on = false;
    const again = await post(store, store.sandbox.apiKey, '/v1/users', { external_id: 'lost', name: 'Lost', document_type: 'cpf', document_number: cpf(12) }, 'lost-1');
    expect(again.status).toBe(201);
    expect(lines.some((l) => l.includes('works again'))).toBe(true);
    store.close();

    const reopened = open(dir);
    const after = new PixUsdt({ apiKey: reopened.sandbox.apiKey, fetch: reopened.sandbox.fetch, maxRetries: 0 });
    expect((await after.users.list()).data.map((u) => u.external_id).sort()).toEqual(['kept', 'lost']);
    expect((await after.users.retrieve(kept.id)).id).toBe(kept.id);
  });
});
