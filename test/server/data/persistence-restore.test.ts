/**
 * The data folder in process: a sandbox reopened from its folder after a crash (no clean
 * stop: the database as the last commit left it) equals the one that wrote it, records, clocks,
 * idempotency records and pending deliveries with their schedule included; and the two go on
 * alike when their clocks move.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import type { SandboxOptions } from '../../../src/sandbox/index.js';
import { type DataStore, openDataStore } from '../../../src/server/data/store.js';
import { RECEIVER } from '../../sandbox/plugins/webhooks/helpers.js';
import { approvedUser, cpf, onrampBody } from '../../support/fixtures.js';
import { snapshotRecords } from '../../support/records.js';

const dirs: string[] = [];
const stores: DataStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const OPTIONS: SandboxOptions = {
  seed: 'persist',
  now: '2026-03-02T12:00:00.000Z',
  // Every delivery fails: they stay pending, with retries scheduled.
  webhookTransport: () => Promise.reject(new Error('connect ECONNREFUSED')),
  // Circuits are kept in memory only (docs/decisions.md, "A circuit per endpoint"): the reopened
  // sandbox starts with its circuits closed and would retry at once what the first one delays.
  webhooks: { circuit: false },
};

function open(dir: string, options: SandboxOptions = OPTIONS): DataStore {
  const store = openDataStore(dir, options);
  stores.push(store);
  return store;
}

describe('a data folder reopened after a crash', () => {
  it('holds the state the sandbox had, and both go on alike', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-restore-'));
    dirs.push(dir);
    const first = open(dir);
    expect(first.origin).toBe('new');
    const sandbox = first.sandbox;
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    const userId = await approvedUser(client, 1);
    const quote = await client.quotes.create(onrampBody(userId));
    await client.quotes.accept(quote.id);
    await client.quotes.create(onrampBody(userId, '100.00'));
    // Changes in place (a deleted user cancels its active quote) reach the journal too.
    const leaving = await approvedUser(client, 4);
    await client.quotes.create(onrampBody(leaving, '200.00'));
    await client.users.delete(leaving);
    const tenant = (await (
      await sandbox.fetch('/v1/test_helpers/tenants', { method: 'POST', headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' }, body: '{}' })
    ).json()) as { api_key: string };
    const other = new PixUsdt({ apiKey: tenant.api_key, fetch: sandbox.fetch, maxRetries: 0 });
    await approvedUser(other, 2);
    // A delivery attempt's outcome changes its record with no request: it is written on the next
    // turn, or with the tenant's next answer (here the advance, which waits for attempts in flight).
    await client.testHelpers.clock.advance({ seconds: 90 });
    // The last answer is on disk once it is out.
    const written = snapshotRecords(sandbox.snapshot());
    expect(written.tenants).toHaveLength(2);
    const pending = written.tenants.flatMap((t) => (t.extensions['webhooks'] as { deliveries: Array<{ status: string }> } | undefined)?.deliveries ?? []);
    expect(pending.some((d) => d.status === 'pending')).toBe(true);
    expect(written.tenants[0]?.idempotency.length).toBeGreaterThan(0);

    // No close(): a crash. The folder as the kill would leave it (the database and its write-ahead
    // log), copied, so that the first sandbox goes on with its own (its lock is held by this process).
    const crashed = `${dir}-crashed`;
    dirs.push(crashed);
    cpSync(dir, crashed, { recursive: true });
    const second = open(crashed);
    expect(second.origin).toBe('restored');
    expect(second.sandbox.snapshot()).toEqual(written);

    // Timers come back from the state: a day later both fired the same retries and expiries.
    await sandbox.clock.advance({ days: 1 });
    await second.sandbox.clock.advance({ days: 1 });
    // (An attempt's latency is real time, measured: the one field that may differ.)
    const timed = (x: unknown): unknown => JSON.parse(JSON.stringify(x, (k, v: unknown) => (k === 'latencyMs' ? 0 : v)));
    const a = timed(sandbox.snapshot());
    expect(a).not.toEqual(timed(written));
    expect(timed(second.sandbox.snapshot())).toEqual(a);
  });

  it('a clean stop leaves one database file that reopens to the same state', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-restore-'));
    dirs.push(dir);
    const first = openDataStore(dir, OPTIONS);
    const client = new PixUsdt({ apiKey: first.sandbox.apiKey, fetch: first.sandbox.fetch, maxRetries: 0 });
    await approvedUser(client, 3);
    const written = first.sandbox.snapshot();
    first.close();
    // The write-ahead log was emptied into the database, and the lock released.
    expect(readdirSync(dir).sort()).toEqual(['data.db']);
    const second = open(dir);
    expect(second.origin).toBe('restored');
    expect(second.sandbox.snapshot()).toEqual(written);
  });

  it('an idempotency record still running when other answers commit is written once it is answered', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-restore-'));
    dirs.push(dir);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Deliveries hang until released: a clock advance waits for them, so its request keeps running.
    const store = open(dir, { ...OPTIONS, webhookTransport: () => held.then(() => ({ status: 200, headers: {}, body: '' })) });
    const sandbox = store.sandbox;
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    await approvedUser(client, 5);
    const advance = (): Promise<Response> =>
      sandbox.fetch('/v1/test_helpers/clock/advance', {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'advance-1' },
        body: JSON.stringify({ seconds: 1 }),
      });
    const running = advance();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Another answer of the tenant commits while the record runs: the record is not in that commit.
    await client.users.create({ external_id: 'meanwhile', name: 'Meanwhile', document_type: 'cpf', document_number: cpf(77) });
    release();
    const first = await running;
    expect(first.status).toBe(200);
    const body = await first.text();

    // No close(): a crash, the folder copied as the kill would leave it (the lock is the running sandbox's).
    const crashed = `${dir}-crashed`;
    dirs.push(crashed);
    cpSync(dir, crashed, { recursive: true });
    const again = open(crashed);
    const replay = await again.sandbox.fetch('/v1/test_helpers/clock/advance', {
      method: 'POST',
      headers: { authorization: `Bearer ${again.sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'advance-1' },
      body: JSON.stringify({ seconds: 1 }),
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(body);
  });
});
