/**
 * SQLite on Node for the data folder: the `libsql` package (an optional peer dependency, loaded
 * only by `serve --data`), set up for a server that must lose no answered mutation to `kill -9`
 * (write-ahead log, every commit handed to the kernel before the answer leaves), and wrapped as
 * the SqlDriver of the storage port (src/sandbox/storage/sql.ts). docs/decisions.md says why
 * libsql rather than better-sqlite3, node:sqlite, lmdb or node-sqlite3-wasm.
 * @module
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { SqlDriver, SqlValue } from '../../sandbox/storage/sql.js';

/** The package the data folder needs, and the version range it is tested with. */
export const SQLITE_PACKAGE = 'libsql';
export const SQLITE_RANGE = '^0.5.29';

/** `serve --data` needs a package that is not installed. */
export class MissingDependencyError extends Error {
  override readonly name = 'MissingDependencyError';
  constructor(
    readonly packageName: string,
    cause: unknown,
  ) {
    super(
      `serve --data keeps its state in SQLite through the package ${packageName}, which is not installed (an optional dependency of pix-usdt: a client-only install does not need it). ` +
        `Install it beside pix-usdt: npm install ${packageName}@"${SQLITE_RANGE}" (or, with npx: npx -p pix-usdt -p ${packageName} pix-usdt-sandbox serve --data DIR). Without --data the server keeps everything in memory.`,
      { cause },
    );
  }
}

interface Statement {
  all(...params: SqlValue[]): unknown[];
  get(...params: SqlValue[]): unknown;
  run(...params: SqlValue[]): unknown;
}

interface Database {
  readonly inTransaction: boolean;
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  close(): unknown;
}

// libsql 0.5 ignores a `readonly` option (such a connection writes, and folds the log into the
// file when it closes): reading only is asked for in a URI (`mode=ro`), see inspectSqlite.
type DatabaseConstructor = new (file: string, options?: { timeout?: number }) => Database;

let loaded: DatabaseConstructor | undefined;

/** The SQLite binding, loaded on first use; throws {@link MissingDependencyError} when it is not installed. */
export function loadSqlite(): DatabaseConstructor {
  if (loaded !== undefined) return loaded;
  const require = createRequire(import.meta.url);
  try {
    loaded = require(SQLITE_PACKAGE) as DatabaseConstructor;
  } catch (error) {
    // Not installed, or installed without a binary for this platform: the same way out.
    throw new MissingDependencyError(SQLITE_PACKAGE, error);
  }
  return loaded;
}

/** An open database: the driver of the storage port, and what only the server does with it. */
export interface SqliteDatabase extends SqlDriver {
  /** Turns on the write-ahead log (after the file was found to be ours: it changes the file). */
  configure(): void;
  /** Copies the write-ahead log into the database file and removes it (a clean stop leaves one file). */
  checkpoint(): void;
  /** Runs statements that answer nothing (pragmas, `BEGIN`): what only the server's own files need. */
  exec(sql: string): void;
  close(): void;
}

/** Whether a SQLite error says the file is damaged (or not a database at all), not that it could not be reached. */
export { isDamage } from '../../sandbox/storage/sql.js';

/** Pages of write-ahead log between two automatic checkpoints (docs/performance.md, issue 34 fourth pass). */
const AUTOCHECKPOINT_PAGES = 8192;

/**
 * Opens (creating) a SQLite database file. `configure()` then turns on the write-ahead log with
 * `synchronous = NORMAL`: a commit is in the kernel once `COMMIT` returns, so `kill -9` loses
 * nothing answered; a power cut may lose the last commits (the log reaches the device at
 * checkpoints), as the journal of earlier versions could.
 */
export function openSqlite(file: string): SqliteDatabase {
  const Database = loadSqlite();
  const db = new Database(file, { timeout: 0 });
  const statements = new Map<string, Statement>();
  const prepared = (sql: string): Statement => {
    let s = statements.get(sql);
    if (s === undefined) statements.set(sql, (s = db.prepare(sql)));
    return s;
  };
  return {
    configure() {
      prepared('PRAGMA journal_mode = WAL').all();
      db.exec('PRAGMA synchronous = NORMAL');
      // A long burst must not leave a log of gigabytes behind: emptied to this size after checkpoints.
      db.exec('PRAGMA journal_size_limit = 67108864');
      // A checkpoint every 8,192 pages (32 MiB of log) instead of SQLite's 1,000: the pages a busy
      // server rewrites over and over (index leaves, the tables' tails) are copied into the file
      // once per checkpoint, and its two fsyncs come eight times less often (issue 34).
      db.exec(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    },
    all: (sql, params = []) => prepared(sql).all(...params) as Array<Record<string, SqlValue>>,
    get: (sql, params = []) => prepared(sql).get(...params) as Record<string, SqlValue> | undefined,
    run: (sql, params = []) => void prepared(sql).run(...params),
    transaction(fn) {
      db.exec('BEGIN IMMEDIATE');
      try {
        fn();
        db.exec('COMMIT');
      } catch (error) {
        // A failed COMMIT may have rolled back already (disk full): only roll back what is open.
        if (db.inTransaction) {
          try {
            db.exec('ROLLBACK');
          } catch {
            // The original error says more.
          }
        }
        throw error;
      }
    },
    checkpoint() {
      prepared('PRAGMA wal_checkpoint(TRUNCATE)').all();
      try {
        // Leaving the write-ahead log removes data.db-wal and data.db-shm; the next start turns it on again.
        db.exec('PRAGMA journal_mode = DELETE');
      } catch {
        // Another connection of this process still open (libsql closes on collection): the files stay, empty.
      }
    },
    exec(sql) {
      db.exec(sql);
    },
    close() {
      statements.clear();
      db.close();
    },
  };
}

/** What {@link inspectSqlite} reads: the database through its write-ahead log, or the file alone. */
export type InspectView = 'log' | 'file';

let inspector: Database | null = null;

/**
 * Reads a database file without writing it, and lets go of it entirely before returning: the
 * file is attached, read only, to one in-memory connection kept for the process, and detached
 * after `read` (a connection of its own would linger until its statements are collected, holding
 * SQLite's locks). `log`: through its write-ahead log (`mode=ro`: SQLite makes or refreshes its
 * index of the log, `-shm`, as any reader does, and never folds the log into the file). `file`:
 * the file alone, ignoring any log beside it (`immutable`: no lock taken, nothing made).
 * `read` gets a driver whose tables are under `schema`.
 */
export function inspectSqlite<T>(file: string, view: InspectView, read: (driver: SqlDriver, schema: string) => T): T {
  const Database = loadSqlite();
  inspector ??= new Database(':memory:');
  const db = inspector;
  // A URI, so that a path holding `?` or `#` is still one file name.
  const uri = `${pathToFileURL(file).href}?mode=ro${view === 'file' ? '&immutable=1' : ''}`;
  db.prepare('ATTACH ? AS inspected').run(uri);
  try {
    const driver: SqlDriver = {
      all: (sql, params = []) => db.prepare(sql).all(...params) as Array<Record<string, SqlValue>>,
      run: (sql, params = []) => void db.prepare(sql).run(...params),
      transaction: () => {
        throw new Error('An inspected database is read only.');
      },
    };
    return read(driver, 'inspected');
  } finally {
    db.exec('DETACH inspected');
  }
}
