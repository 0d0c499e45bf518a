/**
 * `serve --data DIR`: the sandbox's state in a SQLite database in DIR (`data.db`, with its
 * write-ahead log `data.db-wal` and `data.db-shm`), so that a restart (clean or `kill -9`) loses
 * no answered mutation, and a lock (`lock`, the pid of the server using the folder).
 *
 * Opening reads and checks before it writes: a file that is not ours, a database written by a
 * newer pix-usdt, a damaged file of the old layout, stop the start with {@link DataError} and
 * leave the folder as it was. A folder in the old layout (`snapshot.json` + `journal.ndjson`) is
 * imported in the database's first transaction; the two files are then renamed `*.migrated`.
 * The sandbox over the database is src/sandbox/stored.ts.
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { SandboxImpl } from '../../sandbox/sandbox.js';
import { Persistence, type StoredOptions } from '../../sandbox/stored.js';
import { type SqlDriver, SqlStorage, prepareSchema } from '../../sandbox/storage/sql.js';
import { StorageError } from '../../sandbox/storage/port.js';
import type { SandboxOptions } from '../../sandbox/types.js';
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
  sandbox: SandboxImpl;
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

function foreignFiles(folder: DataFolder): string[] {
  return folder.names().filter((name) => !OURS.has(name) && name !== LEGACY_SNAPSHOT && name !== LEGACY_JOURNAL && !name.endsWith(MIGRATED_SUFFIX) && !name.startsWith('.') && !name.endsWith('.tmp'));
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

/** Opens the database file, checks that it is ours, and turns on its write-ahead log. */
function openDatabase(file: string): SqliteDatabase {
  const db = openSqlite(file);
  try {
    prepareSchema(db);
    db.configure();
    return db;
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

/**
 * Opens (or creates) a data folder and the sandbox over it. Throws {@link DataError} when the
 * folder or a file in it cannot be used (nothing in the folder is changed then), and
 * `MissingDependencyError` when the SQLite package is not installed.
 */
export function openDataStore(dirArg: string, sandboxOptions: SandboxOptions, options: DataStoreOptions = {}): DataStore {
  // Every file goes through the folder's rules (src/server/data/folder.ts): 700, 600, no links.
  const folder = DataFolder.open(dirArg);
  const dir = folder.path;
  const file = folder.file(DATABASE);
  const hasDatabase = folder.has(DATABASE);
  // SQLite opens its side files itself: none may be a link (has() refuses anything but a file).
  for (const side of ['-wal', '-shm', '-journal']) folder.has(`${DATABASE}${side}`);
  // Read and check everything before writing anything (the lock included).
  let legacy: LegacyState | null = null;
  if (!hasDatabase) {
    legacy = readLegacy(folder, sandboxOptions.now === undefined);
    const foreign = legacy === null ? foreignFiles(folder) : [];
    if (foreign.length > 0) {
      throw new DataError(`${dir} holds files that are not a sandbox's (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''}). Give --data an empty or new folder; nothing there is touched.`);
    }
  }
  const unlock = lock(folder);
  let db: SqliteDatabase | null = null;
  try {
    folder.prepareFile(DATABASE);
    db = openDatabase(file);
    const storage = new SqlStorage(options.wrapDriver ? options.wrapDriver(db) : db);
    const meta = storage.meta();
    const fresh = !meta.has('environment');
    // A database without its import's mark next to old files: the import did not commit (a kill during it); again.
    if (hasDatabase && fresh && legacy === null) legacy = readLegacy(folder, sandboxOptions.now === undefined);
    const leftovers = hasDatabase && !fresh && meta.has(IMPORTED) ? [LEGACY_SNAPSHOT, LEGACY_JOURNAL].map((name) => path.join(dir, name)) : [];
    const log = options.log ?? (() => undefined);
    let sandbox: SandboxImpl;
    try {
      const stored: StoredOptions = {
        storage,
        defer: setImmediate,
        onWriteError: (error) =>
          log(`pix-usdt-sandbox: cannot write ${file}: ${(error as Error).message}. Requests answer 503 storage_unavailable until a write succeeds; what was answered before is safe.`),
        onWriteRecovered: () => log(`pix-usdt-sandbox: writing ${file} works again`),
      };
      if (options.idleMs !== undefined) stored.idleMs = options.idleMs;
      if (options.maxTenants !== undefined) stored.maxTenants = options.maxTenants;
      if (fresh && legacy !== null) {
        // The import and its mark commit together: a kill during it leaves a database without the mark, imported again.
        stored.initial = legacy.snapshot;
        stored.initialMeta = [[IMPORTED, JSON.stringify({ files: legacy.files.map((f) => path.basename(f)), at: new Date().toISOString() })]];
      }
      sandbox = new SandboxImpl(sandboxOptions, { stored: (parts) => new Persistence(parts, stored) });
    } catch (error) {
      if (error instanceof TypeError || error instanceof SyntaxError) throw new DataError(`${file} cannot be loaded: ${error.message} The files are left as they are.`);
      throw new DataError(`Cannot write ${file}: ${describe(error)}. Give --data a folder this user can write to.`);
    }
    const persistence = sandbox.persistence as Persistence;
    // The import has committed: its files step aside (kept, renamed, for a way back).
    const migrated = fresh && legacy !== null ? { entries: legacy.entries, tornBytes: legacy.tornBytes, renamed: renameMigrated(legacy.files) } : null;
    renameMigrated(leftovers);
    const opened = db;
    let closed = false;
    return {
      sandbox,
      persistence,
      dir,
      file,
      origin: migrated !== null ? 'migrated' : fresh ? 'new' : 'restored',
      migrated,
      close() {
        if (closed) return;
        closed = true;
        try {
          persistence.close();
          opened.checkpoint();
        } finally {
          opened.close();
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
