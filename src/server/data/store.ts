/**
 * `serve --data DIR`: the sandbox's state in a SQLite database in DIR (`data.db`, with its
 * write-ahead log `data.db-wal` and `data.db-shm`), so that a restart (clean or `kill -9`) loses
 * no answered mutation, and a lock (`lock`, the pid of the server using the folder).
 *
 * Opening reads and checks before it writes: a file that is not ours, a database written by a
 * newer pix-usdt, a damaged file of the old layout, stop the start with {@link DataError} and
 * leave the folder as it was. A folder in the old layout (`snapshot.json` + `journal.ndjson`) is
 * imported in the database's first transaction; the two files are then renamed `*.migrated`.
 * The sandbox over the database is the sandbox's own stored assembly (src/sandbox/stored-sandbox.ts,
 * `createStoredSandbox`).
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { StoredSandboxImpl, hasStoredSandbox } from '../../sandbox/stored-sandbox.js';
import type { Persistence } from '../../sandbox/stored.js';
import type { SqlDriver } from '../../sandbox/storage/sql.js';
import { StorageError } from '../../sandbox/storage/port.js';
import type { SandboxOptions, StoredSandboxOptions } from '../../sandbox/types.js';
import { type SqliteDatabase, openSqlite } from './driver.js';
import { DataError, DataFolder, LOCK, describeFsError as describe, lock } from './folder.js';
import { LEGACY_JOURNAL, LEGACY_SNAPSHOT, type LegacyState, readLegacy } from './legacy.js';

export { DataError } from './folder.js';
export { MissingDependencyError } from './driver.js';

/** The database file in the data folder. */
export const DATABASE = 'data.db';
/** What an imported file of the old layout is renamed to (`snapshot.json.migrated`). */
export const MIGRATED_SUFFIX = '.migrated';
/** The platform value that marks an import of the old layout as committed. */
const IMPORTED = 'imported';

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
}

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

/**
 * Opens the database file, checks that it is ours (writing nothing to one that is not), and
 * turns on its write-ahead log. Answers whether it already holds a sandbox.
 */
function openDatabase(folder: DataFolder): { db: SqliteDatabase; holdsSandbox: boolean } {
  const file = folder.file(DATABASE);
  folder.prepareFile(DATABASE);
  const db = openSqlite(file);
  try {
    const holdsSandbox = hasStoredSandbox(db);
    db.configure();
    return { db, holdsSandbox };
  } catch (error) {
    db.close();
    if (error instanceof StorageError) {
      const way = error.reason === 'newer' ? 'Upgrade pix-usdt, or use another --data folder' : 'Point --data at an empty folder or at one a pix-usdt sandbox server wrote';
      throw new DataError(`${file} is not usable: ${error.message}. ${way}; the file is left as it is.`);
    }
    const code = (error as { code?: string }).code ?? '';
    if (/NOTADB|CORRUPT/.test(code) || /not a database|malformed/i.test(String(error))) {
      throw new DataError(`${file} is not a SQLite database of a pix-usdt sandbox (${(error as Error).message}). It is left as it is: move it away to start afresh, or restore it from a backup.`);
    }
    throw new DataError(`Cannot open ${file}: ${describe(error)}. Give --data a folder this user can write to.`);
  }
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
 * Opens (or creates) a data folder and the sandbox over it, in four steps: the folder read and
 * checked (nothing written), the lock and the database, the sandbox (`createStoredSandbox`'s
 * assembly, which commits an import of the old layout in its first transaction), and last the
 * renames of the old files, which must follow that commit. Throws {@link DataError} when the
 * folder or a file in it cannot be used (nothing in the folder is changed then), and
 * `MissingDependencyError` when the SQLite package is not installed.
 */
export function openDataStore(dirArg: string, sandboxOptions: SandboxOptions, options: DataStoreOptions = {}): DataStore {
  const realTime = sandboxOptions.now === undefined;
  const { folder, hasDatabase, legacy: found } = survey(dirArg, realTime);
  const { path: dir } = folder;
  const file = folder.file(DATABASE);
  const unlock = lock(folder);
  let db: SqliteDatabase | null = null;
  try {
    const opened = openDatabase(folder);
    db = opened.db;
    const fresh = !opened.holdsSandbox;
    // A database without a sandbox next to old files: their import did not commit (a kill during it); again.
    const legacy = !fresh ? null : hasDatabase ? readLegacy(folder, realTime) : found;
    const sandbox = openSandbox(db, file, sandboxOptions, options, legacy);
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
          unlock();
        }
      },
    };
  } catch (error) {
    db?.close();
    unlock();
    throw error;
  }
}

/** The stored sandbox over the folder's database; an import of the old layout and its mark commit together in its first transaction. */
function openSandbox(db: SqliteDatabase, file: string, sandboxOptions: SandboxOptions, options: DataStoreOptions, legacy: LegacyState | null): StoredSandboxImpl {
  const log = options.log ?? (() => undefined);
  const stored: StoredSandboxOptions = {
    ...sandboxOptions,
    defer: setImmediate,
    onWriteError: (error) =>
      log(`pix-usdt-sandbox: cannot write ${file}: ${(error as Error).message}. Requests answer 503 storage_unavailable until a write succeeds; what was answered before is safe.`),
    onWriteRecovered: () => log(`pix-usdt-sandbox: writing ${file} works again`),
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
