/**
 * A data folder that is damaged, foreign or contested (issue 35), in process through
 * `openDataStore`: every refusal leaves the folder's bytes and modes as they were.
 *
 * - At the start: a damaged page (`PRAGMA quick_check`), a file cut short after a clean stop or
 *   after `kill -9`, a write-ahead log copied from another sandbox's database, a database made
 *   read-only, another program's database with its own mode, API keys of the old layout that
 *   are not each one tenant's own.
 * - While serving: a tenant whose data cannot be read answers 503 `storage_unavailable` in the
 *   envelope, is marked and not read again, and is logged once; the other tenants are served,
 *   and their timers still wake.
 * - The lock: a second taker is refused whatever the lock file says (the kernel decides).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, rmSync, chmodSync, truncateSync, writeFileSync, copyFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import type { SandboxOptions } from '../../../src/sandbox/index.js';
import { SCHEMA_VERSION, type SqlDriver, type SqlValue } from '../../../src/sandbox/storage/sql.js';
import { DataFolder } from '../../../src/server/data/folder.js';
import { lock } from '../../../src/server/data/lock.js';
import { type DataStore, openDataStore } from '../../../src/server/data/store.js';
import { cpf } from '../../support/fixtures.js';
import { folderState } from './folder-state.js';
import { storeScratch } from './scratch.js';

const LEGACY = fileURLToPath(new URL('../fixtures/legacy-data/', import.meta.url));
const OPTIONS: SandboxOptions = { seed: 'damaged', now: '2026-03-02T12:00:00.000Z', quoteRateLimit: 0 };

const { tempDir, open, closed } = storeScratch('pix-usdt-damaged-', OPTIONS);

interface Owner {
  tenantId: string;
  apiKey: string;
  userId: string;
}

function client(store: DataStore, apiKey: string): PixUsdt {
  return new PixUsdt({ apiKey, fetch: store.sandbox.fetch, maxRetries: 0 });
}

async function newUser(store: DataStore, apiKey: string, n: number): Promise<string> {
  return (await client(store, apiKey).users.create({ external_id: `e-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) })).id;
}

/** A folder holding two tenants (the default one, `a`, and `b`), a user each, stopped cleanly; or the open store. */
async function twoTenants(dir: string, options: SandboxOptions = OPTIONS): Promise<{ store: DataStore; a: Owner; b: Owner }> {
  const store = openDataStore(dir, options);
  const made = (await (
    await store.sandbox.fetch('/v1/test_helpers/tenants', { method: 'POST', headers: { authorization: `Bearer ${store.sandbox.apiKey}`, 'content-type': 'application/json' }, body: '{}' })
  ).json()) as { tenant_id: string; api_key: string };
  const a = { tenantId: store.sandbox.tenantId, apiKey: store.sandbox.apiKey, userId: await newUser(store, store.sandbox.apiKey, 1) };
  const b = { tenantId: made.tenant_id, apiKey: made.api_key, userId: await newUser(store, made.api_key, 2) };
  await new Promise((resolve) => setImmediate(resolve));
  return { store, a, b };
}

async function stoppedFolder(options: SandboxOptions = OPTIONS): Promise<{ dir: string; a: Owner; b: Owner }> {
  const dir = tempDir();
  const { store, a, b } = await twoTenants(dir, options);
  store.close();
  return { dir, a, b };
}

/** Overwrites every 4 KiB page of the file that holds `text`. */
function damagePagesHolding(file: string, text: string): number {
  const bytes = readFileSync(file);
  const pages = new Set<number>();
  for (let at = bytes.indexOf(text); at >= 0; at = bytes.indexOf(text, at + 1)) pages.add(Math.floor(at / 4096));
  for (const page of pages) bytes.fill(0xab, page * 4096, (page + 1) * 4096);
  writeFileSync(file, bytes);
  return pages.size;
}

describe('a damaged database is refused at the start, the folder left as it was', () => {
  it('a damaged page (PRAGMA quick_check), with the file and mode named', async () => {
    const { dir, b } = await stoppedFolder();
    expect(damagePagesHolding(path.join(dir, 'data.db'), b.userId)).toBeGreaterThan(0);
    chmodSync(path.join(dir, 'data.db'), 0o640);
    const before = folderState(dir);
    expect(() => openDataStore(dir, OPTIONS)).toThrow(`${path.join(dir, 'data.db')} is damaged (`);
    expect(() => openDataStore(dir, OPTIONS)).toThrow('restore it from a backup, or move it away to start afresh');
    // No lock, no side file, the mode as it was (640, not narrowed to 600 before the refusal).
    expect(folderState(dir)).toEqual(before);
  });

  it('past fullCheckMaxBytes the start skips reading every page: a damaged page is found when read (503), the other tenant served', async () => {
    const dir = tempDir();
    const { store, a, b } = await twoTenants(dir);
    // Enough rows that some of tenant b's pages hold nothing of tenant a.
    const bUsers: string[] = [];
    for (let n = 100; n < 140; n++) bUsers.push(await newUser(store, b.apiKey, n));
    store.close();
    const file = path.join(dir, 'data.db');
    const bytes = readFileSync(file);
    const victim = bUsers[20] as string;
    const pages = new Set<number>();
    for (let at = bytes.indexOf(victim); at >= 0; at = bytes.indexOf(victim, at + 1)) pages.add(Math.floor(at / 4096));
    const target = [...pages].filter((p) => [a.apiKey, a.userId, a.tenantId].every((s) => !bytes.subarray(p * 4096, (p + 1) * 4096).includes(s)));
    expect(target.length).toBeGreaterThan(0);
    for (const p of target) bytes.fill(0xab, p * 4096, (p + 1) * 4096);
    writeFileSync(file, bytes);

    // Within the limit (the default): refused at the start.
    expect(() => openDataStore(dir, OPTIONS)).toThrow(`${file} is damaged (`);
    // Past it: the start opens; the damaged tenant answers 503 when read, the other is served.
    const log: string[] = [];
    const opened = open(dir, OPTIONS, { fullCheckMaxBytes: bytes.length - 1, log: (line) => log.push(line) });
    const res = await opened.sandbox.fetch(`/v1/users/${victim}`, { headers: { authorization: `Bearer ${b.apiKey}` } });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'storage_unavailable', details: { reason: 'storage_damaged' } });
    expect((await client(opened, a.apiKey).users.retrieve(a.userId)).id).toBe(a.userId);
    expect(opened.persistence.damaged).toEqual([b.tenantId]);
    expect(log.filter((l) => l.includes('is damaged'))).toHaveLength(1);
  });

  it('a file cut short after a clean stop', async () => {
    const { dir } = await stoppedFolder();
    const file = path.join(dir, 'data.db');
    truncateSync(file, Math.floor(readFileSync(file).length / 2));
    const before = folderState(dir);
    expect(() => openDataStore(dir, OPTIONS)).toThrow(/data\.db is damaged \(it is cut short: \d+ bytes where its header counts \d+\)/);
    expect(folderState(dir)).toEqual(before);
  });

  it('a file cut short after kill -9 (its write-ahead log beside it)', async () => {
    const { dir, a } = await stoppedFolder();
    // Written again, and not stopped: the newest rows are in the write-ahead log, the older ones only in the file.
    const store = open(dir);
    for (let n = 10; n < 14; n++) await newUser(store, a.apiKey, n);
    await new Promise((resolve) => setImmediate(resolve));
    const crashed = tempDir();
    cpSync(dir, crashed, { recursive: true });
    expect(readdirSync(crashed)).toContain('data.db-wal');
    const file = path.join(crashed, 'data.db');
    truncateSync(file, Math.floor(readFileSync(file).length / 2));
    const before = folderState(crashed);
    expect(() => openDataStore(crashed, OPTIONS)).toThrow(`${file} is damaged (`);
    expect(folderState(crashed)).toEqual(before);
  });

  it("a write-ahead log copied from another sandbox's database: refused by name, neither replayed nor changed", async () => {
    const ours = await stoppedFolder();
    const donorDir = tempDir();
    const donor = await twoTenants(donorDir, { ...OPTIONS, seed: 'donor' });
    const donorKey = donor.a.apiKey;
    // The donor runs: its latest rows are in its log.
    copyFileSync(path.join(donorDir, 'data.db-wal'), path.join(ours.dir, 'data.db-wal'));
    donor.store.close();
    const before = folderState(ours.dir);
    expect(() => openDataStore(ours.dir, OPTIONS)).toThrow(`${path.join(ours.dir, 'data.db-wal')} does not belong to ${path.join(ours.dir, 'data.db')} (it was written for another database)`);
    expect(folderState(ours.dir)).toEqual(before);

    // Moved away, as the message says: the database opens as it was, our key works, the donor's does not.
    rmSync(path.join(ours.dir, 'data.db-wal'));
    const store = open(ours.dir);
    expect((await client(store, ours.a.apiKey).users.retrieve(ours.a.userId)).id).toBe(ours.a.userId);
    await expect(client(store, donorKey).users.list()).rejects.toMatchObject({ status: 401 });
  });

  it("a database made read-only is refused, not chmodded and written", async () => {
    const { dir } = await stoppedFolder();
    chmodSync(path.join(dir, 'data.db'), 0o400);
    const before = folderState(dir);
    expect(() => openDataStore(dir, OPTIONS)).toThrow(`${path.join(dir, 'data.db')} is read-only (mode 400), and the server writes it: it is left as it is. Run \`chmod 600 ${path.join(dir, 'data.db')}\``);
    expect(folderState(dir)).toEqual(before);
  });

  it("another program's database, or a newer one, keeps its mode when refused", async () => {
    const dir = tempDir();
    const Database = createRequire(import.meta.url)('libsql') as new (file: string) => { exec(sql: string): void; close(): void };
    const db = new Database(path.join(dir, 'data.db'));
    db.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, total TEXT)');
    db.close();
    chmodSync(path.join(dir, 'data.db'), 0o644);
    let before = folderState(dir);
    expect(() => openDataStore(dir, OPTIONS)).toThrow('it holds tables (orders) but no sandbox marks');
    expect(folderState(dir)).toEqual(before);

    const newer = await stoppedFolder();
    const file = path.join(newer.dir, 'data.db');
    const other = new Database(file);
    other.exec(`UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE name = 'schema'`);
    other.close();
    chmodSync(file, 0o644);
    before = folderState(newer.dir);
    expect(() => openDataStore(newer.dir, OPTIONS)).toThrow(`written by a newer pix-usdt (schema version ${SCHEMA_VERSION + 1}`);
    expect(folderState(newer.dir)).toEqual(before);
  });

  it('a folder of another environment is refused before anything is written', async () => {
    const { dir } = await stoppedFolder();
    const before = folderState(dir);
    expect(() => openDataStore(dir, { ...OPTIONS, environment: 'production' })).toThrow('The stored sandbox is a sandbox one; this one is production');
    expect(folderState(dir)).toEqual(before);
  });

  it('an old layout whose journal gives tenant 2 the secret of tenant 1 is not imported', () => {
    const dir = tempDir();
    cpSync(LEGACY, dir, { recursive: true });
    const snapshot = JSON.parse(readFileSync(path.join(dir, 'snapshot.json'), 'utf8')) as { snapshot: { tenants: Array<{ id: string; keys: Array<{ id: string; secret: string }> }> } };
    const [first, second] = snapshot.snapshot.tenants;
    const journal = readFileSync(path.join(dir, 'journal.ndjson'), 'utf8').split('\n');
    const last = journal.length - 2; // the final newline leaves an empty last element
    const entry = JSON.parse(journal[last] as string) as { state: { tenants: Array<{ id: string; keys: Array<{ id: string; secret: string }> }> } };
    const line = entry.state.tenants.find((t) => t.id === second?.id);
    expect(line?.keys).toHaveLength(1);
    (line?.keys[0] as { secret: string }).secret = first?.keys[0]?.secret as string;
    journal[last] = JSON.stringify(entry);
    writeFileSync(path.join(dir, 'journal.ndjson'), journal.join('\n'));
    const before = folderState(dir);
    let message = '';
    try {
      openDataStore(dir, OPTIONS);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`cannot be imported: API keys ${first?.keys[0]?.id} and ${second?.keys[0]?.id} have the same secret, in tenants ${first?.id} and ${second?.id}`);
    // The secret itself is never printed.
    expect(message).not.toContain(first?.keys[0]?.secret);
    expect(folderState(dir)).toEqual(before);
  });
});

/** A driver whose reads of one tenant fail as a damaged page does; reads counted. */
function damagedFor(tenantId: () => string, reads: { damaged: number; wakes: number; lookupsFail: boolean }): (driver: SqlDriver) => SqlDriver {
  const corrupt = (): Error => Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
  return (driver) => ({
    all: (sql: string, params: readonly SqlValue[] = []) => {
      const wakes = sql.startsWith('SELECT id FROM tenants WHERE wake_at') || sql.startsWith('SELECT MIN(wake_at)');
      if (wakes) reads.wakes++;
      // The tenant's own rows (the queries of the alarm name it only to skip it).
      else if (params.includes(tenantId()) && sql.startsWith('SELECT')) {
        reads.damaged++;
        throw corrupt();
      }
      if (reads.lookupsFail && sql.startsWith('SELECT tenant FROM api_keys WHERE secret')) throw corrupt();
      return driver.all(sql, params);
    },
    run: (sql, params) => driver.run(sql, params),
    transaction: (fn) => driver.transaction(fn),
  });
}

describe('a tenant whose data cannot be read, while serving', () => {
  it('answers 503 in the envelope, is marked and not read again, logged once; the others are served and wake', async () => {
    const { dir, a, b } = await stoppedFolder();
    const reads = { damaged: 0, wakes: 0, lookupsFail: false };
    const log: string[] = [];
    const store = open(dir, OPTIONS, { log: (line) => log.push(line), wrapDriver: damagedFor(() => b.tenantId, reads) });

    expect((await client(store, a.apiKey).users.retrieve(a.userId)).id).toBe(a.userId);
    for (let i = 0; i < 2; i++) {
      const res = await store.sandbox.fetch(`/v1/users/${b.userId}`, { headers: { authorization: `Bearer ${b.apiKey}` } });
      expect(res.status).toBe(503);
      const body = (await res.json()) as { code: string; message: string; request_id: string; details: { reason: string } };
      expect(body).toMatchObject({ code: 'storage_unavailable', details: { reason: 'storage_damaged' } });
      expect(body.request_id).toMatch(/^req_/);
      expect(body.message).toContain("cannot read this tenant's data");
    }
    // Read once, then answered from the mark.
    expect(reads.damaged).toBe(1);
    expect(store.persistence.damaged).toEqual([b.tenantId]);
    expect(log.filter((l) => l.includes('is damaged'))).toEqual([
      expect.stringContaining(`${path.join(dir, 'data.db')} is damaged: reading tenant ${b.tenantId} failed (the data is damaged (database disk image is malformed)). Its requests answer 503 storage_unavailable; the other tenants are served.`),
    ]);
    // The other tenant reads and writes; the operator's listing still shows both.
    expect((await client(store, a.apiKey).users.retrieve(a.userId)).id).toBe(a.userId);
    await newUser(store, a.apiKey, 3);
    expect(store.sandbox.inspector.tenants().map((t) => t.id).sort()).toEqual([a.tenantId, b.tenantId].sort());

    // Timers: both tenants due, the damaged one first. The other still wakes; the damaged one is
    // not read again, and does not keep the alarm ringing.
    store.persistence.sweep(Date.now() + 3_600_000);
    expect(store.persistence.loaded).toBe(0);
    store.persistence.flushNow();
    const Database = createRequire(import.meta.url)('libsql') as new (file: string) => { prepare(sql: string): { run(...p: unknown[]): unknown }; close(): void };
    const direct = new Database(path.join(dir, 'data.db'));
    direct.prepare('UPDATE tenants SET wake_at = ? WHERE id = ?').run(1, b.tenantId);
    direct.prepare('UPDATE tenants SET wake_at = ? WHERE id = ?').run(2, a.tenantId);
    direct.close();
    store.sandbox.wakeUp();
    // The other tenant was woken: loaded for its timers.
    expect(store.persistence.loaded).toBe(1);
    expect(reads.damaged).toBe(1);
    const wakes = reads.wakes;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(reads.wakes - wakes).toBeLessThanOrEqual(2);
    store.sandbox.wakeUp();
    expect(reads.damaged).toBe(1);
  });

  it('a tenant in memory whose idempotency rows turn out damaged: 503 storage_damaged (not a write error), marked and evicted; nothing of the request is kept', async () => {
    const { dir, a, b } = await stoppedFolder();
    const create = (on: ReturnType<typeof open>): Promise<Response> =>
      on.sandbox.fetch('/v1/users', {
        method: 'POST',
        headers: { authorization: `Bearer ${b.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'before-damage' },
        body: JSON.stringify({ external_id: 'e-9', name: 'User 9', document_type: 'cpf', document_number: cpf(9) }),
      });
    // A create answered and written by an earlier start: its idempotency record is in storage only.
    const earlier = open(dir);
    const first = (await (await create(earlier)).json()) as { id: string };
    earlier.close();
    closed(earlier);
    let damagedNow = false;
    const reads = { damaged: 0, wakes: 0, lookupsFail: false };
    const store = open(dir, OPTIONS, { wrapDriver: damagedFor(() => (damagedNow ? b.tenantId : 'none'), reads) });
    // Loaded and served first.
    expect((await client(store, b.apiKey).users.retrieve(b.userId)).id).toBe(b.userId);
    expect(store.persistence.loaded).toBe(1);
    damagedNow = true;
    // Its replay reads the key's record from storage (not among this start's last answers kept in
    // memory; a new key is known not to be there, and reads nothing).
    const created = await create(store);
    expect(created.status).toBe(503);
    expect(await created.json()).toMatchObject({ code: 'storage_unavailable', details: { reason: 'storage_damaged' } });
    expect(store.persistence.damaged).toEqual([b.tenantId]);
    expect(store.persistence.loaded).toBe(0);
    // Any later request of the damaged tenant: the same answer, without reading again.
    const damagedReads = reads.damaged;
    expect((await store.sandbox.fetch('/v1/users', { headers: { authorization: `Bearer ${b.apiKey}` } })).status).toBe(503);
    expect(reads.damaged).toBe(damagedReads);
    // Nothing of the refused create was written: the other tenant is served, and b's users are as they were on disk.
    expect((await client(store, a.apiKey).users.retrieve(a.userId)).id).toBe(a.userId);
    store.close();
    closed(store);
    const reopened = open(dir);
    expect((await client(reopened, b.apiKey).users.list()).data.map((u) => u.id).sort()).toEqual([b.userId, first.id].sort());
  });

  it("the inspector's reads: a damaged tenant's page and a listing that cannot be read answer 503 in the envelope, not 500", async () => {
    const { dir, a, b } = await stoppedFolder();
    const reads = { damaged: 0, wakes: 0, lookupsFail: false };
    let listingFails = false;
    const wrap = damagedFor(() => b.tenantId, reads);
    const store = open(dir, OPTIONS, {
      wrapDriver: (driver) => {
        const inner = wrap(driver);
        return {
          ...inner,
          all: (sql, params) => {
            if (listingFails && sql.startsWith('SELECT id, created, state FROM tenants WHERE created')) throw Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
            return inner.all(sql, params);
          },
        };
      },
    });
    const inspect = async (route: string): Promise<{ status: number; body: { code?: string; details?: { reason?: string } } }> => {
      const res = await store.sandbox.inspector.fetch(new Request(`http://127.0.0.1/_inspector/api/${route}`));
      return { status: res.status, body: (await res.json()) as { code?: string; details?: { reason?: string } } };
    };
    expect(await inspect(`tenants/${b.tenantId}`)).toMatchObject({ status: 503, body: { code: 'storage_unavailable', details: { reason: 'storage_damaged' } } });
    expect((await inspect(`tenants/${a.tenantId}`)).status).toBe(200);
    expect((await inspect('tenants')).status).toBe(200);
    listingFails = true;
    expect(await inspect('tenants')).toMatchObject({ status: 503, body: { code: 'storage_unavailable', details: { reason: 'storage_damaged' } } });
  });

  it('the alarm whose next instant cannot be read tries again a second later, not never', async () => {
    const { dir } = await stoppedFolder();
    let failures = 0;
    let asked = 0;
    const store = open(dir, OPTIONS, {
      wrapDriver: (driver) => ({
        ...driver,
        all: (sql, params) => {
          if (sql.startsWith('SELECT MIN(wake_at)')) {
            asked++;
            if (failures-- > 0) throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
          }
          return driver.all(sql, params);
        },
      }),
    });
    failures = 1;
    const before = asked;
    store.sandbox.wakeUp();
    expect(asked).toBe(before + 1);
    // Re-armed: the alarm rings again by itself and asks again (it answers this time).
    const deadline = Date.now() + 10_000;
    while (asked < before + 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(asked).toBe(before + 2);
  });

  it('a key lookup that cannot be read answers 503 and is logged once; nothing is marked', async () => {
    const { dir, a } = await stoppedFolder();
    const reads = { damaged: 0, wakes: 0, lookupsFail: true };
    const log: string[] = [];
    const store = open(dir, OPTIONS, { log: (line) => log.push(line), wrapDriver: damagedFor(() => 'none', reads) });
    for (let i = 0; i < 2; i++) {
      const res = await store.sandbox.fetch(`/v1/users/${a.userId}`, { headers: { authorization: `Bearer ${a.apiKey}` } });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { code: string }).code).toBe('storage_unavailable');
    }
    expect(log.filter((l) => l.includes('reading a lookup across tenants failed'))).toHaveLength(1);
    expect(store.persistence.damaged).toEqual([]);
  });
});

describe('the lock', () => {
  it('a second taker is refused while the first holds it, whatever the file says; free again once released', () => {
    const dir = tempDir();
    const folder = DataFolder.open(dir);
    const held = lock(folder);
    // What a racing server may read: the lock of a server that is gone (a dead pid, in text).
    const gone = spawnSync(process.execPath, ['-e', '']).pid as number;
    writeFileSync(path.join(dir, 'lock'), `${gone}\n`);
    const before = folderState(dir);
    expect(() => lock(folder)).toThrow(`${dir} is in use by another sandbox server`);
    expect(folderState(dir)).toEqual(before);
    held.release();
    expect(existsSync(path.join(dir, 'lock'))).toBe(false);
    lock(folder).release();
  });
});
