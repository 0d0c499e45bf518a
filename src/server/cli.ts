/**
 * bin `pix-usdt-sandbox`: `serve` starts the sandbox as an HTTP(S) server; `conformance`
 * checks any deployment of the API against the reference (src/server/conformance.ts).
 * stdout carries exactly one JSON line (the URL, the API key and the tenant id) once
 * listening; everything else goes to stderr. Exit codes: 0 after a clean stop, 1 when the
 * server cannot start, 2 on a command-line mistake.
 * @module
 */
import { version } from '../../package.json';
import { UsageError, parseCommand } from './args.js';
import { conformanceMain } from './conformance.js';
import { type ReadyLine, type RunningServer, startServer } from './main.js';

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

function stopOnSignals(server: RunningServer): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal: stop waiting for slow clients.
      server.forceClose();
      return;
    }
    stopping = true;
    log(`pix-usdt-sandbox: ${signal}, finishing requests in flight`);
    void server.close().then(() => {
      log('pix-usdt-sandbox: stopped');
      // Pending webhook retries must not keep the process alive.
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function main(argv: readonly string[]): Promise<number | null> {
  if (argv[0] === 'conformance') {
    return conformanceMain(argv.slice(1), { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t), env: process.env });
  }
  let command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(`pix-usdt-sandbox: ${error.message}`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(command.text);
    return 0;
  }
  if (command.kind === 'version') {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  let server: RunningServer;
  try {
    server = await startServer(command.options, log);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    log(`pix-usdt-sandbox: cannot start: ${e.code === 'EADDRINUSE' ? `port ${command.options.port} is in use (try --port 0)` : e.message}`);
    return 1;
  }
  stopOnSignals(server);
  const ready: ReadyLine = { url: server.url, api_key: server.sandbox.apiKey, tenant_id: server.sandbox.tenantId };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  log(`pix-usdt-sandbox: ${server.sandbox.environment} listening on ${server.url} (Ctrl-C to stop)`);
  return null;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== null) process.exitCode = code;
  },
  (error: unknown) => {
    log(`pix-usdt-sandbox: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
