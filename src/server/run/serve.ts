/**
 * `serve`: starts the server with the options the command built, prints the ready line, and stops
 * on SIGINT/SIGTERM or when its parent goes away (`io.onStop`).
 * @module
 */
import type { ServeOptions } from '../commands/serve.js';
import { MissingDependencyError } from '../data/driver.js';
import { type RunningServer, startServer } from '../http/start.js';
import { EXIT, type Io } from './io.js';

/** The line printed on stdout once listening (keys may be added, never removed). */
export interface ReadyLine {
  url: string;
  api_key: string;
  tenant_id: string;
  /** The inspector's console (an added key: the others stay). */
  inspector_url: string;
  /** The operator's key: `logs tail` with it streams every tenant's requests (an added key). */
  control_key: string;
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
      io.exit(EXIT.ok);
    });
  };
  let ready: ReadyLine;
  try {
    ready = { url: server.url, api_key: server.sandbox.apiKey, tenant_id: server.sandbox.tenantId, inspector_url: server.inspectorUrl, control_key: server.controlKey };
  } catch (error) {
    // The default tenant's key cannot be read (a damaged --data database): stop as a failed start,
    // the folder released.
    log(`pix-usdt-sandbox: cannot start: the default tenant's API key cannot be read: ${(error as Error).message}`);
    await server.close();
    return EXIT.failure;
  }
  io.onStop(stop);
  io.stdout(JSON.stringify(ready));
  log(`pix-usdt-sandbox: ${server.sandbox.environment} listening on ${server.url} (Ctrl-C to stop)`);
  return null;
}
