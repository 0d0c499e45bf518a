/**
 * What the runners share: output (text or JSON lines), the client of a running server, exit
 * codes, and the way errors become a message and a code.
 * @module
 */
import { PixUsdt, isPixUsdtError } from '../../index.js';
import type { Connection } from '../commands/connection.js';

/** Exit codes of every command (docs/server-and-msw.md, "Exit codes"). */
export const EXIT = {
  ok: 0,
  /** The command ran and failed: an error answer, a scenario that could not finish, a failed resend. */
  failure: 1,
  usage: 2,
  /** No answer from `--url`: nothing listens there, or the connection broke. */
  unreachable: 3,
  /** The server refused the API key (401) or its capabilities (403). */
  refused: 4,
  /** An optional package the command needs is not installed (`serve --data` needs `libsql`): the message says what to install. */
  dependency: 5,
} as const;

/**
 * The process as a runner sees it: where it writes (stdout carries results, text or JSON lines;
 * stderr progress and errors), the signals that stop it, and its exit. The CLI hands the real
 * process's (src/server/cli/process-io.ts); a runner never reads `process` for these itself.
 */
export interface Io {
  stdout(line: string): void;
  stderr(line: string): void;
  /** Resolves with the first SIGINT or SIGTERM. */
  untilSignal(): Promise<NodeJS.Signals>;
  /** Calls `stop` on every SIGINT and SIGTERM, and once the process that started this one is gone (`serve`, `listen`; said again every half second). */
  onStop(stop: (why: string) => void): void;
  /** Ends the process with `code` (a server that has stopped: pending webhook retries must not keep it alive). */
  exit(code: number): void;
}

/** Prints one result: `record` as a JSON line with `--json`, else `text`. */
export function print(io: Io, connection: Pick<Connection, 'json'>, record: Record<string, unknown>, text: string): void {
  io.stdout(connection.json ? JSON.stringify(record) : text);
}

/** The client of the server at `--url`. One retry: a CLI should fail fast when nothing listens. */
export function clientOf(connection: Connection): PixUsdt {
  return new PixUsdt({ apiKey: connection.apiKey, baseUrl: connection.url, maxRetries: 1, timeoutMs: 15_000 });
}

/** Prints what went wrong and what to do next on stderr; answers the exit code. */
export function fail(io: Io, connection: Connection, error: unknown, doing: string): number {
  const prefix = `pix-usdt-sandbox: ${doing}:`;
  if (isPixUsdtError(error)) {
    if (error.name === 'ConnectionError' || error.name === 'TimeoutError') {
      io.stderr(`${prefix} cannot reach the server at ${connection.url} (${error.message}). Is \`pix-usdt-sandbox serve\` running there? Set --url or PIX_USDT_SANDBOX_URL to the "url" it printed.`);
      return EXIT.unreachable;
    }
    const request = error.requestId === null ? '' : ` (request ${error.requestId})`;
    if (error.status === 401) {
      io.stderr(`${prefix} the server refused the API key${request}: ${error.message} Use the "api_key" that serve printed (--api-key or PIX_USDT_API_KEY).`);
      return EXIT.refused;
    }
    if (error.status === 403) {
      io.stderr(`${prefix} the API key lacks a capability${request}: ${error.message}`);
      return EXIT.refused;
    }
    const code = error.code ?? 'error';
    io.stderr(`${prefix} ${error.status ?? ''} ${error.message.startsWith(code) ? error.message : `${code}: ${error.message}`}${request}`.replace(/ {2,}/g, ' '));
    return EXIT.failure;
  }
  io.stderr(`${prefix} ${error instanceof Error ? error.message : String(error)}`);
  return EXIT.failure;
}
