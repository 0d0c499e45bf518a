/**
 * bin `pix-usdt-sandbox`: `serve` starts the sandbox as an HTTP(S) server; `listen`, `trigger`,
 * `logs tail` and `resend` drive a running one; `conformance` checks any deployment of the API
 * against the reference (src/server/conformance.ts). `serve` prints exactly one JSON line on stdout
 * once listening and logs to stderr. Exit codes: 0 ok, 1 failure (or a server that cannot
 * start), 2 usage error, 3 server unreachable, 4 API key refused.
 * @module
 */
import { version } from '../../../package.json';
import { UsageError, parseCommand } from './program.js';
import { terminalWidth } from './help.js';
import { EXIT, processIo } from '../run/io.js';
import { run } from '../run/index.js';

// A reader that went away (a closed pipe) must not turn into an uncaught EPIPE.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

async function main(argv: readonly string[]): Promise<number | null> {
  let command;
  try {
    command = parseCommand(argv, { helpWidth: terminalWidth() });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    processIo.stderr(`pix-usdt-sandbox: ${error.message}`);
    return EXIT.usage;
  }
  if (command.kind === 'help') {
    process.stdout.write(command.text);
    return EXIT.ok;
  }
  if (command.kind === 'version') {
    process.stdout.write(`${version}\n`);
    return EXIT.ok;
  }
  return run(command, processIo);
}

main(process.argv.slice(2)).then(
  (code) => {
    // A command that is done exits now: keep-alive sockets of its client must not hold it open.
    // The empty write's callback comes after every earlier write is flushed.
    if (code !== null) process.stdout.write('', () => process.exit(code));
  },
  (error: unknown) => {
    processIo.stderr(`pix-usdt-sandbox: ${error instanceof Error ? error.message : String(error)}`);
    process.stdout.write('', () => process.exit(EXIT.failure));
  },
);
