/**
 * The data folder's lock: exactly one server uses a folder, whatever the timing of their starts.
 *
 * A file that names a pid cannot decide alone: two servers that find the lock of a killed one
 * both remove it and both take a new one (one start in six did, two owners of one database).
 * The decision is the kernel's: `lock` is a small SQLite file on which the server holds SQLite's
 * exclusive lock (a POSIX record lock on Linux and macOS, `LockFileEx` on Windows) for as long
 * as it runs. The kernel grants it to one process, and drops it when that process ends however
 * it ends, so a killed server's lock is free at once and nothing is taken over by guesswork.
 * SQLite's own bookkeeping makes a second open in the same process wait its turn too.
 *
 * The file also says who holds it: the pid in its header's `user_version` (application id
 * {@link LOCK_APPLICATION_ID}), read from its bytes by the server that is refused. Taking it
 * checks, after the kernel said yes, that the name still points at the file locked (a server
 * stopping meanwhile removes it), and starts again otherwise.
 *
 * A refused start gives the lock back as it found it: removed when this start made it, its
 * bytes put back otherwise. Opens never follow a link and never wait on a FIFO (./folder.ts).
 * While it is held, this process opens no descriptor of the file: POSIX drops every lock a
 * process has on a file when it closes any descriptor of it.
 * @module
 */
import fs from 'node:fs';
import { processAlive } from '../process.js';
import { type SqliteDatabase, isDamage, openSqlite } from './driver.js';
import { DataError, type DataFolder, describeFsError } from './folder.js';

/** The lock file's name in the folder. */
export const LOCK = 'lock';
/** The SQLite application id of a lock file (`pxsl`). */
export const LOCK_APPLICATION_ID = 0x7078736c;
/** The most bytes a lock file may hold (a one-page SQLite file holds 512). */
const MAX_LOCK_BYTES = 65_536;
const SQLITE_MAGIC = 'SQLite format 3\0';

/** The folder, held by this process. */
export interface FolderLock {
  /** A clean stop: the lock file removed, then the lock let go. */
  release(): void;
  /** A refused start: the lock file as this start found it (removed when it made it), then the lock let go. */
  abandon(): void;
}

/** The pid a lock file names: a lock of this version (its header), or the text of an earlier one; `null` when none. */
export function lockHolder(bytes: Buffer): number | null {
  if (bytes.length >= 72 && bytes.toString('latin1', 0, 16) === SQLITE_MAGIC) {
    return bytes.readUInt32BE(68) === LOCK_APPLICATION_ID && bytes.readUInt32BE(60) > 0 ? bytes.readUInt32BE(60) : null;
  }
  const text = bytes.toString('latin1').trim();
  return /^\d{1,10}$/.test(text) ? Number(text) : null;
}

function code(error: unknown): string {
  return String((error as { code?: unknown } | null)?.code ?? '');
}

function inUse(folder: DataFolder, pid: number | null): DataError {
  const who = pid === null || !processAlive(pid) ? '' : pid === process.pid ? ' (this process)' : ` (pid ${pid})`;
  return new DataError(`${folder.path} is in use by another sandbox server${who}. Stop it, or give --data another folder.`);
}

function cannotWrite(folder: DataFolder, error: unknown): DataError {
  return new DataError(`Cannot write in ${folder.path}: ${describeFsError(error)}. Give --data a folder this user can write to.`);
}

/** Puts `bytes` back as the whole content of the lock file (no link followed, no FIFO waited on). */
function rewrite(folder: DataFolder, bytes: Buffer): void {
  const fd = fs.openSync(folder.file(LOCK), fs.constants.O_WRONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  try {
    fs.ftruncateSync(fd, 0);
    let offset = 0;
    while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset, offset);
  } finally {
    fs.closeSync(fd);
  }
}

/** What a lock file was before this start touched it: made now (`null`), or its bytes and inode. */
interface Found {
  bytes: Buffer | null;
  ino: number;
}

/** The lock file as a regular file of the folder, made when missing; `null` when the name changed meanwhile (start again). */
function find(folder: DataFolder): Found | null {
  const file = folder.file(LOCK);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if (code(error) !== 'ENOENT') throw cannotWrite(folder, error);
    let fd: number;
    try {
      fd = folder.createExclusive(LOCK);
    } catch (createError) {
      if (code(createError) === 'EEXIST') return null;
      throw cannotWrite(folder, createError);
    }
    try {
      return { bytes: null, ino: fs.fstatSync(fd).ino };
    } finally {
      fs.closeSync(fd);
    }
  }
  // A link is not a lock: it is removed (the link itself, never its target) and a lock made.
  if (stat.isSymbolicLink()) {
    folder.remove(LOCK);
    return null;
  }
  // A FIFO, a folder, a device: refused by name (folder.stat opens without waiting).
  const found = folder.stat(LOCK);
  if (found.size > MAX_LOCK_BYTES) {
    throw new DataError(`${file} is not a lock of a sandbox server (${found.size} bytes). Move it away; the server writes its own.`);
  }
  const bytes = folder.read(LOCK);
  // Now, while nothing holds it: closing any descriptor of a file drops the process's POSIX locks on it.
  folder.restrict(LOCK);
  return { bytes, ino: found.ino };
}

/**
 * Takes the folder's lock. Throws {@link DataError} when another server (or another open in this
 * process) holds it, or the folder cannot be written.
 */
export function lock(folder: DataFolder): FolderLock {
  const file = folder.file(LOCK);
  // The bytes of a lock file this start emptied (an earlier version's, a damaged one), to put back on a refusal.
  let emptied: { ino: number; bytes: Buffer } | null = null;
  for (let attempt = 0; attempt < 8; attempt++) {
    const found = find(folder);
    if (found === null) continue;
    const before: Buffer | null = emptied !== null && emptied.ino === found.ino ? emptied.bytes : found.bytes;
    // A lock of an earlier version: the pid of a server, in text. A live one holds the folder.
    if (found.bytes !== null && found.bytes.length > 0 && found.bytes.toString('latin1', 0, 16) !== SQLITE_MAGIC) {
      const pid = lockHolder(found.bytes);
      if (pid !== null && pid !== process.pid && processAlive(pid)) throw inUse(folder, pid);
      // Anything else is not a lock SQLite can take: emptied (and put back if the start is refused).
      emptied = { ino: found.ino, bytes: before ?? found.bytes };
      rewrite(folder, Buffer.alloc(0));
    }
    let db: SqliteDatabase;
    try {
      db = openSqlite(file);
    } catch (error) {
      throw cannotWrite(folder, error);
    }
    const giveBack = (): void => {
      try {
        if (before === null) folder.remove(LOCK);
        else rewrite(folder, before);
      } finally {
        db.close();
      }
    };
    try {
      // Exclusive mode: the lock taken by the first write transaction is kept until the connection closes.
      db.exec('PRAGMA locking_mode = EXCLUSIVE');
      db.exec('PRAGMA journal_mode = OFF');
      db.exec('PRAGMA page_size = 512');
      db.exec('BEGIN EXCLUSIVE');
      db.exec('COMMIT');
    } catch (error) {
      db.close();
      if (code(error).startsWith('SQLITE_BUSY') || code(error).startsWith('SQLITE_LOCKED')) {
        // Held by a live server after all: what this start emptied goes back.
        if (emptied !== null && emptied.ino === found.ino) rewrite(folder, emptied.bytes);
        let now: Buffer | null = null;
        try {
          now = folder.read(LOCK, MAX_LOCK_BYTES);
        } catch {
          // Removed meanwhile: the holder stopped; the message needs no pid.
        }
        throw inUse(folder, now === null ? null : lockHolder(now));
      }
      // A SQLite file that is not one (a damaged lock): emptied, and taken on the next round.
      if (isDamage(error) && found.bytes !== null && found.bytes.length > 0) {
        emptied = { ino: found.ino, bytes: before ?? found.bytes };
        rewrite(folder, Buffer.alloc(0));
        continue;
      }
      if (before === null) folder.remove(LOCK);
      throw cannotWrite(folder, error);
    }
    // Held. The name must still point at the file locked: a server that stopped meanwhile removed it.
    let same = false;
    try {
      same = fs.lstatSync(file).ino === found.ino;
    } catch {
      same = false;
    }
    if (!same) {
      db.close();
      continue;
    }
    // From here on, no descriptor of the lock file is opened by this process (see find) until it lets go.
    try {
      db.exec(`PRAGMA application_id = ${LOCK_APPLICATION_ID}`);
      db.exec(`PRAGMA user_version = ${process.pid}`);
    } catch (error) {
      giveBack();
      throw cannotWrite(folder, error);
    }
    return {
      release() {
        try {
          folder.remove(LOCK);
        } finally {
          db.close();
        }
      },
      abandon: giveBack,
    };
  }
  throw new DataError(`Cannot take the lock ${file}: it keeps changing. Make sure no other program writes in ${folder.path}.`);
}
