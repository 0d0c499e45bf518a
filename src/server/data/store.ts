/**
 * `serve --data DIR`: the sandbox's state in a SQLite database in DIR (`data.db`, with its
 * write-ahead log `data.db-wal` and `data.db-shm`), so that a restart (clean or `kill -9`) loses
 * no answered mutation, and a lock (`lock`: one server per folder, ./lock.ts).
 *
 * Opening reads and checks before it writes: a file that is not ours, a database written by a
 * newer pix-usdt or for another environment, a damaged database (`PRAGMA quick_check`, and its
 * size against its header), a write-ahead log that belongs to another database, a read-only
 * database, a damaged file of the old layout, stop the start with {@link DataError} and leave
 * the folder as it was, modes included. A folder in the old layout (`snapshot.json` + `journal.ndjson`) is
 * imported in the database's first transaction; the two files are then renamed `*.migrated`.
 * The sandbox over the database is the sandbox's own stored assembly (src/sandbox/stored-sandbox.ts,
 * `createStoredSandbox`).
 * @module
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { StoredSandboxImpl, hasStoredSandbox } from '../../sandbox/stored-sandbox.js';
import type { Persistence } from '../../sandbox/stored.js';
import { type SqlDriver, checkSchema } from '../../sandbox/storage/sql.js';
import { StorageError } from '../../sandbox/storage/port.js';
import type { SandboxOptions, StoredSandboxOptions } from '../../sandbox/types.js';
import { type SqliteDatabase, inspectSqlite, isDamage, loadSqlite, openSqlite } from './driver.js';
import { DataError, DataFolder, describeFsError as describe } from './folder.js';
import { LEGACY_JOURNAL, LEGACY_SNAPSHOT, type LegacyState, readLegacy } from './legacy.js';
import { type FolderLock, LOCK, lock } from './lock.js';

export { DataError } from './folder.js';
export { MissingDependencyError } from './driver.js';

/** The database file in the data folder. */
export const DATABASE = 'data.db';
/** What an imported file of the old layout is renamed to (`snapshot.json.migrated`). */
export const MIGRATED_SUFFIX = '.migrated';
/** The platform value that marks an import of the old layout as committed. */
const IMPORTED = 'imported';
/**
 * The platform value naming this database (a random UUID, written at its first start by this
 * version): a write-ahead log is this database's when reading through it names the same one.
 */
export const DATABASE_ID = 'database_id';
/** The database's write-ahead log, and SQLite's index of it. */
const WAL = `${DATABASE}-wal`;
const SHM = `${DATABASE}-shm`;

/** A sandbox whose state lives in a data folder. */
export interface DataStore {
  /** The stored sandbox (`createStoredSandbox` over the folder's database). */
  sandbox: StoredSandboxImpl;
  /** The stored state (commits, eviction, wake-ups). */
  persistence: Persistence;
  /** The folder, resolved. */
  dir: string;
  /** The database file. */
  file: string;
  /** `new` (an empty folder), `restored` (a database), or `migrated` (the old layout, imported now). */
  origin: 'new' | 'restored' | 'migrated';
  /** What the import read (`migrated` only): journal lines, and the bytes of a cut-short last line dropped. */
  migrated: { entries: number; tornBytes: number; renamed: string[] } | null;
  /** Writes what waits, empties the write-ahead log into the database, and releases the folder (a clean stop). */
  close(): void;
}

/** Options of {@link openDataStore}. */
export interface DataStoreOptions {
  /** Told (once) when writes start failing, and when they work again: a line for the log. */
  log?: (line: string) => void;
  /** A tenant unused this long (ms) leaves memory (default 60,000; 0: never). */
  idleMs?: number;
  /** At most this many tenants in memory (default 1,000). */
  maxTenants?: number;
  /** Wraps the database's driver (tests simulate failing writes with it). */
  wrapDriver?: (driver: SqlDriver) => SqlDriver;
  /**
   * Read every page at the start (`PRAGMA quick_check`) of a database of at most this many bytes
   * (default {@link FULL_CHECK_MAX_BYTES}); a larger one has its header, size and write-ahead log
   * checked, and its pages as they are read. The bench compares the two.
   */
  fullCheckMaxBytes?: number;
}

/**
 * The largest database the start reads whole (`PRAGMA quick_check`): 64 MiB, under a second even
 * on a busy machine (about 11 ms a MiB measured there, docs/decisions.md). Past it a damaged page
 * is found when it is read: its tenant answers 503, the others are served.
 */
export const FULL_CHECK_MAX_BYTES = 64 * 1024 * 1024;

// Files the server writes in the folder, besides the old layout's.
const OURS = new Set([DATABASE, `${DATABASE}-wal`, `${DATABASE}-shm`, `${DATABASE}-journal`, LOCK]);

/** What the folder holds, read and checked before anything is written (the lock included). */
interface Survey {
  folder: DataFolder;
  /** The database file is there already. */
  hasDatabase: boolean;
  /** The old layout, read (only when there is no database yet). */
  legacy: LegacyState | null;
}

/** Reads and checks the folder: nothing in it is written, so a refusal leaves it as it was. */
function survey(dirArg: string, realTime: boolean): Survey {
  // Every file goes through the folder's rules (src/server/data/folder.ts): 700, 600, no links.
  const folder = DataFolder.open(dirArg);
  const hasDatabase = folder.has(DATABASE);
  // SQLite opens its side files itself: none may be a link (has() refuses anything but a file).
  for (const side of ['-wal', '-shm', '-journal']) folder.has(`${DATABASE}${side}`);
  if (hasDatabase) return { folder, hasDatabase, legacy: null };
  const legacy = readLegacy(folder, realTime);
  const foreign =
    legacy === null
      ? folder.names().filter((name) => !OURS.has(name) && name !== LEGACY_SNAPSHOT && name !== LEGACY_JOURNAL && !name.endsWith(MIGRATED_SUFFIX) && !name.startsWith('.') && !name.endsWith('.tmp'))
      : [];
  if (foreign.length > 0) {
    throw new DataError(`${folder.path} holds files that are not a sandbox's (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''}). Give --data an empty or new folder; nothing there is touched.`);
  }
  return { folder, hasDatabase, legacy };
}

function unusable(file: string, error: StorageError): DataError {
  const way = error.reason === 'newer' ? 'Upgrade pix-usdt, or use another --data folder' : 'Point --data at an empty folder or at one a pix-usdt sandbox server wrote';
  return new DataError(`${file} is not usable: ${error.message}. ${way}; the file is left as it is.`);
}

/** The refusal of a damaged database: what was found, and the ways out. */
function damaged(file: string, detail: string): DataError {
  return new DataError(
    `${file} is damaged (${detail}). It is left as it is, and the server does not start on it: restore it from a backup, or move it away to start afresh (\`sqlite3 ${file} .recover\` may save what is still readable).`,
  );
}

/** The SQLite header of a database file (its first 100 bytes), read without SQLite. */
interface Header {
  pageSize: number;
  /** The pages the header counts, when that count is valid (SQLite keeps it so since 3.7.0); `null` otherwise. */
  pages: number | null;
}

function readHeader(folder: DataFolder, file: string): Header {
  const bytes = folder.read(DATABASE, 100);
  if (bytes.length < 100 || bytes.toString('latin1', 0, 16) !== 'SQLite format 3\0') {
    throw new DataError(`${file} is not a SQLite database of a pix-usdt sandbox (it does not start as SQLite files do). It is left as it is: move it away to start afresh, or restore it from a backup.`);
  }
  const raw = bytes.readUInt16BE(16);
  const pageSize = raw === 1 ? 65_536 : raw;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw damaged(file, `its header gives a page size of ${raw}`);
  const counted = bytes.readUInt32BE(28);
  return { pageSize, pages: counted > 0 && bytes.readUInt32BE(24) === bytes.readUInt32BE(92) ? counted : null };
}

/**
 * Refuses a write-ahead log that is not one of this database's (copied from another): first its
 * own header (a SQLite log with this database's page size), then what reading through it names.
 */
function checkWalHeader(folder: DataFolder, wal: string, file: string, pageSize: number): void {
  const bytes = folder.read(WAL, 32);
  // Shorter than its header: SQLite ignores it (a log cut short before its first frame).
  if (bytes.length < 32) return;
  const magic = bytes.readUInt32BE(0);
  if ((magic !== 0x377f0682 && magic !== 0x377f0683) || bytes.readUInt32BE(4) !== 3_007_000) throw foreignWal(wal, file, 'it is not a SQLite write-ahead log');
  if (bytes.readUInt32BE(8) !== pageSize) throw foreignWal(wal, file, `its pages are ${bytes.readUInt32BE(8)} bytes, the database's ${pageSize}`);
}

function foreignWal(wal: string, file: string, detail: string): DataError {
  return new DataError(
    `${wal} does not belong to ${file} (${detail}). Nothing was read from it, and both are left as they are: move ${path.basename(wal)} away to open the database as of its last checkpoint, or put back the database it came from.`,
  );
}

/** A platform value read from a database (JSON), or `undefined`. */
function metaValue(db: SqlDriver, name: string, schema = 'main'): unknown {
  const row = db.all(`SELECT value FROM ${schema}.meta WHERE name = ?`, [name])[0];
  return row === undefined ? undefined : JSON.parse(String(row['value']));
}

/**
 * Reads and checks an existing database without writing anything (no mode changed; SQLite's
 * index of a write-ahead log, `-shm`, made or refreshed as any reader does): its mode (the server
 * must be allowed to write it), its header and size, a write-ahead log beside it (this
 * database's own), every page up to `fullCheckMaxBytes` (`PRAGMA quick_check`), its marks (ours,
 * not newer, this environment). Throws {@link DataError}.
 */
function inspectDatabase(folder: DataFolder, environment: string, fullCheckMaxBytes: number): void {
  const file = folder.file(DATABASE);
  const wal = folder.file(WAL);
  const { size } = folder.checkWritable(DATABASE);
  // Empty: made by a start that stopped before its first write. SQLite makes it a database.
  if (size === 0) return;
  const header = readHeader(folder, file);
  const withLog = folder.has(WAL) && folder.stat(WAL).size > 0;
  if (withLog) checkWalHeader(folder, wal, file, header.pageSize);
  // Without a log, the file alone is the database: it holds every page its header counts.
  else if (header.pages !== null && header.pages * header.pageSize > size) {
    throw damaged(file, `it is cut short: ${size} bytes where its header counts ${header.pages * header.pageSize}`);
  }
  try {
    // The name the file alone holds: a log must not change it (one copied from another database does).
    const own = withLog ? inspectSqlite(file, 'file', (db, schema) => (checkSchema(db, schema) === 'empty' ? undefined : metaValue(db, DATABASE_ID, schema))) : undefined;
    inspectSqlite(file, withLog ? 'log' : 'file', (db, schema) => {
      if (own !== undefined && metaValue(db, DATABASE_ID, schema) !== own) throw foreignWal(wal, file, 'it was written for another database');
      if (size <= fullCheckMaxBytes) {
        const problems = db.all(`PRAGMA ${schema}.quick_check`).map((row) => String(Object.values(row)[0]));
        if (problems.length !== 1 || problems[0] !== 'ok') throw damaged(file, `PRAGMA quick_check: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; ...' : ''}`);
      }
      if (checkSchema(db, schema) === 'empty') return;
      const stored = metaValue(db, 'environment', schema);
      if (stored !== undefined && stored !== environment) {
        throw new DataError(`${file} cannot be loaded: The stored sandbox is a ${String(stored)} one; this one is ${environment}. The files are left as they are.`);
      }
    });
  } catch (error) {
    if (error instanceof DataError) throw error;
    if (error instanceof StorageError) throw unusable(file, error);
    if (isDamage(error)) throw damaged(file, (error as Error).message);
    throw new DataError(`Cannot read ${file}: ${describe(error)}. Give --data a folder this user can read and write.`);
  }
}

/**
 * Opens the database file for writing, checks again that it is ours (writing nothing to one
 * that is not), and turns on its write-ahead log. Answers whether it already holds a sandbox.
 */
function openDatabase(folder: DataFolder): { db: SqliteDatabase; holdsSandbox: boolean } {
  const file = folder.file(DATABASE);
  folder.prepareFile(DATABASE);
  // Checked (inspectDatabase): the file is ours, and the server keeps it to its owner. Now, before
  // SQLite holds locks on it: closing any descriptor of a file drops the process's POSIX locks on it.
  folder.restrict(DATABASE);
  const db = openSqlite(file);
  try {
    const holdsSandbox = hasStoredSandbox(db);
    db.configure();
    return { db, holdsSandbox };
  } catch (error) {
    db.close();
    if (error instanceof StorageError) throw unusable(file, error);
    if (error instanceof DataError) throw error;
    if (isDamage(error)) throw damaged(file, (error as Error).message);
    throw new DataError(`Cannot open ${file}: ${describe(error)}. Give --data a folder this user can write to.`);
  }
}

/**
 * Names the database once (at its first start by this version) and folds the log into the file,
 * so that the file alone names it: a log found beside it later is checked against that name.
 */
function nameDatabase(db: SqliteDatabase): void {
  if (metaValue(db, DATABASE_ID) !== undefined) return;
  db.run('INSERT INTO meta (name, value) VALUES (?, ?)', [DATABASE_ID, JSON.stringify(randomUUID())]);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
}

/** Renames imported files of the old layout (`snapshot.json` -> `snapshot.json.migrated`). */
function renameMigrated(files: readonly string[]): string[] {
  const renamed: string[] = [];
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    fs.renameSync(file, `${file}${MIGRATED_SUFFIX}`);
    renamed.push(`${file}${MIGRATED_SUFFIX}`);
  }
  return renamed;
}

/**
 * Opens (or creates) a data folder and the sandbox over it, in five steps: the folder read and
 * checked (nothing written), the lock, an existing database read and checked (nothing written),
 * the database opened and the sandbox over it (`createStoredSandbox`'s assembly, which commits an
 * import of the old layout in its first transaction), and last the renames of the old files,
 * which must follow that commit. Throws {@link DataError} when the folder or a file in it cannot
 * be used (the folder is then as it was: the lock given back, no side file left), and
 * `MissingDependencyError` when the SQLite package is not installed (before anything is made).
 */
export function openDataStore(dirArg: string, sandboxOptions: SandboxOptions, options: DataStoreOptions = {}): DataStore {
  // Without the package, no folder or file is made: the start stops with what to install.
  loadSqlite();
  const realTime = sandboxOptions.now === undefined;
  const { folder, hasDatabase, legacy: found } = survey(dirArg, realTime);
  const { path: dir } = folder;
  const file = folder.file(DATABASE);
  const held: FolderLock = lock(folder);
  // A reader of the log makes SQLite's index of it: a refused start removes it if it made it.
  const hadIndex = folder.has(SHM);
  let db: SqliteDatabase | null = null;
  try {
    if (hasDatabase) inspectDatabase(folder, sandboxOptions.environment ?? 'sandbox', options.fullCheckMaxBytes ?? FULL_CHECK_MAX_BYTES);
    const opened = openDatabase(folder);
    db = opened.db;
    const fresh = !opened.holdsSandbox;
    // A database without a sandbox next to old files: their import did not commit (a kill during it); again.
    const legacy = !fresh ? null : hasDatabase ? readLegacy(folder, realTime) : found;
    const sandbox = openSandbox(db, file, sandboxOptions, options, legacy);
    nameDatabase(db);
    // The import has committed: its files step aside (kept, renamed, for a way back). Old files
    // found again beside a database that imported them are leftovers of a kill before the rename.
    const leftovers = !fresh && sandbox.storedValue(IMPORTED) !== undefined;
    const renamed = legacy !== null || leftovers ? renameMigrated([LEGACY_SNAPSHOT, LEGACY_JOURNAL].map((name) => path.join(dir, name))) : [];
    const migrated = legacy === null ? null : { entries: legacy.entries, tornBytes: legacy.tornBytes, renamed };
    const database = db;
    let closed = false;
    return {
      sandbox,
      persistence: sandbox.persistence,
      dir,
      file,
      origin: migrated !== null ? 'migrated' : fresh ? 'new' : 'restored',
      migrated,
      close() {
        if (closed) return;
        closed = true;
        try {
          sandbox.persistence.close();
          database.checkpoint();
        } finally {
          database.close();
          held.release();
        }
      },
    };
  } catch (error) {
    if (db === null) {
      if (!hadIndex) folder.remove(SHM);
    } else db.close();
    held.abandon();
    throw error;
  }
}

/** The log line of a read that failed (told once per tenant): what failed, what still works, what to do. */
export function readErrorLine(file: string, error: unknown, tenantId: string | null): string {
  const what = tenantId === null ? 'a lookup across tenants' : `tenant ${tenantId}`;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof StorageError && error.reason === 'damaged') {
    const scope = tenantId === null ? 'Requests that need it answer' : 'Its requests answer';
    return `pix-usdt-sandbox: ${file} is damaged: reading ${what} failed (${message}). ${scope} 503 storage_unavailable; the other tenants are served. Stop the server and restore ${file} from a backup, or move it away to start afresh.`;
  }
  return `pix-usdt-sandbox: cannot read ${what} from ${file} (${message}). The request answered 503 storage_unavailable; further failures of it are not logged.`;
}

/** Turns of the event loop a commit waits for more answers to share it (a group commit). */
const COMMIT_TURNS = 3;

/**
 * Runs `fn` after {@link COMMIT_TURNS} turns of the event loop: the answers of three turns share
 * one transaction instead of one turn's, fewer `BEGIN`/`COMMIT`s and fewer pages of the
 * write-ahead log a lifecycle (the tables' tails and index leaves written once for more answers;
 * docs/performance.md, issue 34 round two). An answer still leaves only once its commit returned.
 */
function afterTurns(fn: () => void): void {
  let left = COMMIT_TURNS;
  const turn = (): void => {
    if (--left > 0) setImmediate(turn);
    else fn();
  };
  setImmediate(turn);
}

/** The stored sandbox over the folder's database; an import of the old layout and its mark commit together in its first transaction. */
function openSandbox(db: SqliteDatabase, file: string, sandboxOptions: SandboxOptions, options: DataStoreOptions, legacy: LegacyState | null): StoredSandboxImpl {
  const log = options.log ?? (() => undefined);
  const stored: StoredSandboxOptions = {
    ...sandboxOptions,
    defer: afterTurns,
    onWriteError: (error) =>
      log(`pix-usdt-sandbox: cannot write ${file}: ${(error as Error).message}. Requests answer 503 storage_unavailable until a write succeeds; what was answered before is safe.`),
    onWriteRecovered: () => log(`pix-usdt-sandbox: writing ${file} works again`),
    onReadError: (error, tenantId) => log(readErrorLine(file, error, tenantId)),
  };
  if (options.idleMs !== undefined) stored.idleMs = options.idleMs;
  if (options.maxTenants !== undefined) stored.maxTenants = options.maxTenants;
  // A kill during the import leaves a database without its mark: imported again on the next start.
  if (legacy !== null) stored.initial = legacy.snapshot;
  const initialMeta: Array<[string, string]> =
    legacy === null ? [] : [[IMPORTED, JSON.stringify({ files: legacy.files.map((f) => path.basename(f)), at: new Date().toISOString() })]];
  try {
    return new StoredSandboxImpl(options.wrapDriver ? options.wrapDriver(db) : db, stored, { initialMeta });
  } catch (error) {
    if (error instanceof TypeError || error instanceof SyntaxError) throw new DataError(`${file} cannot be loaded: ${error.message} The files are left as they are.`);
    throw new DataError(`Cannot write ${file}: ${describe(error)}. Give --data a folder this user can write to.`);
  }
}
