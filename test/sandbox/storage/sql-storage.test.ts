/**
 * The storage port over SQL (src/sandbox/storage/sql.ts), on SQLite in memory: a key secret
 * stays with its tenant (a commit giving it to another tenant is refused whole), a read that
 * fails says whether the data is damaged, and the alarm's queries skip the tenants named.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StorageError } from '../../../src/sandbox/storage/port.js';
import { type SqlDriver, SqlStorage, prepareSchema } from '../../../src/sandbox/storage/sql.js';
import { type SqliteDatabase, openSqlite } from '../../../src/server/data/driver.js';

const open: SqliteDatabase[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

function storage(wrap: (driver: SqlDriver) => SqlDriver = (d) => d): SqlStorage {
  const db = openSqlite(':memory:');
  open.push(db);
  prepareSchema(db);
  return new SqlStorage(wrap(db));
}

const tenant = (id: string, created: number, wakeAt: number | null = null) => ({ id, tenant: { id, created, state: '{}', wakeAt } });
const key = (id: string, secret: string) => ({ secret, id, data: JSON.stringify({ id, secret }) });

describe('SqlStorage', () => {
  it("refuses a commit that gives a key secret to another tenant, and writes nothing of it", () => {
    const s = storage();
    s.commit({ tenants: [{ ...tenant('t1', 1), keys: [key('k1', 'sk_test_one')] }] });
    // The same tenant may write its key again (a revocation, a rename).
    s.commit({ tenants: [{ id: 't1', keys: [{ ...key('k1', 'sk_test_one'), data: '{"renamed":true}' }] }] });
    expect(() => s.commit({ tenants: [{ ...tenant('t2', 2), keys: [key('k2', 'sk_test_one')] }] })).toThrow(StorageError);
    expect(() => s.commit({ tenants: [{ ...tenant('t2', 2), keys: [key('k2', 'sk_test_one')] }] })).toThrow('the API key k2 of tenant t2 has the secret of another tenant');
    expect(s.tenantOfKey('sk_test_one')).toBe('t1');
    expect(s.keys('t1')).toEqual([{ ...key('k1', 'sk_test_one'), data: '{"renamed":true}' }]);
    // Nothing of the refused transaction: not even the tenant row.
    expect(s.tenant('t2')).toBeNull();
  });

  it('a read that fails throws a StorageError: damaged for a malformed page, read otherwise', () => {
    let failure: Error | null = null;
    // Both ways of reading: the one-row lookups (a key's tenant, an idempotency key) go through `get`.
    const s = storage((d) => ({
      ...d,
      all: (sql, params) => {
        if (failure !== null) throw failure;
        return d.all(sql, params);
      },
      get: (sql, params) => {
        if (failure !== null) throw failure;
        return d.get?.(sql, params);
      },
    }));
    failure = Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    expect(() => s.tenant('t1')).toThrow(expect.objectContaining({ name: 'StorageError', reason: 'damaged' }));
    expect(() => s.tenantOfKey('sk_test_x')).toThrow(expect.objectContaining({ reason: 'damaged' }));
    failure = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    expect(() => s.events('t1', 10)).toThrow(expect.objectContaining({ reason: 'read', message: 'a read failed (disk I/O error)' }));
  });

  it('nextWake and due skip the tenants named', () => {
    const s = storage();
    s.commit({ tenants: [tenant('t1', 1, 100), tenant('t2', 2, 200), tenant('t3', 3, 300)] });
    expect(s.nextWake()).toBe(100);
    expect(s.nextWake(['t1'])).toBe(200);
    expect(s.nextWake(['t1', 't2', 't3'])).toBeNull();
    expect(s.due(250, 10)).toEqual(['t1', 't2']);
    expect(s.due(250, 10, ['t1'])).toEqual(['t2']);
    expect(s.due(1_000, 1, ['t2'])).toEqual(['t1']);
  });
});
