/**
 * A stored sandbox in memory for tests that need one without a data folder: SQLite `:memory:`
 * (the server's driver) under the public factory (`createStoredSandbox`), and a switch that makes
 * every commit fail as a full disk would.
 */
import { type Sandbox, type SqlDriver, type StoredSandbox, type StoredSandboxOptions, createSandbox, createStoredSandbox } from '../../src/sandbox/index.js';
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

/** A sandbox stored in an in-memory SQLite database; `failing.on` makes its writes fail. `close()` closes the sandbox, then the database. */
export function storedSandbox(options: StoredSandboxOptions = {}): { sandbox: StoredSandbox; failing: { on: boolean }; close(): Promise<void> } {
  const db = openSqlite(':memory:');
  const { driver, failing } = failingDriver(db);
  const sandbox = createStoredSandbox(driver, options);
  return {
    sandbox,
    failing,
    async close() {
      failing.on = false;
      try {
        await sandbox.close();
      } finally {
        db.close();
      }
    },
  };
}

/**
 * The two kinds of sandbox a test runs on, for `describe.each`/`it.each`: in memory, and stored
 * ({@link storedSandbox}, whose close is handed to `closers` for the file's `afterEach`).
 */
export function inMemoryAndStored(options: StoredSandboxOptions, closers: Array<() => Promise<void>>): Array<[string, () => Sandbox]> {
  return [
    ['in memory', () => createSandbox(options)],
    [
      'stored',
      () => {
        const s = storedSandbox(options);
        closers.push(() => s.close());
        return s.sandbox;
      },
    ],
  ];
}
