/**
 * The data folder's writer thread: `serve --data` commits its group commits on a connection of
 * its own, on a worker thread, so that the main thread goes on answering while SQLite runs the
 * statements, writes the pages of the write-ahead log and checkpoints it (about a third of the
 * `--data` server's CPU a lifecycle, docs/performance.md). Nothing changes for durability: an
 * answer still leaves only once its transaction committed (core's `done`), and a failed commit
 * fails its answers and what was captured after it (sandbox/stored.ts).
 *
 * The thread runs the storage port's own {@link applyChanges} (its source, handed over: the
 * function has no free variable) inside `BEGIN IMMEDIATE`/`COMMIT`, one change set after the other.
 * A read on the main thread first settles: it blocks (`Atomics.wait`) until every change set
 * handed over is committed and takes the answers synchronously (`receiveMessageOnPort`), so that
 * it reads what was written. The thread is started from an inline script with the absolute path
 * of the SQLite package: it resolves nothing itself (a package installed through symlinks, an
 * `npx` cache, a bundled CLI).
 * @module
 */
import { createRequire } from 'node:module';
import { type MessagePort, MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { StorageError } from '../../sandbox/storage/port.js';
import type { ChangeSet } from '../../sandbox/storage/port.js';
import { type BackgroundWriter, WRITE_STATEMENTS, applyChanges } from '../../sandbox/storage/sql.js';
import { SQLITE_PACKAGE } from './driver.js';

/** What the thread is started with. */
interface WriterData {
  file: string;
  libsql: string;
  signal: SharedArrayBuffer;
  port: MessagePort;
  sql: typeof WRITE_STATEMENTS.sql;
  tables: readonly string[];
  pragmas: readonly string[];
  busyMs: number;
}

/** A change set's outcome, as the thread sends it. */
interface Outcome {
  id: number;
  error: { message: string; code: string | undefined; refused: boolean } | null;
}

/**
 * The thread's loop, as source: plain JavaScript in a string, so that no build step renames or
 * wraps anything in it (a build that keeps names wraps inner functions in a helper of its own
 * module). `apply` is {@link applyChanges}'s own source (no inner function, no free variable).
 */
const WRITER_SOURCE = `
const wt = require('node:worker_threads');
const data = wt.workerData;
const apply = APPLY;
const Database = require(data.libsql);
const db = new Database(data.file, { timeout: data.busyMs });
for (const pragma of data.pragmas) db.exec(pragma);
const statements = new Map();
function prepared(sql) {
  let s = statements.get(sql);
  if (s === undefined) statements.set(sql, (s = db.prepare(sql)));
  return s;
}
const driver = {
  all(sql, params = []) { return prepared(sql).all(...params); },
  run(sql, params = []) { prepared(sql).run(...params); },
};
function refuse(message) {
  throw Object.assign(new Error(message), { refused: true });
}
const signal = new Int32Array(data.signal);
data.port.on('message', (message) => {
  if (message.close === true) {
    statements.clear();
    db.close();
    data.port.close();
    // Closed: the main thread may now fold the log into the file (no other connection open).
    Atomics.store(signal, 1, 1);
    Atomics.notify(signal, 1);
    return;
  }
  let error = null;
  try {
    db.exec('BEGIN IMMEDIATE');
    try {
      apply(driver, message.changes, data.sql, data.tables, refuse);
      db.exec('COMMIT');
    } catch (e) {
      if (db.inTransaction) {
        try { db.exec('ROLLBACK'); } catch {}
      }
      throw e;
    }
  } catch (e) {
    error = { message: String((e && e.message) ?? e), code: e && typeof e.code === 'string' ? e.code : undefined, refused: !!(e && e.refused === true) };
  }
  // The answer first, then the mark a settling main thread waits on.
  data.port.postMessage({ id: message.id, error });
  Atomics.store(signal, 0, message.id);
  Atomics.notify(signal, 0);
});
`;

/** How long a settling read waits for the thread at most before it gives up (a thread that died). */
const SETTLE_LIMIT_MS = 60_000;
const WAIT_SLICE_MS = 50;

/** The error a change set failed with on the thread, as the main thread's commit would have thrown it. */
function errorOf(error: NonNullable<Outcome['error']>): Error {
  if (error.refused) return new StorageError('write', error.message);
  return Object.assign(new Error(error.message), error.code === undefined ? {} : { code: error.code });
}

/**
 * Starts the writer thread over a database file already in write-ahead-log mode. `pragmas` are
 * the connection's settings (the main connection's: `synchronous`, the log's size and checkpoints).
 */
export function startWriter(file: string, pragmas: readonly string[]): BackgroundWriter & { close(): void } {
  const libsql = createRequire(import.meta.url).resolve(SQLITE_PACKAGE);
  // [0]: the id of the last change set done; [1]: 1 once the thread's connection is closed.
  const signal = new SharedArrayBuffer(8);
  const marks = new Int32Array(signal);
  const channel = new MessageChannel();
  const port = channel.port1;
  const data: WriterData = { file, libsql, signal, port: channel.port2, sql: WRITE_STATEMENTS.sql, tables: WRITE_STATEMENTS.tables, pragmas, busyMs: 5_000 };
  const source = WRITER_SOURCE.replace('APPLY', () => applyChanges.toString());
  const worker = new Worker(source, { eval: true, workerData: data, transferList: [channel.port2] });
  worker.unref();
  const queue: Array<{ id: number; done: (error: unknown) => void }> = [];
  let nextId = 1;
  let stopped: Error | null = null;

  const handle = (outcome: Outcome): void => {
    const entry = queue.shift();
    if (entry === undefined || entry.id !== outcome.id) throw new Error(`the writer thread answered change set ${outcome.id} out of order`);
    if (queue.length === 0) port.unref();
    entry.done(outcome.error === null ? null : errorOf(outcome.error));
  };
  // A thread that is gone fails what it holds, and everything handed over after.
  const stop = (error: Error): void => {
    stopped ??= error;
    for (const entry of queue.splice(0)) entry.done(stopped);
    port.unref();
  };
  port.on('message', handle);
  port.unref();
  worker.on('error', (error) => stop(new Error(`the writer thread failed: ${error.message}`)));
  worker.on('exit', (code) => stop(new Error(`the writer thread stopped (exit code ${code})`)));

  return {
    post(changes: ChangeSet, done: (error: unknown) => void): void {
      if (stopped !== null) {
        const error = stopped;
        queueMicrotask(() => done(error));
        return;
      }
      const id = nextId++;
      queue.push({ id, done });
      port.ref();
      port.postMessage({ id, changes });
    },
    settle(): void {
      const deadline = Date.now() + SETTLE_LIMIT_MS;
      while (queue.length > 0) {
        const received = receiveMessageOnPort(port);
        if (received !== undefined) {
          handle(received.message as Outcome);
          continue;
        }
        const seen = Atomics.load(marks, 0);
        // Its mark is set after its answer is sent: the next turn of the loop receives it.
        if (seen >= (queue[0] as { id: number }).id) continue;
        if (Date.now() > deadline) {
          stop(new Error(`the writer thread did not commit within ${SETTLE_LIMIT_MS / 1000} s`));
          return;
        }
        Atomics.wait(marks, 0, seen, WAIT_SLICE_MS);
      }
    },
    close(): void {
      this.settle();
      if (stopped === null) {
        stopped = new Error('the writer thread was closed');
        port.postMessage({ close: true });
        // Its connection closed before the main one checkpoints (bounded: a thread that died closed nothing).
        const deadline = Date.now() + 5_000;
        while (Atomics.load(marks, 1) === 0 && Date.now() < deadline) Atomics.wait(marks, 1, 0, WAIT_SLICE_MS);
      }
      port.close();
      void worker.terminate();
    },
  };
}
