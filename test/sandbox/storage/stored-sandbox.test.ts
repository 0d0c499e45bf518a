/**
 * `createStoredSandbox` as a host outside this repository uses it: through the public entry
 * (`pix-usdt/sandbox`) over a driver of three methods written here over libsql (the optional
 * peer). What it builds survives a reload on the same database (data, keys, replays, a pending
 * timer); a host's alarm (`arm` + `wakeUp`), deferral (`defer` + `flush`), `initial` and write
 * hooks do what their TSDoc says; a database that is not a sandbox's is refused untouched.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'libsql';
import { afterEach, describe, expect, it } from 'vitest';
import { PixUsdt } from 'pix-usdt';
import {
  type SqlDriver,
  type SqlValue,
  StorageError,
  type StoredSandbox,
  type StoredSandboxOptions,
  createSandbox,
  createStoredSandbox,
  hasStoredSandbox,
} from 'pix-usdt/sandbox';
import { approvedUser, onrampBody } from '../../support/fixtures.js';

const T0 = '2026-03-02T12:00:00.000Z';
const OPTIONS: StoredSandboxOptions = { seed: 'factory', now: T0, quoteRateLimit: 0 };

/** A partner's driver: libsql's better-sqlite3 API, three methods. */
function libsqlDriver(db: Database.Database): SqlDriver {
  return {
    all: (sql, params = []) => db.prepare(sql).all(...params) as Array<Record<string, SqlValue>>,
    run: (sql, params = []) => void db.prepare(sql).run(...params),
    transaction: (fn) => db.transaction(fn)(),
  };
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function databaseFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-factory-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'sandbox.db');
}

/** A database connection and its driver, closed after the test (after the sandboxes over it). */
function connect(file: string): { db: Database.Database; driver: SqlDriver } {
  const db = new Database(file);
  cleanups.push(() => db.close());
  return { db, driver: libsqlDriver(db) };
}

function open(driver: SqlDriver, options: StoredSandboxOptions = OPTIONS): StoredSandbox {
  const sandbox = createStoredSandbox(driver, options);
  cleanups.push(() => sandbox.close());
  return sandbox;
}

describe('createStoredSandbox (pix-usdt/sandbox) over libsql', () => {
  it('survives a reload on the same database: tenants, keys, data, an idempotent replay, and a pending timer', async () => {
    const file = databaseFile();
    const first = connect(file);
    expect(hasStoredSandbox(first.driver)).toBe(false);
    const a = open(first.driver);
    expect(hasStoredSandbox(first.driver)).toBe(true);
    const client = new PixUsdt({ apiKey: a.apiKey, fetch: a.fetch, maxRetries: 0 });
    const userId = await approvedUser(client, 1);
    const quote = await client.quotes.create(onrampBody(userId));
    const conversion = await client.quotes.accept(quote.id, {}, { idempotencyKey: 'accept-1' });
    // Paid: settles when the settlement delay (60 s) has passed on the tenant's clock, a timer.
    await client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id);
    const other = a.createTenant();
    const before = { apiKey: a.apiKey, tenantId: a.tenantId, users: (await client.users.list()).data, status: (await client.conversions.retrieve(conversion.id)).status };
    expect(before.status).toBe('funded');
    await a.close();
    first.db.close();

    const second = connect(file);
    const b = open(second.driver);
    expect({ apiKey: b.apiKey, tenantId: b.tenantId }).toEqual({ apiKey: before.apiKey, tenantId: before.tenantId });
    const again = new PixUsdt({ apiKey: b.apiKey, fetch: b.fetch, maxRetries: 0 });
    expect((await again.users.list()).data).toEqual(before.users);
    // The other tenant's key still authenticates, into its own (empty) tenant.
    expect((await new PixUsdt({ apiKey: other.apiKey, fetch: b.fetch, maxRetries: 0 }).users.list()).data).toEqual([]);
    const replay = await again.quotes.accept(quote.id, {}, { idempotencyKey: 'accept-1' }).withResponse();
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data.id).toBe(conversion.id);
    // The settlement timer came back with the tenant: it fires when its time comes.
    expect((await again.conversions.retrieve(conversion.id)).status).toBe('funded');
    await b.clock.advance({ seconds: 61 });
    expect((await again.conversions.retrieve(conversion.id)).status).toBe('completed');
  });

  it('writes each event row as the JSON of the event emitted, and each answered key with the body answered, byte for byte', async () => {
    const file = databaseFile();
    const { db, driver } = connect(file);
    const a = open(driver);
    const emitted: string[] = [];
    a.on('event', (event) => emitted.push(JSON.stringify(event)));
    const client = new PixUsdt({ apiKey: a.apiKey, fetch: a.fetch, maxRetries: 0 });
    const userId = await approvedUser(client, 1);
    const quote = await client.quotes.create(onrampBody(userId));
    const accepted = await a.fetch(new Request(`http://sandbox/v1/quotes/${quote.id}/accept`, { method: 'POST', headers: { authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'accept-bytes' }, body: '{}' }));
    const answered = await accepted.text();
    const conversionId = (JSON.parse(answered) as { id: string }).id;
    await client.testHelpers.conversions.simulateOnrampPixPaid(conversionId);
    await a.clock.advance({ seconds: 61 });
    await client.conversions.retrieve(conversionId);
    await a.flush();
    const rows = db.prepare('SELECT data FROM events ORDER BY seq').all() as Array<{ data: string }>;
    expect(emitted.length).toBeGreaterThanOrEqual(5);
    expect(rows.map((r) => r.data)).toEqual(emitted);
    const idem = db.prepare("SELECT data FROM idempotency WHERE key = 'accept-bytes'").get() as { data: string };
    expect((JSON.parse(idem.data) as { body: string }).body).toBe(answered);
  });

  it('writes an advance made in process: a reload finds the clock moved and what it changed, with no event to announce it', async () => {
    const file = databaseFile();
    const first = connect(file);
    const a = open(first.driver);
    const client = new PixUsdt({ apiKey: a.apiKey, fetch: a.fetch, maxRetries: 0 });
    const quote = await client.quotes.create(onrampBody(await approvedUser(client, 8)));
    // A quote expires without an event: only the advance says the tenant changed.
    await a.clock.advance({ minutes: 10 });
    await a.close();
    first.db.close();
    const b = open(connect(file).driver);
    expect(new Date(b.clock.now()).toISOString()).toBe(new Date(Date.parse(T0) + 600_000).toISOString());
    expect((await new PixUsdt({ apiKey: b.apiKey, fetch: b.fetch, maxRetries: 0 }).quotes.retrieve(quote.id)).status).toBe('expired');
  });

  it("arms the host's alarm for the earliest timer, and fires it on wakeUp", async () => {
    const { driver } = connect(databaseFile());
    const armed: number[] = [];
    // A clock that follows real time: timers fall due in real time, so the alarm has an instant.
    const sandbox = open(driver, { seed: 'alarm', settlementDelaySeconds: 0.2, arm: (at) => armed.push(at) });
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    const userId = await approvedUser(client, 2);
    const conversion = await client.quotes.accept((await client.quotes.create(onrampBody(userId))).id);
    const paidAt = Date.now();
    await client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id);
    expect(armed.length).toBeGreaterThan(0);
    const settleAt = Math.min(...armed.filter((at) => at >= paidAt));
    expect(settleAt - paidAt).toBeLessThan(5_000);
    // No process timer of the sandbox's own: nothing fires until the host's alarm calls wakeUp.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, settleAt - Date.now()) + 300));
    expect(sandbox.events().map((e) => e.type)).not.toContain('conversion.completed');
    sandbox.wakeUp();
    await sandbox.webhooks.flush();
    expect(sandbox.events().map((e) => e.type)).toContain('conversion.completed');
    expect((await client.conversions.retrieve(conversion.id)).status).toBe('completed');
  });

  it('with defer, writes a change made without a request when the host runs the deferred write, or at flush()', async () => {
    const file = databaseFile();
    const { driver } = connect(file);
    let hold = false;
    const held: Array<() => void> = [];
    const sandbox = open(driver, { ...OPTIONS, defer: (fn) => (hold ? held.push(fn) : setImmediate(fn)) });
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    const conversion = await client.quotes.accept((await client.quotes.create(onrampBody(await approvedUser(client, 7)))).id);
    /** The conversion's status as another connection reads it from the database now. */
    const stored = async (): Promise<string> => {
      const view = createStoredSandbox(connect(file).driver, OPTIONS);
      try {
        return (await new PixUsdt({ apiKey: view.apiKey, fetch: view.fetch, maxRetries: 0 }).conversions.retrieve(conversion.id)).status;
      } finally {
        await view.close();
      }
    };
    hold = true;
    // A change without a request: the deposit window (15 minutes) closes as the tenant's clock moves.
    await sandbox.clock.advance({ minutes: 16 });
    expect(sandbox.events().map((e) => e.type)).toContain('conversion.expired');
    expect(held.length).toBeGreaterThan(0);
    expect(await stored()).toBe('awaiting_deposit');
    sandbox.flush();
    expect(await stored()).toBe('expired');
  });

  it('starts an empty database from `initial`, and ignores it once the database holds a sandbox', async () => {
    const source = createSandbox({ seed: 'initial', now: T0 });
    const client = new PixUsdt({ apiKey: source.apiKey, fetch: source.fetch, maxRetries: 0 });
    await approvedUser(client, 3);
    const snapshot = source.snapshot();
    const file = databaseFile();
    const first = connect(file);
    const a = open(first.driver, { seed: 'other', now: T0, initial: snapshot });
    expect(a.tenantId).toBe(source.tenantId);
    expect((await new PixUsdt({ apiKey: a.apiKey, fetch: a.fetch }).users.list()).data.map((u) => u.external_id)).toEqual(['ext-3']);
    await a.close();
    const fresh = createSandbox({ seed: 'fresh', now: T0 }).snapshot();
    const b = open(connect(file).driver, { seed: 'other', now: T0, initial: fresh });
    expect(b.tenantId).toBe(source.tenantId);
  });

  it('migrates a schema-1 database through the host driver (three methods, no `get`, as a Durable Object has): data, replays and the event log go on', async () => {
    const file = databaseFile();
    const first = connect(file);
    const a = open(first.driver);
    const client = new PixUsdt({ apiKey: a.apiKey, fetch: a.fetch, maxRetries: 0 });
    const userId = await approvedUser(client, 1);
    const quote = await client.quotes.create(onrampBody(userId));
    const conversion = await client.quotes.accept(quote.id, {}, { idempotencyKey: 'accept-1' });
    const events = a.events().map((e) => e.id);
    await a.close();
    // What schema 1 held: the same tables, the log's position and the record counts in the tenant row.
    first.db.exec(
      "UPDATE tenants SET state = json_set(state, '$.events', (SELECT MAX(seq) FROM events WHERE tenant = tenants.id), '$.counts', json_object('user', 1, 'quote', 1, 'conversion', 1, 'transaction', 0))",
    );
    first.db.exec("UPDATE meta SET value = '1' WHERE name = 'schema'");
    first.db.close();

    const second = connect(file);
    const b = open(second.driver);
    const again = new PixUsdt({ apiKey: b.apiKey, fetch: b.fetch, maxRetries: 0 });
    expect((await again.quotes.accept(quote.id, {}, { idempotencyKey: 'accept-1' })).id).toBe(conversion.id);
    await again.users.create({ external_id: 'after', name: 'After', document_type: 'cpf', document_number: '52998224725' });
    const after = b.events().map((e) => e.id);
    expect(after.slice(0, events.length)).toEqual(events);
    expect(after.length).toBeGreaterThan(events.length);
    const row = (sql: string): unknown => (second.db.prepare(sql).get() as { v: unknown }).v;
    expect(row("SELECT value AS v FROM meta WHERE name = 'schema'")).not.toBe('1');
    expect(row("SELECT COUNT(*) AS v FROM tenants WHERE json_extract(state, '$.events') IS NOT NULL OR json_extract(state, '$.counts') IS NOT NULL")).toBe(0);
  });

  it("refuses a database that is not a sandbox's, and writes nothing to it", () => {
    const { db, driver } = connect(databaseFile());
    db.exec('CREATE TABLE invoices (id TEXT PRIMARY KEY)');
    const tables = (): string[] => (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    expect(() => hasStoredSandbox(driver)).toThrow(StorageError);
    let error: unknown;
    try {
      createStoredSandbox(driver, OPTIONS);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).reason).toBe('foreign');
    expect(tables()).toEqual(['invoices']);
  });

  it('answers 503 storage_unavailable while writes fail, telling the host once, and again when they work', async () => {
    const { driver } = connect(databaseFile());
    let failing = false;
    const flaky: SqlDriver = {
      ...driver,
      transaction: (fn) =>
        driver.transaction(() => {
          fn();
          if (failing) throw new Error('disk full');
        }),
    };
    const told: string[] = [];
    const sandbox = open(flaky, { ...OPTIONS, onWriteError: (e) => told.push(`error: ${(e as Error).message}`), onWriteRecovered: () => told.push('recovered') });
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    failing = true;
    await expect(approvedUser(client, 4)).rejects.toMatchObject({ status: 503, code: 'storage_unavailable' });
    await expect(approvedUser(client, 5)).rejects.toMatchObject({ status: 503 });
    expect(told).toEqual(['error: disk full']);
    failing = false;
    await approvedUser(client, 6);
    expect(told).toEqual(['error: disk full', 'recovered']);
    // Nothing of the refused requests stayed.
    expect((await client.users.list()).data.map((u) => u.external_id)).toEqual(['ext-6']);
  });

  it("tells the host of a tenant it cannot read (onReadError, once), answers 503 for it, and serves the others", async () => {
    const { driver } = connect(databaseFile());
    let damaged = '';
    const failing: SqlDriver = {
      ...driver,
      all: (sql, params = []) => {
        if (damaged !== '' && sql.startsWith('SELECT') && !sql.includes('wake_at') && params.includes(damaged)) {
          throw Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
        }
        return driver.all(sql, params);
      },
    };
    const told: Array<[string, string | null]> = [];
    const sandbox = open(failing, { ...OPTIONS, idleMs: 0, onReadError: (e, tenantId) => told.push([(e as StorageError).reason, tenantId]) });
    const other = await sandbox.createTenant();
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    await approvedUser(client, 7);
    // Out of memory, then unreadable: its requests answer 503; the other tenant is served.
    (sandbox as unknown as { persistence: { sweep(now: number): number } }).persistence.sweep(Date.now() + 3_600_000);
    damaged = other.tenantId;
    const theirs = new PixUsdt({ apiKey: other.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    await expect(theirs.users.list()).rejects.toMatchObject({ status: 503, code: 'storage_unavailable', details: { reason: 'storage_damaged' } });
    await expect(theirs.users.list()).rejects.toMatchObject({ status: 503 });
    expect((await client.users.list()).data.map((u) => u.external_id)).toEqual(['ext-7']);
    expect(told).toEqual([['damaged', other.tenantId]]);
  });
});
