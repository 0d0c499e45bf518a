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

/**
 * What went wrong, as `--json` prints it under `error` (beside `"ok": false`): the API's own
 * `code`, `status` and `request_id` for an error answer, else the command's code
 * (`server_unreachable`, `scenario_failed`, `file_unreadable`, `invalid_scenario_file`,
 * `usage_error`, ...), and a message a person can read.
 */
export interface Failure {
  code: string;
  message: string;
  status?: number;
  request_id?: string;
}

/** A failure's exit code, its line for stderr, and its record for `--json`. */
export interface DescribedFailure {
  exit: number;
  text: string;
  failure: Failure;
}

/** Describes `error` met while `doing` something against the server at `connection.url`. */
export function describeFailure(connection: Pick<Connection, 'url'>, error: unknown, doing: string): DescribedFailure {
  const prefix = `pix-usdt-sandbox: ${doing}:`;
  if (isPixUsdtError(error)) {
    if (error.name === 'ConnectionError' || error.name === 'TimeoutError') {
      const message = `cannot reach the server at ${connection.url} (${error.message})`;
      return {
        exit: EXIT.unreachable,
        text: `${prefix} ${message}. Is \`pix-usdt-sandbox serve\` running there? Set --url or PIX_USDT_SANDBOX_URL to the "url" it printed.`,
        failure: { code: 'server_unreachable', message },
      };
    }
    const request = error.requestId === null ? '' : ` (request ${error.requestId})`;
    const code = error.code ?? 'error';
    const failure: Failure = { code, message: error.message, ...(error.status === undefined ? {} : { status: error.status }), ...(error.requestId === null ? {} : { request_id: error.requestId }) };
    if (error.status === 401) {
      return { exit: EXIT.refused, failure, text: `${prefix} the server refused the API key${request}: ${error.message} Use the "api_key" that serve printed (--api-key or PIX_USDT_API_KEY).` };
    }
    if (error.status === 403) return { exit: EXIT.refused, failure, text: `${prefix} the API key lacks a capability${request}: ${error.message}` };
    return {
      exit: EXIT.failure,
      failure,
      text: `${prefix} ${error.status ?? ''} ${error.message.startsWith(code) ? error.message : `${code}: ${error.message}`}${request}`.replace(/ {2,}/g, ' '),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { exit: EXIT.failure, text: `${prefix} ${message}`, failure: { code: 'error', message } };
}

/**
 * Reports a failure: its line on stderr and, with `--json`, one JSON line on stdout, `record`
 * (what the command did before failing) with `"ok": false` and the `error`. Answers the exit code.
 */
export function report(io: Io, connection: Pick<Connection, 'json'>, described: DescribedFailure, record: Record<string, unknown> = {}): number {
  io.stderr(described.text);
  if (connection.json) io.stdout(JSON.stringify({ ...record, ok: false, error: described.failure }));
  return described.exit;
}

/** Prints what went wrong and what to do next (and, with `--json`, the failure on stdout); answers the exit code. */
export function fail(io: Io, connection: Connection, error: unknown, doing: string, record: Record<string, unknown> = {}): number {
  return report(io, connection, describeFailure(connection, error, doing), record);
}
