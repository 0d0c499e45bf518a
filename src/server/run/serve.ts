/**
 * `serve`: starts the server, prints the ready line, and stops on SIGINT/SIGTERM or when its
 * parent goes away.
 * @module
 */
import { fstatSync } from 'node:fs';
import type { ServeOptions } from '../commands/serve.js';
import { type ReadyLine, type RunningServer, startServer } from '../http/start.js';
import { EXIT, type Io } from './io.js';
import { processAlive } from '../process.js';
import { MissingDependencyError } from '../data/driver.js';

/** How often the parent's liveness is checked. */
const PARENT_CHECK_MS = 500;


/**
 * Calls `stop` once the process that started the server is gone. `npx` (and shells, and
 * Python's `Popen.terminate()`) do not always pass their signal on, and a server left running
 * holds its port and answers the next test run with stale state. Two signs, whichever comes
 * first: the parent pid changes or stops existing (polled on an unref'd timer: on Linux and
 * macOS an orphan is re-parented, on Windows the pid disappears), or stdin is a pipe and it
 * closes (its writer, usually the parent, is gone). stdin that is a terminal or a file (or
 * /dev/null, as for `cmd &` in a script) is not watched.
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

/** Runs `serve`: `null` while the server runs (it exits the process itself once stopped). */
export async function runServe(options: ServeOptions, io: Io): Promise<number | null> {
  const log = (line: string): void => io.stderr(line);
  let server: RunningServer;
  try {
    server = await startServer(options, log);
  } catch (error) {
    if (error instanceof MissingDependencyError) {
      log(`pix-usdt-sandbox: cannot start: ${error.message}`);
      return EXIT.dependency;
    }
    const e = error as NodeJS.ErrnoException;
    log(`pix-usdt-sandbox: cannot start: ${e.code === 'EADDRINUSE' ? `port ${options.port} is in use (try --port 0)` : e.message}`);
    return EXIT.failure;
  }
  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) {
      // A second signal: stop waiting for slow clients.
      server.forceClose();
      return;
    }
    stopping = true;
    log(`pix-usdt-sandbox: ${why}, finishing requests in flight`);
    void server.close().then(() => {
      log('pix-usdt-sandbox: stopped');
      // Pending webhook retries must not keep the process alive.
      process.exit(EXIT.ok);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  stopWithParent(stop);
  const ready: ReadyLine = { url: server.url, api_key: server.sandbox.apiKey, tenant_id: server.sandbox.tenantId, inspector_url: server.inspectorUrl, control_key: server.controlKey };
  io.stdout(JSON.stringify(ready));
  log(`pix-usdt-sandbox: ${server.sandbox.environment} listening on ${server.url} (Ctrl-C to stop)`);
  return null;
}
