/**
 * The process as the runners see it ({@link Io}, run/io.ts): its streams, its signals, the
 * watch on the process that started it, its exit. The only place the runners' process handling
 * lives, so that a runner is a function of its options and an `Io`.
 * @module
 */
import { fstatSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';
import { processAlive } from '../process.js';
import type { Io } from '../run/io.js';

/** How often the parent's liveness is checked. */
const PARENT_CHECK_MS = 500;

/**
 * Calls `stop` once the process that started this one is gone. `npx` (and shells, and Python's
 * `Popen.terminate()`) do not always pass their signal on, and a server left running holds its
 * port and answers the next test run with stale state. Two signs, whichever comes first: the
 * parent pid changes or stops existing (polled on an unref'd timer: on Linux and macOS an orphan
 * is re-parented, on Windows the pid disappears), or stdin is a pipe and it closes (its writer,
 * usually the parent, is gone). stdin that is a terminal or a file (or /dev/null, as for
 * `cmd &` in a script) is not watched.
 */
function stopWithParent(stop: (why: string) => void): void {
  const parent = process.ppid;
  // pid 1 (or none) as parent: started by init or a container runtime; there is nothing to outlive.
  if (parent > 1) {
    const timer = setInterval(() => {
      if (process.ppid !== parent || !processAlive(parent)) stop('its parent process exited');
    }, PARENT_CHECK_MS);
    timer.unref();
  }
  let stdin;
  try {
    stdin = fstatSync(0);
  } catch {
    return; // no stdin at all
  }
  if (stdin.isFIFO() || stdin.isSocket()) {
    process.stdin.on('end', () => stop('its stdin closed'));
    process.stdin.on('error', () => stop('its stdin closed'));
    process.stdin.resume(); // read and discard: only the end matters
  }
}

// stderr lines go out once per turn of the event loop, in one write: `serve` writes a line per
// answered request, and a write (a system call) each was about a tenth of a GET's own CPU
// (bench/server.ts). A kill loses at most the lines of the turn it lands in; an exit writes them
// first (`exit` below, and the process's `exit` event for any other way out).
// The lines of this turn as one string (a rope V8 flattens once, at the write): no array to join.
let pending = '';
let flushing = false;

/**
 * Whether stderr is a file or a device other than a terminal (`2>log`, `2>/dev/null`, a spawn's
 * `'ignore'`): Node writes those synchronously anyway (its `SyncWriteStream`), so the flush calls
 * `writeSync` itself and skips the stream's machinery. A terminal, a pipe or a socket keeps
 * `process.stderr` (asynchronous, with back-pressure).
 */
function stderrIsFile(): boolean {
  try {
    const stat = fstatSync(2);
    return stat.isFile() || (stat.isCharacterDevice() && !isatty(2));
  } catch {
    return false;
  }
}

let direct: boolean | undefined;

function flushStderr(): void {
  flushing = false;
  if (pending.length === 0) return;
  const text = pending;
  pending = '';
  direct ??= stderrIsFile();
  if (!direct) {
    process.stderr.write(text);
    return;
  }
  // Most turns: one write of the string (no Buffer of our own); a short write goes on from its bytes.
  let sent = 0;
  try {
    sent = writeSync(2, text);
    if (sent === Buffer.byteLength(text)) return;
    const bytes = Buffer.from(text, 'utf8');
    while (sent < bytes.length) sent += writeSync(2, bytes, sent, bytes.length - sent);
  } catch {
    // A file that can no longer be written (a full disk): the rest, and every later line, through
    // the stream, which reports it as Node would.
    direct = false;
    process.stderr.write(sent === 0 ? text : Buffer.from(text, 'utf8').subarray(sent));
  }
}

process.on('exit', flushStderr);

/** The real process. */
export const processIo: Io = {
  stdout: (line) => void process.stdout.write(`${line}\n`),
  stderr(line) {
    pending += `${line}\n`;
    if (!flushing) {
      flushing = true;
      setImmediate(flushStderr);
    }
  },
  untilSignal() {
    return new Promise((resolve) => {
      const on = (signal: NodeJS.Signals): void => {
        process.off('SIGINT', on);
        process.off('SIGTERM', on);
        resolve(signal);
      };
      process.on('SIGINT', on);
      process.on('SIGTERM', on);
    });
  },
  onStop(stop) {
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    stopWithParent(stop);
  },
  // After every earlier write is flushed (the empty write's callback comes after them).
  exit(code) {
    flushStderr();
    process.stdout.write('', () => process.exit(code));
  },
};
