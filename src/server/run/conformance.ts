/**
 * `conformance`: runs pix-usdt/parity's scenarios against `--url` (`runConformanceCommand`),
 * writes the table (or `--json`) to stdout, progress to stderr, `--junit FILE` and
 * `--record FILE`. With `--receiver-port` it also listens for the webhooks a tunnel forwards from
 * `--receiver-url`, so signatures are checked too.
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { runConformanceCommand } from '../../parity/command.js';
import { recordingFetch, type ReceivedWebhook } from '../../parity/index.js';
import type { ConformanceOptions } from '../commands/conformance.js';
import type { Io } from './io.js';

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
  return {
    received,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Runs `conformance`: 0 every promise holds, 1 one differs or a scenario could not finish, 2 unusable options. */
export async function runConformance(options: ConformanceOptions, io: Io): Promise<number> {
  // The library writes whole texts, newline included; the Io writes lines.
  const line = (write: (line: string) => void) => (text: string) => write(text.replace(/\n$/, ''));
  const receiver = options.receiverPort === undefined ? undefined : await listen(options.receiverPort);
  const recorder = options.record === undefined ? undefined : recordingFetch((input, init) => globalThis.fetch(input, init));
  try {
    return await runConformanceCommand(
      {
        baseUrl: options.url,
        apiKey: options.apiKey,
        receiverUrl: options.receiverUrl,
        received: receiver === undefined ? undefined : () => receiver.received,
        scenarios: options.scenarios,
        exerciseRateLimit: options.rateLimit,
        pacing: options.pacing ? undefined : false,
        json: options.json,
        junit: options.junit,
        fetch: recorder,
        tenant: options.tenant,
      },
      { stdout: line(io.stdout), stderr: line(io.stderr), writeFile: (path, text) => writeFile(path, text, 'utf8') },
    );
  } finally {
    receiver?.close();
    if (recorder !== undefined && options.record !== undefined) {
      await writeFile(options.record, recorder.serialize(), 'utf8');
      io.stderr(`pix-usdt-sandbox conformance: ${recorder.cassette.exchanges.length} exchanges recorded to ${options.record}`);
    }
  }
}
