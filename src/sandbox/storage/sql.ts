/**
 * The storage port over SQL: the one schema and the one set of statements of every SQLite-backed
 * storage, whatever runs the SQL (libsql on Node for `serve --data`, a Durable Object's
 * `ctx.storage.sql` on workerd). A driver only runs a statement and a transaction; nothing here
 * uses a pragma, `BEGIN` or a feature one of them lacks.
 *
 * Tables (schema version {@link SCHEMA_VERSION}):
 *
 * | table | key | holds |
 * |---|---|---|
 * | `meta` | name | format mark, schema version, platform values (JSON) |
 * | `tenants` | id (and `created`) | a tenant's small parts (JSON: not its event position or record counts, read from their rows) and `wake_at`, the real instant of its earliest timer |
 * | `api_keys` | secret (and id) | API keys, found by secret without loading their tenant |
 * | `records` | tenant, kind, seq | one row per user, quote, conversion, transaction, webhook endpoint, delivery |
 * | `usage` | tenant, bucket | one row per limit-usage counter |
 * | `idempotency` | tenant, started_at, key | answered idempotency records, read on a replay |
 * | `events` | tenant, seq | the event log |
 *
 * A database of an older schema is brought to this one when it is opened ({@link prepareSchema}:
 * {@link MIGRATIONS}, all steps in one transaction, so a kill during it leaves the old schema as
 * it was); one of a newer schema is refused. The tables stay rowid tables: keyed `WITHOUT ROWID`
 * by their unique columns they wrote more pages, not fewer (docs/decisions.md, "`serve --data`'s cost: schema 2").
 * @module
 */
import {
  type ChangeSet,
  type EventRow,
  type IdempotencyKey,
  type IdempotencyRow,
  type KeyRow,
  type SandboxStorage,
  StorageError,
  type TenantListing,
  type TenantRows,
} from './port.js';

/** A value a statement binds or a row holds: text, a number (integers fit in 53 bits), or NULL. */
export type SqlValue = string | number | null;

/**
 * What a stored sandbox needs of a SQLite database: run a statement, and run a function in one
 * transaction, all synchronously. Three methods over any SQLite binding: libsql or better-sqlite3
 * on Node (`db.prepare(sql).all(...params)`), a Durable Object's `ctx.storage.sql.exec` and
 * `ctx.storage.transactionSync`. The sandbox's statements use plain SQLite (no pragma, no
 * `BEGIN`): the driver owns the connection and its settings (a write-ahead log, say).
 */
export interface SqlDriver {
  /** Runs a statement and answers its rows (objects keyed by column name). */
  all(sql: string, params?: readonly SqlValue[]): Array<Record<string, SqlValue>>;
  /**
   * Runs a query and answers its first row, or `undefined` (optional: `all(sql, params)[0]` when
   * absent). A binding whose one-row call costs less than its `all` (libsql's `Statement.get`
   * skips its row iterator: about half the time of an idempotency key's lookup) gives it; a
   * wrapper of `all` must then wrap this too.
   */
  get?(sql: string, params?: readonly SqlValue[]): Record<string, SqlValue> | undefined;
  /** Runs a statement that answers no rows. */
  run(sql: string, params?: readonly SqlValue[]): void;
  /** Runs `fn` (which runs statements) in one transaction: committed when it returns, rolled back when it throws (the error then goes on). */
  transaction(fn: () => void): void;
}

/** The format mark of a sandbox database (`meta.format`). */
export const DATA_FORMAT = 'pix-usdt-sandbox-data';
/** The schema this code writes and reads (`meta.schema`). */
export const SCHEMA_VERSION = 3;

/** The schema, one statement each (a Durable Object runs them one by one as well). */
export const SCHEMA: readonly string[] = [
  'CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID',
  'CREATE TABLE IF NOT EXISTS tenants (id TEXT PRIMARY KEY, created INTEGER NOT NULL UNIQUE, state TEXT NOT NULL, wake_at INTEGER)',
  'CREATE INDEX IF NOT EXISTS tenants_wake ON tenants (wake_at) WHERE wake_at IS NOT NULL',
  'CREATE TABLE IF NOT EXISTS api_keys (secret TEXT PRIMARY KEY, tenant TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL)',
  'CREATE INDEX IF NOT EXISTS api_keys_tenant ON api_keys (tenant)',
  'CREATE INDEX IF NOT EXISTS api_keys_id ON api_keys (id)',
  'CREATE TABLE IF NOT EXISTS records (tenant TEXT NOT NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, UNIQUE (tenant, kind, seq))',
  'CREATE TABLE IF NOT EXISTS usage (tenant TEXT NOT NULL, bucket TEXT NOT NULL, amount TEXT NOT NULL, PRIMARY KEY (tenant, bucket)) WITHOUT ROWID',
  // No index by key (schema 3): a new key's entry went to a random leaf of it, a page of the
  // write-ahead log each; the one index is in the order keys come, and a tenant in memory knows
  // when each key it may hold started (core/persist.ts), so a lookup is exact in it.
  'CREATE TABLE IF NOT EXISTS idempotency (tenant TEXT NOT NULL, key TEXT NOT NULL, started_at INTEGER NOT NULL, data TEXT NOT NULL)',
  'CREATE INDEX IF NOT EXISTS idempotency_age ON idempotency (tenant, started_at, key)',
  'CREATE TABLE IF NOT EXISTS events (tenant TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL, UNIQUE (tenant, seq))',
];

/**
 * The steps from an older schema to the next (`MIGRATIONS[n]` brings version n to n + 1), each run
 * by {@link prepareSchema} in the one transaction that also writes the new version.
 *
 * 1 -> 2: the tenant row's `state` no longer holds `events` (the last event's `seq`) and `counts`
 * (records per kind), which changed with nearly every request and made every commit rewrite the
 * row; they are read from the `events` and `records` rows instead. A state that is not JSON
 * (damaged) is left as it is: its tenant answers as damaged, as before.
 *
 * 2 -> 3: `idempotency` loses its unique index on (tenant, key), whose entries for new keys (random
 * UUIDs) each dirtied a random leaf page, written to the log at every commit; its one index is
 * (tenant, started_at, key), in the order keys come, which also holds every key a tenant's load
 * reads. SQLite cannot drop a table's UNIQUE constraint: the table is copied, rows in their order.
 */
export const MIGRATIONS: Readonly<Record<number, readonly string[]>> = {
  1: ["UPDATE tenants SET state = json_remove(state, '$.events', '$.counts') WHERE json_valid(state)"],
  2: [
    'CREATE TABLE idempotency_3 (tenant TEXT NOT NULL, key TEXT NOT NULL, started_at INTEGER NOT NULL, data TEXT NOT NULL)',
    'INSERT INTO idempotency_3 (tenant, key, started_at, data) SELECT tenant, key, started_at, data FROM idempotency ORDER BY rowid',
    'DROP TABLE idempotency',
    'ALTER TABLE idempotency_3 RENAME TO idempotency',
    'CREATE INDEX idempotency_age ON idempotency (tenant, started_at, key)',
  ],
};

const TABLES = ['tenants', 'api_keys', 'records', 'usage', 'idempotency', 'events'] as const;

const SQL = {
  tenant: 'SELECT id, created, state, wake_at FROM tenants WHERE id = ?',
  keys: 'SELECT secret, id, data FROM api_keys WHERE tenant = ? ORDER BY rowid',
  records: 'SELECT kind, seq, id, data FROM records WHERE tenant = ? ORDER BY kind, seq',
  usage: 'SELECT bucket, amount FROM usage WHERE tenant = ?',
  keyTenant: 'SELECT tenant FROM api_keys WHERE secret = ?',
  keyIdTenant: 'SELECT tenant FROM api_keys WHERE id = ? LIMIT 1',
  // A key whose start is known: one seek in the (tenant, started_at, key) index.
  idempotencyAt: 'SELECT key, started_at, data FROM idempotency WHERE tenant = ? AND started_at = ? AND key = ? AND started_at > ? ORDER BY rowid DESC LIMIT 1',
  // One whose start is not: the tenant's unexpired keys in that index, read until it is found.
  idempotency: 'SELECT key, started_at, data FROM idempotency WHERE tenant = ? AND started_at > ? AND key = ? ORDER BY started_at DESC, rowid DESC LIMIT 1',
  idempotencyAll: 'SELECT key, started_at, data FROM idempotency WHERE tenant = ? AND started_at > ? ORDER BY started_at, rowid',
  // Read from the (tenant, started_at, key) index alone: expired keys too, which only cost their lookup.
  idempotencyKeys: 'SELECT key, started_at FROM idempotency WHERE tenant = ?',
  events: 'SELECT seq, data FROM events WHERE tenant = ? ORDER BY seq DESC LIMIT ?',
  eventSeq: 'SELECT MAX(seq) AS seq FROM events WHERE tenant = ?',
  counts: 'SELECT kind, COUNT(*) AS n FROM records WHERE tenant = ? GROUP BY kind',
  tenants: 'SELECT id, created, state FROM tenants WHERE created > ? ORDER BY created LIMIT ?',
  nextWake: 'SELECT MIN(wake_at) AS at FROM tenants WHERE wake_at IS NOT NULL',
  due: 'SELECT id FROM tenants WHERE wake_at IS NOT NULL AND wake_at <= ? ORDER BY wake_at LIMIT ?',
  // The same, without the tenants that cannot be read (a placeholder each, added where used).
  nextWakeSkipping: 'SELECT MIN(wake_at) AS at FROM tenants WHERE wake_at IS NOT NULL AND id NOT IN',
  dueSkipping: 'SELECT id FROM tenants WHERE wake_at IS NOT NULL AND wake_at <= ? AND id NOT IN',
  putMeta: 'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
  putTenant: 'INSERT INTO tenants (id, created, state, wake_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state, wake_at = excluded.wake_at',
  // A secret stays with its tenant: a write giving it to another tenant changes no row, and is refused.
  putKey: 'INSERT INTO api_keys (secret, tenant, id, data) VALUES (?, ?, ?, ?) ON CONFLICT (secret) DO UPDATE SET data = excluded.data WHERE api_keys.tenant = excluded.tenant RETURNING tenant',
  putRecord: 'INSERT INTO records (tenant, kind, seq, id, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant, kind, seq) DO UPDATE SET id = excluded.id, data = excluded.data',
  dropRecord: 'DELETE FROM records WHERE tenant = ? AND kind = ? AND seq = ?',
  putUsage: 'INSERT INTO usage (tenant, bucket, amount) VALUES (?, ?, ?) ON CONFLICT (tenant, bucket) DO UPDATE SET amount = excluded.amount',
  dropUsage: 'DELETE FROM usage WHERE tenant = ? AND bucket = ?',
  // A key is written once while it lives (a replay writes nothing); one reused after it expired
  // is a row beside the old, which reads skip and the next expiry deletes.
  putIdempotency: 'INSERT INTO idempotency (tenant, key, started_at, data) VALUES (?, ?, ?, ?)',
  expireIdempotency: 'DELETE FROM idempotency WHERE tenant = ? AND started_at <= ?',
  putEvent: 'INSERT INTO events (tenant, seq, data) VALUES (?, ?, ?) ON CONFLICT (tenant, seq) DO UPDATE SET data = excluded.data',
  trimEvents: 'DELETE FROM events WHERE tenant = ? AND seq <= ?',
} as const;

/**
 * Whether an error of a SQLite driver says the data is damaged (a malformed page, a file that is
 * not a database), as opposed to a failure to reach it: libsql and a Durable Object's SQL both
 * name SQLite's codes (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) or messages.
 */
export function isDamage(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return /SQLITE_(CORRUPT|NOTADB)/.test(String(e?.code ?? '')) || /malformed|not a database|SQLITE_(CORRUPT|NOTADB)/i.test(String(e?.message ?? ''));
}

/** A read that failed, as the port says it: `damaged` (reading again will not help) or `read`. */
function readFailed(error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const damaged = isDamage(error);
  const message = error instanceof Error ? error.message : String(error);
  return new StorageError(damaged ? 'damaged' : 'read', damaged ? `the data is damaged (${message})` : `a read failed (${message})`, { cause: error });
}

/** `(?, ?, ...)`: one placeholder for each of `n` values. */
const placeholders = (n: number): string => `(${Array.from({ length: n }, () => '?').join(', ')})`;

const str = (v: SqlValue | undefined): string => (typeof v === 'string' ? v : String(v));
const num = (v: SqlValue | undefined): number => (typeof v === 'number' ? v : Number(v));

/**
 * Reads the marks of a database without writing: `empty` (no table yet) or `ours` (a sandbox's
 * schema this code reads). Throws {@link StorageError} (`foreign`, `newer`) when the database is
 * not ours or is newer. `database`: the attached database to read (`main` by default).
 */
export function checkSchema(driver: SqlDriver, database = 'main'): 'empty' | 'ours' {
  return storedSchema(driver, database) === null ? 'empty' : 'ours';
}

/**
 * The schema version of a database (`null`: empty, no table yet), read without writing. Throws
 * {@link StorageError} (`foreign`, `newer`) as {@link checkSchema} does.
 */
export function storedSchema(driver: SqlDriver, database = 'main'): number | null {
  const tables = driver.all(`SELECT name FROM ${database}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'`).map((r) => str(r['name']));
  if (tables.length === 0) return null;
  if (!tables.includes('meta')) throw new StorageError('foreign', `it holds tables (${tables.slice(0, 3).join(', ')}) but no sandbox marks`);
  const marks = new Map(driver.all(`SELECT name, value FROM ${database}.meta WHERE name IN ('format', 'schema')`).map((r) => [str(r['name']), str(r['value'])]));
  if (marks.get('format') !== JSON.stringify(DATA_FORMAT)) throw new StorageError('foreign', `its format mark is not "${DATA_FORMAT}"`);
  const schema = Number(marks.get('schema'));
  if (!Number.isInteger(schema)) throw new StorageError('foreign', 'it has no valid schema version');
  if (schema > SCHEMA_VERSION) throw new StorageError('newer', `it was written by a newer pix-usdt (schema version ${schema}; this one reads version ${SCHEMA_VERSION})`);
  if (schema < 1) throw new StorageError('foreign', `its schema version ${schema} is not one pix-usdt wrote`);
  return schema;
}

/**
 * Creates the schema when the database is empty, checks the marks of one that is not
 * ({@link checkSchema}: nothing is written to a database that is not ours), and brings an older
 * schema to this one ({@link MIGRATIONS}, every step and the new version in one transaction: all
 * of it, or, throwing, nothing). Answers whether it was empty, and the version it migrated from.
 */
export function prepareSchema(driver: SqlDriver): { created: boolean; migratedFrom: number | null } {
  const version = storedSchema(driver);
  if (version === SCHEMA_VERSION) return { created: false, migratedFrom: null };
  if (version !== null) {
    driver.transaction(() => {
      for (let v = version; v < SCHEMA_VERSION; v++) for (const statement of MIGRATIONS[v] ?? []) driver.run(statement);
      driver.run(SQL.putMeta, ['schema', String(SCHEMA_VERSION)]);
    });
    return { created: false, migratedFrom: version };
  }
  driver.transaction(() => {
    for (const statement of SCHEMA) driver.run(statement);
    driver.run(SQL.putMeta, ['format', JSON.stringify(DATA_FORMAT)]);
    driver.run(SQL.putMeta, ['schema', String(SCHEMA_VERSION)]);
  });
  return { created: true, migratedFrom: null };
}

/**
 * The storage port over a SQL driver (the schema must be prepared: {@link prepareSchema}). A read
 * that fails throws a {@link StorageError} (`damaged` when SQLite says the file is, `read`
 * otherwise); a commit gives no API key secret to a second tenant.
 */
export class SqlStorage implements SandboxStorage {
  readonly #db: SqlDriver;

  constructor(driver: SqlDriver) {
    this.#db = driver;
  }

  /** Runs a query, its failure as the port says it. */
  #all(sql: string, params?: readonly SqlValue[]): Array<Record<string, SqlValue>> {
    try {
      return this.#db.all(sql, params);
    } catch (error) {
      throw readFailed(error);
    }
  }

  /** Runs a query of one row (the driver's `get` when it has one), its failure as the port says it. */
  #get(sql: string, params: readonly SqlValue[]): Record<string, SqlValue> | undefined {
    try {
      const db = this.#db;
      return db.get === undefined ? db.all(sql, params)[0] : db.get(sql, params);
    } catch (error) {
      throw readFailed(error);
    }
  }

  meta(): Map<string, string> {
    return new Map(this.#all('SELECT name, value FROM meta').map((r) => [str(r['name']), str(r['value'])]));
  }

  tenant(id: string): TenantRows | null {
    const row = this.#all(SQL.tenant, [id])[0];
    if (row === undefined) return null;
    return {
      tenant: { id, created: num(row['created']), state: str(row['state']), wakeAt: row['wake_at'] === null ? null : num(row['wake_at']) },
      eventSeq: num(this.#get(SQL.eventSeq, [id])?.['seq'] ?? 0),
      keys: this.keys(id),
      records: this.#all(SQL.records, [id]).map((r) => ({ kind: str(r['kind']), seq: num(r['seq']), id: str(r['id']), data: str(r['data']) })),
      usage: this.#all(SQL.usage, [id]).map((r) => ({ bucket: str(r['bucket']), amount: str(r['amount']) })),
    };
  }

  tenantOfKey(secret: string): string | null {
    const row = this.#get(SQL.keyTenant, [secret]);
    return row === undefined ? null : str(row['tenant']);
  }

  tenantOfKeyId(id: string): string | null {
    const row = this.#get(SQL.keyIdTenant, [id]);
    return row === undefined ? null : str(row['tenant']);
  }

  keys(tenantId: string): KeyRow[] {
    return this.#all(SQL.keys, [tenantId]).map((r) => ({ secret: str(r['secret']), id: str(r['id']), data: str(r['data']) }));
  }

  commit(changes: ChangeSet): void {
    const db = this.#db;
    db.transaction(() => {
      if (changes.replace === true) for (const table of TABLES) db.run(`DELETE FROM ${table}`);
      for (const [name, value] of changes.meta ?? []) db.run(SQL.putMeta, [name, value]);
      for (const t of changes.tenants ?? []) {
        const id = t.id;
        if (t.tenant) db.run(SQL.putTenant, [id, t.tenant.created, t.tenant.state, t.tenant.wakeAt]);
        for (const k of t.keys ?? []) {
          if (db.all(SQL.putKey, [k.secret, id, k.id, k.data]).length === 0) {
            throw new StorageError('write', `the API key ${k.id} of tenant ${id} has the secret of another tenant's key; nothing was written`);
          }
        }
        for (const r of t.removed ?? []) db.run(SQL.dropRecord, [id, r.kind, r.seq]);
        for (const r of t.records ?? []) db.run(SQL.putRecord, [id, r.kind, r.seq, r.id, r.data]);
        for (const u of t.usage ?? []) {
          if (u.amount === null) db.run(SQL.dropUsage, [id, u.bucket]);
          else db.run(SQL.putUsage, [id, u.bucket, u.amount]);
        }
        if (t.idempotencyUpTo !== undefined) db.run(SQL.expireIdempotency, [id, t.idempotencyUpTo]);
        for (const r of t.idempotency ?? []) db.run(SQL.putIdempotency, [id, r.key, r.startedAt, r.data]);
        if (t.eventsUpTo !== undefined) db.run(SQL.trimEvents, [id, t.eventsUpTo]);
        for (const e of t.events ?? []) db.run(SQL.putEvent, [id, e.seq, e.data]);
      }
    });
  }

  idempotency(tenantId: string, key: string, after: number, startedAt?: number): IdempotencyRow | null {
    const row = startedAt === undefined ? this.#get(SQL.idempotency, [tenantId, after, key]) : this.#get(SQL.idempotencyAt, [tenantId, startedAt, key, after]);
    return row === undefined ? null : { key: str(row['key']), startedAt: num(row['started_at']), data: str(row['data']) };
  }

  idempotencyAll(tenantId: string, after: number): IdempotencyRow[] {
    // A key reused after it expired has two rows until the older is deleted: the later one counts.
    const byKey = new Map<string, IdempotencyRow>();
    for (const r of this.#all(SQL.idempotencyAll, [tenantId, after])) {
      const key = str(r['key']);
      byKey.delete(key);
      byKey.set(key, { key, startedAt: num(r['started_at']), data: str(r['data']) });
    }
    return [...byKey.values()];
  }

  idempotencyKeys(tenantId: string): IdempotencyKey[] {
    return this.#all(SQL.idempotencyKeys, [tenantId]).map((r) => ({ key: str(r['key']), startedAt: num(r['started_at']) }));
  }

  events(tenantId: string, limit: number): EventRow[] {
    return this.#all(SQL.events, [tenantId, limit])
      .map((r) => ({ seq: num(r['seq']), data: str(r['data']) }))
      .reverse();
  }

  tenants(after: number, limit: number): TenantListing[] {
    return this.#all(SQL.tenants, [after, limit]).map((r) => ({ id: str(r['id']), created: num(r['created']), state: str(r['state']) }));
  }

  recordCounts(tenantId: string): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of this.#all(SQL.counts, [tenantId])) counts[str(r['kind'])] = num(r['n']);
    return counts;
  }

  nextWake(skip: readonly string[] = []): number | null {
    const rows = skip.length === 0 ? this.#all(SQL.nextWake) : this.#all(`${SQL.nextWakeSkipping} ${placeholders(skip.length)}`, skip);
    const at = rows[0]?.['at'];
    return at === null || at === undefined ? null : num(at);
  }

  due(at: number, limit: number, skip: readonly string[] = []): string[] {
    const rows = skip.length === 0 ? this.#all(SQL.due, [at, limit]) : this.#all(`${SQL.dueSkipping} ${placeholders(skip.length)} ORDER BY wake_at LIMIT ?`, [at, ...skip, limit]);
    return rows.map((r) => str(r['id']));
  }
}
