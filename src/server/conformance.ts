/**
 * `pix-usdt-sandbox conformance`: the command-line face of `pix-usdt/parity`. Parses its
 * options, runs the scenarios against `--base-url`, writes the table (or `--json`) to stdout,
 * progress to stderr, and `--junit FILE`. With `--receiver-port` it also listens for the
 * webhooks a tunnel forwards from `--receiver-url`, so signatures are checked too.
 * Exit codes: 0 every promise holds, 1 one differs or a scenario could not finish, 2 usage.
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { recordingFetch, runConformanceCommand, type ReceivedWebhook } from '../parity/index.js';
import { prose, wrap } from './cli/help.js';

/** `conformance --help`, unwrapped (each option on one line); {@link conformanceHelp} wraps it. */
export const CONFORMANCE_HELP = `Usage: pix-usdt-sandbox conformance --base-url URL --api-key KEY [options]

Runs the conformance scenarios of pix-usdt/parity against any deployment of the API (the
platform's sandbox, or this package's sandbox server) and reports where its answers differ
from what the API reference promises. Creates only its own users (external ids prefixed with
the run id) and refuses sk_live_ keys.

Options:
  --base-url URL        the API's base URL (or PIX_USDT_SANDBOX_URL)
  --api-key KEY         a sk_test_ key of that deployment (or PIX_USDT_API_KEY)
  --receiver-url URL    an HTTPS URL that receives webhooks (enables the webhook scenario)
  --receiver-port PORT  listen on 127.0.0.1:PORT for what --receiver-url forwards (a tunnel), so that signatures and the event sequence are checked
  --scenario ID         run only this scenario, or an area with a trailing dot (repeatable)
  --rate-limit          also exhaust the quote limit to observe the 429 (runs last)
  --no-pacing           do not pace requests (a local sandbox only)
  --json                print the report as JSON instead of the table
  --junit FILE          also write the report as JUnit XML to FILE
  --record FILE         also write the run's traffic to FILE as a cassette (keys, secrets and CPFs redacted), for replayFetch and diffCassette
  -h, --help            show this help

Exit codes: 0 every promise of the reference holds (findings may remain), 1 a promise differs
or a scenario could not finish, 2 a usage error (nothing was sent).

See docs/parity.md.
`;

/** `conformance --help` wrapped once, to `width` columns (the terminal's). */
export function conformanceHelp(width = 80): string {
  return wrap(prose(CONFORMANCE_HELP), width);
}

/** Where the command writes. */
export interface ConformanceIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** Columns the help is wrapped to (default 80). */
  helpWidth?: number;
}

async function listen(port: number): Promise<{ received: ReceivedWebhook[]; close(): void }> {
  const received: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => {
      received.push({ headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)])), body });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return { received, close: () => { server.closeAllConnections(); server.close(); } };
}

/** Runs `conformance` with `argv` (the words after `conformance`); resolves with the exit code. */
export async function conformanceMain(argv: readonly string[], io: ConformanceIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'receiver-url': { type: 'string' },
        'receiver-port': { type: 'string' },
        scenario: { type: 'string', multiple: true },
        'rate-limit': { type: 'boolean' },
        'no-pacing': { type: 'boolean' },
        json: { type: 'boolean' },
        junit: { type: 'string' },
        record: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.stderr(`pix-usdt-sandbox conformance: ${(error as Error).message}\nRun \`pix-usdt-sandbox conformance --help\` for the options.\n`);
    return 2;
  }
  if (values.help === true) {
    io.stdout(conformanceHelp(io.helpWidth));
    return 0;
  }
  const baseUrl = values['base-url'] ?? io.env['PIX_USDT_SANDBOX_URL'];
  const apiKey = values['api-key'] ?? io.env['PIX_USDT_API_KEY'];
  if (baseUrl === undefined || apiKey === undefined) {
    io.stderr(`pix-usdt-sandbox conformance: --base-url and --api-key are required (or PIX_USDT_SANDBOX_URL and PIX_USDT_API_KEY).\n`);
    return 2;
  }
  let port: number | undefined;
  if (values['receiver-port'] !== undefined) {
    port = Number(values['receiver-port']);
    if (!Number.isInteger(port) || port < 0 || port > 65_535 || values['receiver-url'] === undefined) {
      io.stderr('pix-usdt-sandbox conformance: --receiver-port takes a port (0-65535) and needs --receiver-url (the public URL that forwards to it).\n');
      return 2;
    }
  }
  const receiver = port === undefined ? undefined : await listen(port);
  const recorder = values.record === undefined ? undefined : recordingFetch((input, init) => globalThis.fetch(input, init));
  try {
    return await runConformanceCommand(
      {
        baseUrl,
        apiKey,
        receiverUrl: values['receiver-url'],
        received: receiver === undefined ? undefined : () => receiver.received,
        scenarios: values.scenario,
        exerciseRateLimit: values['rate-limit'] === true,
        pacing: values['no-pacing'] === true ? false : undefined,
        json: values.json === true,
        junit: values.junit,
        fetch: recorder,
      },
      { stdout: io.stdout, stderr: io.stderr, writeFile: (path, text) => writeFile(path, text, 'utf8') },
    );
  } finally {
    receiver?.close();
    if (recorder !== undefined && values.record !== undefined) {
      await writeFile(values.record, recorder.serialize(), 'utf8');
      io.stderr(`pix-usdt-sandbox conformance: ${recorder.cassette.exchanges.length} exchanges recorded to ${values.record}\n`);
    }
  }
}
