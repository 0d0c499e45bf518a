/**
 * The server's request log in memory (the last 1,000 answered requests) and its live feed:
 * server-sent events at `/_sandbox/logs`, outside `/v1` so it cannot collide with the API, for
 * `pix-usdt-sandbox logs tail`. Entries hold no key, header, query string or body. A tenant's
 * API key reads its own tenant's requests only; the whole log is the operator's (the control
 * key `serve` prints): no tenant sees another's ids in the paths.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newRequestId, writeEnvelope } from './listener.js';

/** One answered request, as `logs tail` prints it. */
export interface LoggedRequest {
  /** Real time of the answer (ISO 8601), not the sandbox clock. */
  at: string;
  /** The tenant of the caller's API key; `null` when no live key was sent (only the operator sees those). */
  tenant_id: string | null;
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

/** Who reads the feed: every entry (the operator), or one tenant's, as long as its key stays live. */
export type LogReader = { all: true } | { all: false; tenantId: string; live: () => boolean };

function sees(reader: LogReader, entry: LoggedRequest): boolean {
  return reader.all || entry.tenant_id === reader.tenantId;
}

const CAPACITY = 1000;
const HEARTBEAT_MS = 15_000;
/** A client that does not read is cut off once this much is waiting for it. */
const MAX_BUFFERED_BYTES = 1_000_000;

/** A bounded in-memory request log with live subscribers. */
export class RequestLog {
  readonly #entries: LoggedRequest[] = [];
  readonly #streams = new Map<ServerResponse, LogReader>();
  readonly #capacity: number;

  constructor(capacity = CAPACITY) {
    this.#capacity = capacity;
  }

  /** Records an entry and sends it to every open stream. */
  add(entry: LoggedRequest): void {
    this.#entries.push(entry);
    if (this.#entries.length > this.#capacity) this.#entries.shift();
    const frame = `data: ${JSON.stringify(entry)}\n\n`;
    for (const [res, reader] of this.#streams) {
      if (!sees(reader, entry)) continue;
      // A tenant's key that was rotated away reads no more.
      if (res.writableLength > MAX_BUFFERED_BYTES || (!reader.all && !reader.live())) res.destroy();
      else res.write(frame);
    }
  }

  /** The entries kept, oldest first. */
  recent(): readonly LoggedRequest[] {
    return this.#entries;
  }

  /**
   * Answers a request to {@link LOG_STREAM_PATH}: 401 unless `authorize` names a reader for its
   * `Authorization` header, then an endless `text/event-stream`, one `data:` frame per request
   * the reader may see. `?backlog=N` first sends the last N entries kept that it may see.
   */
  async stream(req: IncomingMessage, res: ServerResponse, authorize: (authorization: string | undefined) => LogReader | null | Promise<LogReader | null>): Promise<void> {
    // Refusals in the API's envelope, with a request id, as on /v1.
    const reject = (status: number, code: string, message: string, headers: Record<string, string> = {}): void => writeEnvelope(res, { status, code, message }, headers);
    if (req.method !== 'GET') return reject(405, 'method_not_allowed', `Use GET ${LOG_STREAM_PATH}.`, { allow: 'GET' });
    const reader = await authorize(req.headers.authorization);
    if (reader === null) {
      return reject(401, 'authentication_failed', "Send an API key of this server (its tenant's requests) or the control key serve printed (every request): Authorization: Bearer <key>.");
    }
    const backlog = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('backlog') ?? '0');
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no', 'x-request-id': newRequestId() });
    // A comment first: the client knows it is subscribed before any request is logged.
    res.write(': pix-usdt-sandbox request log\n\n');
    if (Number.isInteger(backlog) && backlog > 0) {
      const visible = this.#entries.filter((entry) => sees(reader, entry));
      for (const entry of visible.slice(-backlog)) res.write(`data: ${JSON.stringify(entry)}\n\n`);
    }
    this.#streams.set(res, reader);
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
    for (const res of this.#streams.keys()) res.end();
    this.#streams.clear();
  }
}
