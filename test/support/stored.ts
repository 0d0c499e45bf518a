/**
 * A stored sandbox in memory for tests that need one without a data folder: SQLite `:memory:`
 * (the server's driver) under the storage port, and a switch that makes every commit fail as a
 * full disk would.
 */
import { SandboxImpl } from '../../src/sandbox/sandbox.js';
import { Persistence, type StoredOptions } from '../../src/sandbox/stored.js';
import { type SqlDriver, SqlStorage, prepareSchema } from '../../src/sandbox/storage/sql.js';
import type { SandboxOptions } from '../../src/sandbox/types.js';
import { openSqlite } from '../../src/server/data/driver.js';

/** What a {@link failingDriver} counts, and its switch. */
export interface DriverProbe {
  writes: { transactions: number; statements: number };
  failing: { on: boolean };
}

/** A new probe: nothing written, not failing. */
export function probe(): DriverProbe {
  return { writes: { transactions: 0, statements: 0 }, failing: { on: false } };
}

/** A driver that counts its writes and fails every commit while `failing.on` is set. */
export function failingDriver(driver: SqlDriver, { writes, failing }: DriverProbe = probe()): DriverProbe & { driver: SqlDriver } {
  return {
    writes,
    failing,
    driver: {
      all: (sql, params) => driver.all(sql, params),
      run: (sql, params) => {
        writes.statements++;
        driver.run(sql, params);
      },
      transaction: (fn) => {
        writes.transactions++;
        driver.transaction(() => {
          fn();
          if (failing.on) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
        });
      },
    },
  };
}

/** A sandbox stored in an in-memory SQLite database; `failing.on` makes its writes fail. */
export function storedSandbox(options: SandboxOptions, stored: Partial<StoredOptions> = {}): { sandbox: SandboxImpl; failing: { on: boolean }; close(): void } {
  const db = openSqlite(':memory:');
  prepareSchema(db);
  const { driver, failing } = failingDriver(db);
  const sandbox = new SandboxImpl(options, { stored: (parts) => new Persistence(parts, { storage: new SqlStorage(driver), ...stored }) });
  return {
    sandbox,
    failing,
    close() {
      sandbox.persistence?.close();
      db.close();
    },
  };
}
