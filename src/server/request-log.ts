/**
 * The server's request log in memory (the last 1,000 answered requests) and its live feed:
 * server-sent events at `/_sandbox/logs`, outside `/v1` so it cannot collide with the API, for
 * `pix-usdt-sandbox logs tail`. Entries hold no key, header, query string or body.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newRequestId, writeEnvelope } from './adapter.js';

/** One answered request, as `logs tail` prints it. */
export interface LoggedRequest {
  /** Real time of the answer (ISO 8601), not the sandbox clock. */
  at: string;
  request_id: string;
  method: string;
  /** Without the query string. */
  path: string;
  status: number;
  /** Milliseconds from the request to the end of the answer. */
  latency_ms: number;
  /** The answer was an idempotent replay (`Idempotent-Replayed: true`). */
  replayed: boolean;
  /** The id of the injected fault plan that answered, or `null`. */
  fault: string | null;
}

/** The path of the live feed. */
export const LOG_STREAM_PATH = '/_sandbox/logs';

const CAPACITY = 1000;
const HEARTBEAT_MS = 15_000;
/** A client that does not read is cut off once this much is waiting for it. */
const MAX_BUFFERED_BYTES = 1_000_000;

/** A bounded in-memory request log with live subscribers. */
export class RequestLog {
  readonly #entries: LoggedRequest[] = [];
  readonly #streams = new Set<ServerResponse>();
  readonly #capacity: number;

  constructor(capacity = CAPACITY) {
    this.#capacity = capacity;
  }

  /** Records an entry and sends it to every open stream. */
  add(entry: LoggedRequest): void {
    this.#entries.push(entry);
    if (this.#entries.length > this.#capacity) this.#entries.shift();
    const frame = `data: ${JSON.stringify(entry)}\n\n`;
    for (const res of this.#streams) {
      if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
      else res.write(frame);
    }
  }

  /** The entries kept, oldest first. */
  recent(): readonly LoggedRequest[] {
    return this.#entries;
  }

  /**
   * Answers a request to {@link LOG_STREAM_PATH}: 401 unless `authorize` accepts its
   * `Authorization` header, then an endless `text/event-stream`, one `data:` frame per request.
   * `?backlog=N` first sends the last N entries kept.
   */
  async stream(req: IncomingMessage, res: ServerResponse, authorize: (authorization: string | undefined) => Promise<boolean>): Promise<void> {
    // Refusals in the API's envelope, with a request id, as on /v1.
    const reject = (status: number, code: string, message: string, headers: Record<string, string> = {}): void => writeEnvelope(res, { status, code, message }, headers);
    if (req.method !== 'GET') return reject(405, 'method_not_allowed', `Use GET ${LOG_STREAM_PATH}.`, { allow: 'GET' });
    if (!(await authorize(req.headers.authorization))) {
      return reject(401, 'authentication_failed', 'Send an API key of this server: Authorization: Bearer <key>.');
    }
    const backlog = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('backlog') ?? '0');
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no', 'x-request-id': newRequestId() });
    // A comment first: the client knows it is subscribed before any request is logged.
    res.write(': pix-usdt-sandbox request log\n\n');
    if (Number.isInteger(backlog) && backlog > 0) {
      for (const entry of this.#entries.slice(-backlog)) res.write(`data: ${JSON.stringify(entry)}\n\n`);
    }
    this.#streams.add(res);
    const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const drop = (): void => {
      clearInterval(heartbeat);
      this.#streams.delete(res);
    };
    res.once('close', drop);
    req.socket.setTimeout(0);
  }

  /** Ends every open stream (the server is stopping: they would hold `close` open forever). */
  closeStreams(): void {
    for (const res of this.#streams) res.end();
    this.#streams.clear();
  }
}
