/**
 * bin `pix-usdt-sandbox`, the CLI's room: this entry, the program that parses the command line
 * (program.ts), the help's wrapping (help.ts) and the process the runners act through
 * (process-io.ts). `serve` starts the sandbox as an HTTP(S) server; `listen`, `trigger`,
 * `logs tail` and `resend` drive a running one; `conformance` checks any deployment of the API
 * against the reference. Each command is a definition in ../commands/ and a runner in ../run/.
 * `serve` prints exactly one JSON line on stdout once listening and logs to stderr. Exit codes:
 * 0 ok, 1 failure (or a server that cannot start), 2 usage error, 3 server unreachable, 4 API key
 * refused, 5 an optional package missing.
 * @module
 */
import { version } from '../../../package.json';
import { UsageError, parseCommand } from './program.js';
import { terminalWidth } from './help.js';
import { EXIT, report } from '../run/io.js';
import { run } from '../run/index.js';
import { processIo } from './process-io.js';

// A reader that went away (a closed pipe) must not turn into an uncaught EPIPE.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

// With --json every failure is a JSON line on stdout too (`"ok": false` and its `error`), a usage error included.
const json = { json: process.argv.slice(2).includes('--json') };

async function main(argv: readonly string[]): Promise<number | null> {
  let command;
  try {
    command = parseCommand(argv, { helpWidth: terminalWidth() });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return report(processIo, json, { exit: EXIT.usage, text: `pix-usdt-sandbox: ${error.message}`, failure: { code: 'usage_error', message: error.message } });
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
    if (code !== null) processIo.exit(code);
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    processIo.exit(report(processIo, json, { exit: EXIT.failure, text: `pix-usdt-sandbox: ${message}`, failure: { code: 'error', message } }));
  },
);
