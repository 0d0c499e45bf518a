/**
 * The data folder's file rules, in one place for every storage engine of `serve --data`: the
 * folder holds API keys and webhook secrets in clear, so it is treated as a `.env` file is.
 *
 * - The folder is created `700` (owner only), whatever the umask; an existing folder that the
 *   group or others can write to is refused with a message saying how to fix it (`chmod 700`).
 * - Every file is created `600` with `O_CREAT | O_EXCL | O_NOFOLLOW`: a name that already exists
 *   (a stale temporary file, a symbolic link planted in the folder) is never opened for writing.
 * - Nothing is read or written through a symbolic link, the lock included: every open carries
 *   `O_NOFOLLOW` and checks that it opened a regular file; a link where a file is expected is
 *   refused by name, and a stale temporary file is removed (the link itself, never its target)
 *   before it is created afresh. Every open is also `O_NONBLOCK`: a FIFO or a device planted
 *   under a data file's name is refused by name, never waited on.
 * - A file's mode is never changed before it is known to be the server's: a read-only file is
 *   refused, and a mode wider than `600` is narrowed only once the engine has checked the file.
 * - A whole-file write is atomic: a temporary file, flushed, renamed over the old one (the rename
 *   replaces a link itself, never what it points to), then the folder flushed.
 *
 * An engine that opens its own files (an embedded database) calls {@link DataFolder.prepareFile}
 * first: the file then exists as a regular `600` file of this user, so the engine's own `open`
 * cannot be led elsewhere by a link.
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';

/** Why a data folder or a file in it cannot be used. The CLI prints the message and exits with code 1. */
export class DataError extends Error {
  override readonly name = 'DataError';
}

/** Mode of the folder: owner only. */
export const FOLDER_MODE = 0o700;
/** Mode of every file: owner read and write. */
export const FILE_MODE = 0o600;
/** Suffix of the temporary file of {@link DataFolder.writeAtomic}. */
export const TEMP_SUFFIX = '.tmp';

// O_NOFOLLOW and O_NONBLOCK do not exist on Windows (where links need privileges to create, and
// a FIFO cannot take a file's name): 0 there.
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;
const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL } = fs.constants;
/** Flags of every open for reading: never through a link, never waiting on a FIFO. */
const READ = O_RDONLY | NOFOLLOW | NONBLOCK;

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** A short reason for an `fs` error, for messages. */
export function describeFsError(error: unknown): string {
  const c = code(error);
  if (c === 'EACCES' || c === 'EPERM' || c === 'EROFS') return 'permission denied';
  return c ?? (error instanceof Error ? error.message : String(error));
}

/** A mode as `chmod` writes it (`600`). */
export function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(3, '0');
}

/** Options of {@link DataFolder.open}. */
export interface DataFolderOptions {
  /** The flag that named the folder, in messages (default `--data`). */
  flag?: string;
}

/**
 * A data folder, opened: every read and write of the storage engines goes through it. File
 * names are plain names inside the folder (no separators, not `.` or `..`).
 */
export class DataFolder {
  /** The folder's absolute path, as given (resolved against the working directory). */
  readonly path: string;
  /** Whether {@link DataFolder.open} created the folder. */
  readonly created: boolean;

  private constructor(dir: string, created: boolean) {
    this.path = dir;
    this.created = created;
  }

  /**
   * Opens `dir`, creating it (and its parents) when missing: the folder itself `700` whatever the
   * umask. Throws {@link DataError} when it is not a folder, cannot be created, or is one that
   * the group or others can write to (a file could be swapped under the server). Changes nothing in an existing folder.
   */
  static open(dir: string, options: DataFolderOptions = {}): DataFolder {
    const flag = options.flag ?? '--data';
    const resolved = path.resolve(dir);
    let created = false;
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(resolved);
    } catch (error) {
      if (code(error) !== 'ENOENT' && code(error) !== 'ENOTDIR') throw new DataError(`Cannot use the data folder ${resolved}: ${describeFsError(error)}.`);
    }
    if (stat === undefined) {
      try {
        DataFolder.#mkdir(resolved);
        created = true;
      } catch (error) {
        throw new DataError(`Cannot create the data folder ${resolved}: ${describeFsError(error)}.`);
      }
      try {
        // mkdir's mode is filtered by the umask (a umask of 277 would leave it unwritable): set it.
        fs.chmodSync(resolved, FOLDER_MODE);
        stat = fs.statSync(resolved);
      } catch (error) {
        throw new DataError(`Cannot set the mode of the data folder ${resolved}: ${describeFsError(error)}.`);
      }
    }
    if (!stat.isDirectory()) throw new DataError(`${resolved} is not a folder. Give ${flag} a folder (it is created when missing).`);
    if ((stat.mode & 0o022) !== 0) {
      throw new DataError(
        `The data folder ${resolved} can be written by ${(stat.mode & 0o002) !== 0 ? 'any user' : 'its group'} (mode ${octal(stat.mode)}): it holds API keys and webhook secrets, and a file there could be replaced. Run \`chmod 700 ${resolved}\`, or give ${flag} a new folder (created 700).`,
      );
    }
    return new DataFolder(resolved, created);
  }

  /** Creates the folder `700` (its missing parents with the default mode). */
  static #mkdir(dir: string): void {
    try {
      fs.mkdirSync(dir, { mode: FOLDER_MODE });
    } catch (error) {
      if (code(error) !== 'ENOENT') throw error;
      fs.mkdirSync(path.dirname(dir), { recursive: true });
      fs.mkdirSync(dir, { mode: FOLDER_MODE });
    }
  }

  /** The path of `name` inside the folder. Throws on a name that is not a plain file name. */
  file(name: string): string {
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes(path.sep) || name.includes('\0')) {
      throw new Error(`Not a file name of the data folder: ${JSON.stringify(name)}`);
    }
    return path.join(this.path, name);
  }

  /** The names in the folder (files, links and anything else), sorted. */
  names(): string[] {
    return fs.readdirSync(this.path).sort();
  }

  /**
   * Whether `name` exists as a regular file. Throws {@link DataError} when something else has
   * that name (a symbolic link, a folder): nothing is read or written through it.
   */
  has(name: string): boolean {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(this.file(name));
    } catch (error) {
      if (code(error) === 'ENOENT') return false;
      throw new DataError(`Cannot read ${this.file(name)}: ${describeFsError(error)}.`);
    }
    if (!stat.isFile()) throw this.#notAFile(name, stat);
    return true;
  }

  /** Reads a regular file whole (or its first `limit` bytes), never through a link. Throws {@link DataError}. */
  read(name: string, limit = Infinity): Buffer {
    const fd = this.#openRead(name, 'read');
    try {
      if (limit === Infinity) return fs.readFileSync(fd);
      const buffer = Buffer.alloc(limit);
      let length = 0;
      while (length < limit) {
        const n = fs.readSync(fd, buffer, length, limit - length, length);
        if (n === 0) break;
        length += n;
      }
      return buffer.subarray(0, length);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** What a regular file is (size, mode, inode), read through an open that follows no link. Throws {@link DataError}. */
  stat(name: string): fs.Stats {
    const fd = this.#openRead(name, 'read');
    try {
      return fs.fstatSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Opens a regular file for reading (no link followed, no FIFO waited on) and checks what it opened. */
  #openRead(name: string, doing: string): number {
    let fd: number;
    try {
      fd = fs.openSync(this.file(name), READ);
    } catch (error) {
      throw this.#openError(name, error, doing);
    }
    let stat: fs.Stats;
    try {
      stat = fs.fstatSync(fd);
    } catch (error) {
      fs.closeSync(fd);
      throw this.#openError(name, error, doing);
    }
    if (!stat.isFile()) {
      fs.closeSync(fd);
      throw this.#notAFile(name, stat);
    }
    return fd;
  }

  /** Reads a regular file as UTF-8 text (see {@link DataFolder.read}). */
  readText(name: string): string {
    return this.read(name).toString('utf8');
  }

  /**
   * Creates `name` as a new `600` file (`O_CREAT | O_EXCL | O_NOFOLLOW`) and returns its file
   * descriptor, open for writing. Fails with the `fs` error `EEXIST` when anything has that name,
   * a link included: the caller decides whether the existing one may be removed.
   */
  createExclusive(name: string): number {
    const fd = fs.openSync(this.file(name), O_WRONLY | O_CREAT | O_EXCL | NOFOLLOW | NONBLOCK, FILE_MODE);
    try {
      // The umask filters the mode given to open: set it exactly.
      fs.fchmodSync(fd, FILE_MODE);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
    return fd;
  }

  /** Removes `name` if present: a link is removed itself, never its target. A folder is refused. */
  remove(name: string): void {
    try {
      fs.unlinkSync(this.file(name));
    } catch (error) {
      if (code(error) !== 'ENOENT') throw error;
    }
  }

  /**
   * Writes a file whole and atomically: the stale temporary file (or a link in its place) is
   * removed, a new `600` temporary file is created exclusively, written, flushed and renamed
   * over `name` (replacing a link there, not its target), then the folder is flushed.
   */
  writeAtomic(name: string, data: string | Uint8Array): void {
    const temp = `${name}${TEMP_SUFFIX}`;
    this.remove(temp);
    const fd = this.createExclusive(temp);
    try {
      writeAll(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(this.file(temp), this.file(name));
    this.sync();
  }

  /**
   * Opens an existing regular file for appending, never through a link (`O_NOFOLLOW`, and the
   * opened file checked). Create it with {@link DataFolder.writeAtomic} first.
   */
  openAppend(name: string): number {
    let fd: number;
    try {
      fd = fs.openSync(this.file(name), O_WRONLY | O_APPEND | NOFOLLOW | NONBLOCK);
    } catch (error) {
      throw this.#openError(name, error, 'write');
    }
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) {
      fs.closeSync(fd);
      throw this.#notAFile(name, stat);
    }
    return fd;
  }

  /**
   * Makes sure `name` is a regular file, creating it empty (`600`) when missing, and returns its
   * path: for an engine that opens its own files (a database and its side files). Throws
   * {@link DataError} when a link or anything else has that name, or when the file is read-only
   * (the server would write it). An existing file's mode is left as it is: {@link DataFolder.restrict}
   * narrows it once the engine has found the file to be its own.
   */
  prepareFile(name: string): string {
    const file = this.file(name);
    try {
      fs.closeSync(this.createExclusive(name));
      return file;
    } catch (error) {
      if (code(error) !== 'EEXIST') throw new DataError(`Cannot create ${file}: ${describeFsError(error)}.`);
    }
    this.checkWritable(name);
    return file;
  }

  /**
   * Refuses a regular file that its owner cannot both read and write (a file made read-only, say
   * `chmod 400`, to keep it as it is): its mode is not changed behind the owner's back.
   */
  checkWritable(name: string): fs.Stats {
    const stat = this.stat(name);
    if ((stat.mode & FILE_MODE) !== FILE_MODE) {
      const file = this.file(name);
      throw new DataError(
        `${file} is read-only (mode ${octal(stat.mode)}), and the server writes it: it is left as it is. Run \`chmod 600 ${file}\` if the server may write it, or give --data a copy of the folder.`,
      );
    }
    return stat;
  }

  /** Narrows a file's mode to `600` (a file of an engine that checked it is its own); a link or anything else is refused. */
  restrict(name: string): void {
    const fd = this.#openRead(name, 'use');
    try {
      if ((fs.fstatSync(fd).mode & 0o777) !== FILE_MODE) fs.fchmodSync(fd, FILE_MODE);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Flushes the folder's entries (renames, creations) to disk, where the platform can. */
  sync(): void {
    let fd: number;
    try {
      fd = fs.openSync(this.path, O_RDONLY);
    } catch {
      return;
    }
    try {
      fs.fsyncSync(fd);
    } catch {
      // Not every platform can flush a folder (Windows); the rename itself is atomic there too.
    } finally {
      fs.closeSync(fd);
    }
  }

  #notAFile(name: string, stat: fs.Stats): DataError {
    const what = stat.isSymbolicLink() ? 'a symbolic link' : stat.isDirectory() ? 'a folder' : stat.isFIFO() ? 'a FIFO' : stat.isSocket() ? 'a socket' : 'not a regular file';
    return new DataError(`${this.file(name)} is ${what}: the data folder holds regular files only, and nothing is read or written through a link. Move it away; the server writes its own.`);
  }

  #openError(name: string, error: unknown, doing: string): DataError {
    // O_NOFOLLOW on a link: ELOOP (Linux, macOS) or EMLINK (FreeBSD).
    if (code(error) === 'ELOOP' || code(error) === 'EMLINK') {
      return new DataError(`${this.file(name)} is a symbolic link: the data folder holds regular files only, and nothing is read or written through a link. Move it away; the server writes its own.`);
    }
    // O_NONBLOCK for writing on a FIFO nobody reads: ENXIO.
    if (code(error) === 'ENXIO') {
      return new DataError(`${this.file(name)} is not a regular file: the data folder holds regular files only. Move it away; the server writes its own.`);
    }
    return new DataError(`Cannot ${doing} ${this.file(name)}: ${describeFsError(error)}.`);
  }
}

/** Writes all of `data` at the file's position (a short write is continued). */
export function writeAll(fd: number, data: string | Uint8Array): void {
  const buffer = typeof data === 'string' ? Buffer.from(data) : data;
  let offset = 0;
  while (offset < buffer.length) offset += fs.writeSync(fd, buffer, offset, buffer.length - offset);
}
