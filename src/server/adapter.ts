/**
 * The Node adapter: `IncomingMessage` -> web `Request` -> `sandbox.handle` -> `ServerResponse`.
 * The engine stays `fetch`-shaped; everything Node-specific happens here. The listener never
 * throws: a malformed or oversized request gets the engine's error envelope.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { envelopeAnswer } from '../sandbox/http/call.js';
import { isNetworkFault } from '../sandbox/plugins/faults/marker.js';

/** One line of the request log. Never holds a key, a header or a query string. */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  ms: number;
  requestId: string;
}

/** Options of {@link createListener}. */
export interface ListenerOptions {
  /** `http://127.0.0.1:4010`: the origin of the URLs handed to the engine. */
  origin: string;
  /** Called once per answered request. */
  log: (entry: RequestLogEntry) => void;
  /** True once the server is shutting down: answers then close their connection. */
  closing?: () => boolean;
  /** Largest accepted body in bytes (default 1,000,000, as the engine). */
  maxBodyBytes?: number;
}

/** Anything with the engine's core method. */
export interface Handler {
  handle(request: Request): Promise<Response>;
}

const MAX_BODY_BYTES = 1_000_000;
const NO_BODY = new Set(['GET', 'HEAD']);

/** A client mistake the adapter answers itself, in the engine's envelope. */
class AdapterError extends Error {
  close = false;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

function tooLarge(limit: number): AdapterError {
  const error = new AdapterError(400, 'validation_error', 'The request body is too large.', {
    issues: [{ path: '', message: `At most ${limit} bytes` }],
  });
  // The rest of the body is not read: the connection cannot be reused.
  error.close = true;
  return error;
}

/** Reads the body, refusing more than `limit` bytes (checked on Content-Length first, then while streaming). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume(); // discard the rest; the answer closes the connection
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    // The client went away mid-body: nobody will read the answer, but the log shows a 400, not a 500.
    req.once('error', () => reject(new AdapterError(400, 'validation_error', 'The request body was cut short.')));
  });
}

function toHeaders(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

/** Builds the web Request. Only the path and query of `req.url` are used; the origin is ours. */
export async function toRequest(req: IncomingMessage, origin: string, limit = MAX_BODY_BYTES): Promise<Request> {
  const target = req.url ?? '';
  if (!target.startsWith('/') || target.startsWith('//')) throw new AdapterError(400, 'validation_error', 'The request target must be an absolute path.');
  const method = (req.method ?? 'GET').toUpperCase();
  let headers: Headers;
  try {
    headers = toHeaders(req.rawHeaders);
  } catch {
    throw new AdapterError(400, 'validation_error', 'The request headers are malformed.');
  }
  const body = NO_BODY.has(method) ? null : await readBody(req, limit);
  try {
    return new Request(origin + target, { method, headers, ...(body === null || body.length === 0 ? {} : { body: new Uint8Array(body) }) });
  } catch {
    // e.g. a method `Request` refuses (CONNECT, TRACE) or a URL it cannot parse.
    throw new AdapterError(400, 'validation_error', 'The request is malformed.');
  }
}

function errorResponse(error: unknown, requestId: string): Response {
  const e = error instanceof AdapterError ? error : new AdapterError(500, 'internal_error', 'An unexpected error occurred.');
  const answer = envelopeAnswer({ status: e.status, code: e.code, message: e.message, details: e.details, headers: { 'x-request-id': requestId, ...(e.close ? { connection: 'close' } : {}) } }, requestId);
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

async function writeResponse(res: ServerResponse, response: Response, head: boolean, close: boolean): Promise<void> {
  const body = head || response.body === null ? null : Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (body !== null) headers['content-length'] = String(body.length);
  if (close) headers['connection'] = 'close';
  res.writeHead(response.status, headers);
  res.end(body ?? undefined);
}

/** The printable path: no query string (it may carry anything), no control characters. */
export function logPath(url: string | undefined): string {
  const path = (url ?? '').split('?')[0] ?? '';
  // eslint-disable-next-line no-control-regex
  return path.replace(/[\u0000-\u001f\u007f\s]/g, '?').slice(0, 200);
}

/** The `http.Server` request listener over a sandbox. */
export function createListener(handler: Handler, options: ListenerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  return (req, res) => {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const answer = async (): Promise<Response> => {
      try {
        return await handler.handle(await toRequest(req, options.origin, limit));
      } catch (error) {
        // The engine never throws; this is the adapter refusing the request.
        return errorResponse(error, `req_${randomUUID().replaceAll('-', '')}`);
      }
    };
    void answer()
      .then(async (response) => {
        // An injected network fault: drop the connection, so the client sees a network error.
        if (isNetworkFault(response)) res.socket?.destroy();
        else await writeResponse(res, response, method === 'HEAD', options.closing?.() === true);
        options.log({
          method,
          path: logPath(req.url),
          status: response.status,
          ms: performance.now() - started,
          requestId: response.headers.get('x-request-id') ?? '-',
        });
      })
      .catch(() => {
        // The socket went away mid-answer: nothing left to tell anyone.
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  };
}
