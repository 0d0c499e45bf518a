/**
 * The data folder itself: checks, creation, the lock, and the files the server creates in it.
 * Nothing here is written before everything is read and checked (a refused folder is left as it was).
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { processAlive } from '../process.js';

/** Why a data folder cannot be used. The CLI prints the message and exits with code 1. */
export class DataError extends Error {
  override readonly name = 'DataError';
}

/** A short reason for a file system error. */
export function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS') return 'permission denied';
  return e.code ?? (error instanceof Error ? error.message : String(error));
}

/** The lock file: the pid of the server using the folder. */
export const LOCK = 'lock';

/** Resolves the folder and creates it when missing (readable by its owner only). */
export function prepareFolder(dirArg: string): string {
  const dir = path.resolve(dirArg);
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) throw new DataError(`${dir} is not a folder. Give --data a folder (it is created when missing).`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new DataError(`Cannot create the data folder ${dir}: ${describe(error)}.`);
  }
  return dir;
}

function writeAll(fd: number, data: string): void {
  const buffer = Buffer.from(data);
  let offset = 0;
  while (offset < buffer.length) offset += fs.writeSync(fd, buffer, offset, buffer.length - offset);
}

/** Takes the folder's lock (a server killed with -9 leaves a lock whose pid is gone: taken over). */
export function lock(dir: string): () => void {
  const file = path.join(dir, LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
      writeAll(fd, `${process.pid}\n`);
      fs.closeSync(fd);
      return () => fs.rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new DataError(`Cannot write in ${dir}: ${describe(error)}. Give --data a folder this user can write to.`);
      }
      const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(pid) && pid !== process.pid && processAlive(pid)) {
        throw new DataError(`${dir} is in use by another sandbox server (pid ${pid}). Stop it, or give --data another folder.`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new DataError(`Cannot take the lock ${file}. Remove it if no server uses ${dir}.`);
}

/** Creates an empty file readable by its owner only, refusing to follow a symbolic link; an existing one is kept. */
export function ensurePrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (fs.lstatSync(file).isSymbolicLink()) throw new DataError(`${file} is a symbolic link: the data folder writes no file through one. Replace it with the file itself.`);
  }
}
