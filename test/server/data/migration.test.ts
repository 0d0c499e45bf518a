/**
 * A data folder in the old layout (`snapshot.json` + `journal.ndjson`) opens: the first start
 * imports it into the database in one transaction, with one log line, then renames the old files
 * `*.migrated`. The fixture (test/server/fixtures/legacy-data/) was written by the `serve --data`
 * of pix-usdt 0.1 (commit 75cc3a0): a seeded server, two tenants, lifecycles, a webhook endpoint
 * whose deliveries fail (pending, with retries), a deleted user, a clock advanced; a clean stop
 * (the snapshot), then more mutations and `kill -9` (the journal). legacy-data.json lists what
 * was answered. In process the clocks are frozen at the fixture's time, so that its idempotency
 * records stay within their 24 hours whatever the day the test runs.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, type SqlDriver, SqlStorage, prepareSchema } from '../../../src/sandbox/storage/sql.js';
import type { SandboxOptions } from '../../../src/sandbox/index.js';
import { openSqlite } from '../../../src/server/data/driver.js';
import { DataFolder } from '../../../src/server/data/folder.js';
import { readLegacy } from '../../../src/server/data/legacy.js';
import { DataError, type DataStore, openDataStore } from '../../../src/server/data/store.js';
import { exitCode, serve, stopAll, waitFor } from '../helpers.js';
import { snapshotRecords } from '../../support/records.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/legacy-data/', import.meta.url));

interface Manifest {
  requests: Array<{ apiKey: string; method: string; path: string; body: string; idempotencyKey: string; status: number; answer: string }>;
  users: Array<{ apiKey: string; id: string; externalId: string }>;
  tenants: Array<{ id: string; apiKey: string }>;
  defaultTenant: string;
  defaultKey: string;
  endpointId: string;
  deletedUser: string;
}
const manifest = JSON.parse(readFileSync(new URL('../fixtures/legacy-data.json', import.meta.url), 'utf8')) as Manifest;

// The fixture's time, frozen: its records are hours old, not months.
const OPTIONS: SandboxOptions = { now: '2026-11-25T18:39:00.000Z', webhookTransport: () => Promise.reject(new Error('connect ECONNREFUSED')) };

const dirs: string[] = [];
const stores: DataStore[] = [];
afterEach(async () => {
  await stopAll();
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function legacyFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-legacy-'));
  dirs.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

function open(dir: string): DataStore {
  const store = openDataStore(dir, OPTIONS);
  stores.push(store);
  return store;
}

/**
 * A snapshot's tenants with their maps in one order (usage counters are a map: the database keeps
 * them by key). A fingerprint is compared by its first 14 hex digits: the old layout wrote 28, of
 * which those are the ones a request is checked against (core/snapshot.ts `idempotencyIn`); an
 * import keeps them.
 */
function comparable(snapshot: ReturnType<DataStore['sandbox']['snapshot']>): unknown {
  return snapshotRecords(snapshot).tenants.map((t) => ({
    ...t,
    idempotency: [...t.idempotency].sort((a, b) => a.startedAt - b.startedAt).map((r) => ({ ...r, fingerprint: r.fingerprint.slice(0, 14) })),
    usage: [...t.usage].sort(([a], [b]) => a.localeCompare(b)),
  }));
}

describe('a data folder in the old layout', () => {
  it('is imported on the first start: the same state, every answer replays, the old files step aside', async () => {
    const dir = legacyFolder();
    const expected = readLegacy(DataFolder.open(dir), false)?.snapshot;
    expect(expected?.tenants).toHaveLength(2);
    const store = open(dir);
    expect(store.origin).toBe('migrated');
    expect(store.migrated?.entries).toBeGreaterThan(0);
    expect(store.migrated?.renamed.map((f) => path.basename(f)).sort()).toEqual(['journal.ndjson.migrated', 'snapshot.json.migrated']);
    expect(readdirSync(dir).filter((n) => !n.startsWith('data.db')).sort()).toEqual(['journal.ndjson.migrated', 'lock', 'snapshot.json.migrated']);

    const sandbox = store.sandbox;
    expect(sandbox.tenantId).toBe(manifest.defaultTenant);
    expect(sandbox.apiKey).toBe(manifest.defaultKey);
    // What the old files held, tenant for tenant (read back from the database).
    expect(comparable(sandbox.snapshot())).toEqual(comparable(expected as NonNullable<typeof expected>));

    // Every answered mutation replays its first answer.
    expect(manifest.requests.length).toBeGreaterThan(30);
    for (const r of manifest.requests) {
      const headers: Record<string, string> = { authorization: `Bearer ${r.apiKey}`, 'idempotency-key': r.idempotencyKey };
      if (r.body !== '') headers['content-type'] = 'application/json';
      const res = await sandbox.fetch(r.path, { method: r.method, headers, body: r.body === '' ? null : r.body });
      expect(res.status, `${r.method} ${r.path}`).toBe(r.status);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(await res.text()).toBe(r.answer);
    }
    // Users, the deleted one included; the webhook deliveries still pending, with their retries.
    for (const u of manifest.users) {
      const res = await sandbox.fetch(`/v1/users/${u.id}`, { headers: { authorization: `Bearer ${u.apiKey}` } });
      expect(res.status).toBe(u.id === manifest.deletedUser ? 404 : 200);
    }
    expect(sandbox.webhooks.pending(manifest.defaultTenant).length).toBeGreaterThan(0);
  });

  it('imports once: a restart reads the database; old files found again beside it are leftovers, renamed, not imported', async () => {
    const dir = legacyFolder();
    const first = open(dir);
    const created = await first.sandbox.fetch('/v1/users', {
      method: 'POST',
      headers: { authorization: `Bearer ${manifest.defaultKey}`, 'content-type': 'application/json', 'idempotency-key': 'after-import' },
      body: JSON.stringify({ external_id: 'after-import', name: 'After', document_type: 'cpf', document_number: '52998224725' }),
    });
    expect(created.status).toBe(201);
    const user = (await created.json()) as { id: string };
    first.close();
    stores.splice(stores.indexOf(first), 1);
    // A kill between the import's commit and the renames leaves the old files: put them back.
    renameSync(path.join(dir, 'snapshot.json.migrated'), path.join(dir, 'snapshot.json'));
    renameSync(path.join(dir, 'journal.ndjson.migrated'), path.join(dir, 'journal.ndjson'));

    const second = open(dir);
    expect(second.origin).toBe('restored');
    expect(existsSync(path.join(dir, 'snapshot.json'))).toBe(false);
    expect(existsSync(path.join(dir, 'snapshot.json.migrated'))).toBe(true);
    // Not imported over what came after.
    const res = await second.sandbox.fetch(`/v1/users/${user.id}`, { headers: { authorization: `Bearer ${manifest.defaultKey}` } });
    expect(res.status).toBe(200);
  });

  it('an import cut short (a database without its mark beside the old files) is done again', () => {
    const dir = legacyFolder();
    // What a kill during the first start leaves: the database created, its import not committed.
    const db = openSqlite(path.join(dir, 'data.db'));
    prepareSchema(db);
    expect(new SqlStorage(db).meta().has('environment')).toBe(false);
    db.close();
    const store = open(dir);
    expect(store.origin).toBe('migrated');
    expect(store.sandbox.snapshot().tenants).toHaveLength(2);
  });

  it('with the server: one log line says what was imported and where the old files went', async () => {
    const dir = legacyFolder();
    const { child, ready } = await serve(['--data', dir]);
    await waitFor(child, () => (child.stderr().includes('listening on') ? true : undefined), 'the start-up log');
    const lines = child.stderr().split('\n').filter((l) => l.includes('migrated'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/data in .*data\.db \(migrated: imported snapshot\.json and \d+ journal entries; the old files are kept as snapshot\.json\.migrated and journal\.ndjson\.migrated/);
    expect(ready.api_key).toBe(manifest.defaultKey);
    for (const u of manifest.users.filter((x) => x.id !== manifest.deletedUser)) {
      const res = await fetch(`${ready.url}/v1/users/${u.id}`, { headers: { authorization: `Bearer ${u.apiKey}` } });
      expect(res.status).toBe(200);
    }
    child.process.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['data.db', 'journal.ndjson.migrated', 'snapshot.json.migrated']);
  });
});

/**
 * Schema 1, as pix-usdt up to 0.4 created it (src/sandbox/storage/sql.ts at commit 6aa5e0c),
 * kept here as text: the test builds a database of that schema without importing old code.
 * Schema 2 (up to issue 34's fifth pass) has the same tables and indexes: only its tenant rows'
 * `state` differs (no `events`, no `counts`).
 */
const SCHEMA_1 = [
  'CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID',
  'CREATE TABLE tenants (id TEXT PRIMARY KEY, created INTEGER NOT NULL UNIQUE, state TEXT NOT NULL, wake_at INTEGER)',
  'CREATE INDEX tenants_wake ON tenants (wake_at) WHERE wake_at IS NOT NULL',
  'CREATE TABLE api_keys (secret TEXT PRIMARY KEY, tenant TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL)',
  'CREATE INDEX api_keys_tenant ON api_keys (tenant)',
  'CREATE INDEX api_keys_id ON api_keys (id)',
  'CREATE TABLE records (tenant TEXT NOT NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, UNIQUE (tenant, kind, seq))',
  'CREATE TABLE usage (tenant TEXT NOT NULL, bucket TEXT NOT NULL, amount TEXT NOT NULL, PRIMARY KEY (tenant, bucket)) WITHOUT ROWID',
  'CREATE TABLE idempotency (tenant TEXT NOT NULL, key TEXT NOT NULL, started_at INTEGER NOT NULL, data TEXT NOT NULL, UNIQUE (tenant, key))',
  'CREATE INDEX idempotency_age ON idempotency (tenant, started_at)',
  'CREATE TABLE events (tenant TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL, UNIQUE (tenant, seq))',
];

/**
 * The legacy fixture's state, imported by this version, then copied row for row into a database
 * made with {@link SCHEMA_1}; for schema 1 its tenant rows carry what schema 1 kept in them (the
 * last event's `seq`, records per kind). Answers its folder and the state it holds.
 */
async function oldSchemaFolder(version: 1 | 2): Promise<{ dir: string; expected: unknown }> {
  const source = open(legacyFolder());
  const expected = comparable(source.sandbox.snapshot());
  source.close();
  stores.splice(stores.indexOf(source), 1);
  const dir = mkdtempSync(path.join(tmpdir(), `pix-usdt-schema${version}-`));
  dirs.push(dir);
  const db = openSqlite(path.join(dir, 'data.db'));
  db.transaction(() => {
    for (const statement of SCHEMA_1) db.run(statement);
  });
  db.exec(`ATTACH '${source.file}' AS v`);
  db.transaction(() => {
    for (const table of ['meta', 'tenants', 'api_keys', 'records', 'usage', 'idempotency', 'events']) db.run(`INSERT INTO ${table} SELECT * FROM v.${table}`);
    db.run(`UPDATE meta SET value = '${version}' WHERE name = 'schema'`);
    if (version === 1) {
      db.run(
        "UPDATE tenants SET state = json_set(state, '$.events', (SELECT COALESCE(MAX(seq), 0) FROM events WHERE tenant = tenants.id), '$.counts', (SELECT json_group_object(kind, n) FROM (SELECT kind, COUNT(*) AS n FROM records WHERE tenant = tenants.id GROUP BY kind)))",
      );
    }
  });
  db.exec('DETACH v');
  db.close();
  return { dir, expected };
}

/** What the database's file says: its schema version, its tenant rows, rows per table, its tables and indexes, its idempotency rows. */
function rows(dir: string): { schema: string; states: string[]; counts: number[]; objects: string[]; idempotency: string[] } {
  const db = openSqlite(path.join(dir, 'data.db'));
  try {
    const schema = String(db.all("SELECT value FROM meta WHERE name = 'schema'")[0]?.['value']);
    const states = db.all('SELECT state FROM tenants ORDER BY created').map((r) => String(r['state']));
    const counts = ['tenants', 'api_keys', 'records', 'usage', 'idempotency', 'events'].map((t) => Number(db.all(`SELECT COUNT(*) AS n FROM ${t}`)[0]?.['n']));
    const objects = db.all("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' ORDER BY name").map((r) => `${String(r['type'])} ${String(r['name'])} ${String(r['tbl_name'])} ${String(r['sql'])}`);
    const idempotency = db.all('SELECT tenant, key, started_at, data FROM idempotency ORDER BY rowid').map((r) => JSON.stringify(r));
    return { schema, states, counts, objects, idempotency };
  } finally {
    db.close();
  }
}

/** Every request of the fixture again: each answers as it first did (a replay, the same bytes). */
async function replaysAll(sandbox: DataStore['sandbox']): Promise<void> {
  for (const r of manifest.requests) {
    const headers: Record<string, string> = { authorization: `Bearer ${r.apiKey}`, 'idempotency-key': r.idempotencyKey };
    if (r.body !== '') headers['content-type'] = 'application/json';
    const res = await sandbox.fetch(r.path, { method: r.method, headers, body: r.body === '' ? null : r.body });
    expect(res.status, `${r.method} ${r.path}`).toBe(r.status);
    expect(await res.text()).toBe(r.answer);
  }
}

describe('a database of schema 1', () => {
  const schemaOneFolder = (): Promise<{ dir: string; expected: unknown }> => oldSchemaFolder(1);

  it('opens migrated: every tenant, record, key and event kept, every answer replays, new events follow the old', async () => {
    const { dir, expected } = await schemaOneFolder();
    const before = rows(dir);
    expect(before.schema).toBe('1');
    expect(before.states.every((s) => (JSON.parse(s) as { events?: number }).events! > 0)).toBe(true);

    const store = open(dir);
    expect(store.origin).toBe('restored');
    const sandbox = store.sandbox;
    expect(comparable(sandbox.snapshot())).toEqual(expected);
    await replaysAll(sandbox);
    // The event log goes on after its last stored event (nothing overwritten).
    const eventsBefore = (sandbox.snapshot().tenants[0] as unknown as { events: Array<{ id: string }> }).events.map((e) => e.id);
    const created = await sandbox.fetch('/v1/users', {
      method: 'POST',
      headers: { authorization: `Bearer ${manifest.defaultKey}`, 'content-type': 'application/json', 'idempotency-key': 'after-schema-1' },
      body: JSON.stringify({ external_id: 'after-schema-1', name: 'After', document_type: 'cpf', document_number: '52998224725' }),
    });
    expect(created.status).toBe(201);
    const eventsAfter = (sandbox.snapshot().tenants[0] as unknown as { events: Array<{ id: string }> }).events.map((e) => e.id);
    expect(eventsAfter.slice(0, eventsBefore.length)).toEqual(eventsBefore);
    expect(eventsAfter.length).toBeGreaterThan(eventsBefore.length);
    const users = new Map(snapshotRecords(sandbox.snapshot()).tenants.map((t) => [t.id, t.users.length]));
    store.close();
    stores.splice(stores.indexOf(store), 1);

    const after = rows(dir);
    expect(after.schema).toBe(String(SCHEMA_VERSION));
    expect(after.states.map((s) => Object.keys(JSON.parse(s) as object).filter((k) => k === 'events' || k === 'counts'))).toEqual(after.states.map(() => []));
    expect(after.counts.slice(0, 2)).toEqual(before.counts.slice(0, 2));
    // Reopened, nothing in memory: the listing counts each tenant's records from their rows.
    const listing = open(dir).sandbox.inspector.tenants();
    expect(new Map(listing.map((t) => [t.id, t.counts.users]))).toEqual(users);
  });

  it('a migration cut short leaves schema 1 as it was; the next start migrates', async () => {
    const { dir, expected } = await schemaOneFolder();
    const before = rows(dir);
    // A failure at the migration's last statement (the new version): everything before it is rolled back.
    const failing = (driver: SqlDriver): SqlDriver => ({
      ...driver,
      run: (sql, params) => {
        if (sql.startsWith('INSERT INTO meta') && params?.[0] === 'schema') throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
        driver.run(sql, params);
      },
    });
    expect(() => openDataStore(dir, OPTIONS, { wrapDriver: failing })).toThrow(DataError);
    expect(rows(dir)).toEqual(before);
    const store = open(dir);
    expect(comparable(store.sandbox.snapshot())).toEqual(expected);
  });
});

describe('a database of schema 2', () => {
  it('opens migrated to schema 3: the same state, every answer replays, the idempotency rows kept in order without an index by key', async () => {
    const { dir, expected } = await oldSchemaFolder(2);
    const before = rows(dir);
    expect(before.schema).toBe('2');
    expect(before.objects.some((o) => o.startsWith('index sqlite_autoindex_idempotency'))).toBe(true);

    const store = open(dir);
    expect(comparable(store.sandbox.snapshot())).toEqual(expected);
    await replaysAll(store.sandbox);
    store.close();
    stores.splice(stores.indexOf(store), 1);

    const after = rows(dir);
    expect(after.schema).toBe('3');
    expect(after.counts).toEqual(before.counts);
    expect(after.states).toEqual(before.states);
    // Every row as it was, in the same order (replays write nothing).
    expect(after.idempotency).toEqual(before.idempotency);
    const idempotency = after.objects.filter((o) => o.includes(' idempotency '));
    expect(idempotency).toEqual([
      'table idempotency idempotency CREATE TABLE "idempotency" (tenant TEXT NOT NULL, key TEXT NOT NULL, started_at INTEGER NOT NULL, data TEXT NOT NULL)',
      'index idempotency_age idempotency CREATE INDEX idempotency_age ON idempotency (tenant, started_at, key)',
    ]);
    // The other tables as schema 2 had them.
    expect(after.objects.filter((o) => !o.includes(' idempotency '))).toEqual(before.objects.filter((o) => !o.includes(' idempotency ')));
    // Reopened on schema 3: the same state again.
    expect(comparable(open(dir).sandbox.snapshot())).toEqual(expected);
  });

  it('a database made by this version holds what a migrated one does', async () => {
    const { dir } = await oldSchemaFolder(2);
    open(dir).close();
    stores.splice(0);
    const fresh = mkdtempSync(path.join(tmpdir(), 'pix-usdt-schema3-'));
    dirs.push(fresh);
    open(fresh).close();
    stores.splice(0);
    const strip = (objects: string[]): string[] => objects.map((o) => o.replace(/"idempotency"/, 'idempotency').replace(/ IF NOT EXISTS/g, ''));
    expect(strip(rows(fresh).objects)).toEqual(strip(rows(dir).objects));
  });

  it('a kill -9 in the middle of the migration leaves schema 2 as it was; the next start migrates', async () => {
    const { dir, expected } = await oldSchemaFolder(2);
    const before = rows(dir);
    // A process that opens the folder and is killed (SIGKILL, by itself) right after the
    // migration dropped the old table, before its commit.
    const script = path.join(dir, '..', `kill-${path.basename(dir)}.mts`);
    writeFileSync(
      script,
      [
        `import { openDataStore } from ${JSON.stringify(fileURLToPath(new URL('../../../src/server/data/store.ts', import.meta.url)))};`,
        `openDataStore(${JSON.stringify(dir)}, { now: ${JSON.stringify(OPTIONS.now)} }, {`,
        '  wrapDriver: (driver) => ({ ...driver, run: (sql, params) => { driver.run(sql, params); if (sql === "DROP TABLE idempotency") process.kill(process.pid, "SIGKILL"); } }),',
        '});',
        'console.log("not killed");',
      ].join('\n'),
    );
    dirs.push(script);
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', cwd: fileURLToPath(new URL('../../..', import.meta.url)) });
    expect(child.signal, child.stderr).toBe('SIGKILL');
    expect(child.stdout).not.toContain('not killed');
    // The lock of the dead process stays; the database is schema 2, every row as it was.
    expect(rows(dir)).toEqual(before);
    const store = open(dir);
    expect(comparable(store.sandbox.snapshot())).toEqual(expected);
    await replaysAll(store.sandbox);
    store.close();
    stores.splice(stores.indexOf(store), 1);
    expect(rows(dir).schema).toBe('3');
  });
});
