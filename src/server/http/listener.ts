/**
 * The Node adapter: `IncomingMessage` -> web `Request` -> `sandbox.handle` -> `ServerResponse`.
 * The engine stays `fetch`-shaped; everything Node-specific happens here. The listener never
 * throws: a malformed or oversized request gets the engine's error envelope, and so does what
 * Node's HTTP parser refuses before any request exists ({@link createClientErrorHandler}).
 * CORS preflights are answered here, without authentication.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, STATUS_CODES, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TENANTS_MAX_BODY } from '../../sandbox/http/routes/test-helpers.js';
import { type Answer, type Incoming, envelopeAnswer, incomingOfParts } from '../../sandbox/http/call.js';
import { CorsPolicy, isPreflight } from './cors.js';
import { FAULT_PLAN_HEADER } from '../../sandbox/plugins/faults/injector.js';
import { NETWORK_FAULT_HEADER, isNetworkFault } from '../../sandbox/plugins/faults/marker.js';

/** One line of the request log. Never holds a key, a header or a query string. */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  ms: number;
  requestId: string;
  /** The answer was an idempotent replay. */
  replayed: boolean;
  /** The injected fault plan that answered, or `null`. */
  fault: string | null;
  /** The tenant of the live API key the request carried, or `null` (no key, an unknown or revoked one). */
  tenantId: string | null;
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
  /** Which browser origins may call the server (default: loopback origins only). */
  cors?: CorsPolicy;
  /** The tenant of a request's `Authorization` header, read before the request runs (a rotation revokes the key it came with). */
  tenantOf?: (authorization: string | undefined) => string | null;
}

/** Anything with the engine's core method; `dispatch` (a sandbox has it) spares the web `Request` and `Response`. */
export interface Handler {
  handle(request: Request): Promise<Response>;
  dispatch?(incoming: Incoming): Promise<Answer>;
}

const MAX_BODY_BYTES = 1_000_000;
/**
 * After refusing a body as too large, the rest of the upload is read and dropped for at most this
 * long and this much before the connection closes: closing on unread data makes the kernel send
 * a reset, which destroys the answer before a client that is still sending reads it (nginx's
 * "lingering close" does the same).
 */
const LINGER_MS = 5_000;
const LINGER_BYTES = 64 * 1024 * 1024;
const TENANTS_PATH = '/v1/test_helpers/tenants';
/** The body of a fork: the largest tenant document, in bytes (twice its characters: names and messages are mostly ASCII). */
const SNAPSHOT_BODY_BYTES = TENANTS_MAX_BODY * 2;
const NO_BODY = new Set(['GET', 'HEAD']);
// Methods `new Request` refuses. The engine sees a stand-in no route declares, so they get the
// answer of any undeclared method (401 without a valid key, else 404 not_found), not a 400.
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
const STAND_IN_METHOD = 'UNDECLARED-METHOD';

/** A fresh `req_...` id for an answer the engine does not give (adapter refusals, paths outside `/v1`). */
export const newRequestId = (): string => `req_${randomUUID().replaceAll('-', '')}`;

/**
 * Writes an error answer in the API's envelope (`code`, `message`, `request_id`, and the same id
 * in `x-request-id`) straight to a Node response: for the server's own paths outside the engine
 * (the request log feed, the inspector's gate) and for what fails before an answer exists.
 */
export function writeEnvelope(res: ServerResponse, error: { status: number; code: string; message: string; details?: Record<string, unknown> }, headers: Record<string, string> = {}): void {
  const requestId = newRequestId();
  const answer = envelopeAnswer({ ...error, headers: { 'x-request-id': requestId, ...headers } }, requestId);
  const body = answer.body as string;
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** A client mistake the adapter answers itself, in the engine's envelope. */
class AdapterError extends Error {
  close = false;
  /** The request's body was not read to its end: drain it (bounded) after answering. */
  linger = false;
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
  // The rest of the body is not read: the connection cannot be reused, and it is drained
  // (bounded) after the answer so that the client reads the answer rather than a reset.
  error.close = true;
  error.linger = true;
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
        req.pause(); // the rest is drained once the answer is written (drainThenEnd)
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

/** The method the engine is asked with: HEAD is GET without the body; methods `Request` refuses get a stand-in. */
function engineMethod(method: string): string {
  if (method === 'HEAD') return 'GET';
  return FORBIDDEN_METHODS.has(method) ? STAND_IN_METHOD : method;
}

/** Builds the web Request. Only the path and query of `req.url` are used; the origin is ours. */
export async function toRequest(req: IncomingMessage, origin: string, limit = MAX_BODY_BYTES): Promise<Request> {
  const target = req.url ?? '';
  if (!target.startsWith('/') || target.startsWith('//')) throw new AdapterError(400, 'validation_error', 'The request target must be an absolute path.');
  const method = engineMethod((req.method ?? 'GET').toUpperCase());
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
    // e.g. a URL it cannot parse.
    throw new AdapterError(400, 'validation_error', 'The request is malformed.');
  }
}

// RFC 9110 header names and values (what `Headers` accepts); Node's parser has already refused most else.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The request as the engine reads it, without a web `Request`: the checks and answers of {@link toRequest}. */
async function toIncoming(req: IncomingMessage, origin: string, limit: number): Promise<Incoming> {
  const target = req.url ?? '';
  if (!target.startsWith('/') || target.startsWith('//')) throw new AdapterError(400, 'validation_error', 'The request target must be an absolute path.');
  const method = engineMethod((req.method ?? 'GET').toUpperCase());
  const headers = new Map<string, string>();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = (raw[i + 1] as string).replace(/^[\t ]+|[\t ]+$/g, '');
    if (!TOKEN.test(name) || !FIELD_VALUE.test(value)) throw new AdapterError(400, 'validation_error', 'The request headers are malformed.');
    const key = name.toLowerCase();
    const previous = headers.get(key);
    headers.set(key, previous === undefined ? value : `${previous}, ${value}`);
  }
  const body = NO_BODY.has(method) ? null : await readBody(req, limit);
  let url: URL;
  try {
    url = new URL(origin + target);
  } catch {
    throw new AdapterError(400, 'validation_error', 'The request is malformed.');
  }
  return incomingOfParts(method, url, headers, body);
}

/** Writes an engine answer (the fast path's {@link writeResponse}). */
function writeAnswer(res: ServerResponse, answer: Answer, options: WriteOptions): void {
  let body = answer.body;
  if (body !== null && FORBIDDEN_METHODS.has(options.method)) body = body.replace(`No route for ${STAND_IN_METHOD} `, `No route for ${options.method} `);
  const headers: Record<string, string> = { ...answer.headers };
  if (options.extra !== null) Object.assign(headers, options.extra);
  if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
  if (options.close) headers['connection'] = 'close';
  res.writeHead(answer.status, headers);
  res.end(options.head ? undefined : (body ?? undefined));
}

function answerFault(answer: Answer): string | null {
  const network = answer.headers[NETWORK_FAULT_HEADER];
  if (network !== undefined) return /plan=([^;]+)/.exec(network)?.[1] ?? 'network';
  return answer.headers[FAULT_PLAN_HEADER] ?? null;
}

// Answers to a request whose body was refused before its end (see LINGER_MS).
const lingering = new WeakSet<Response>();

function errorResponse(error: unknown, requestId: string): Response {
  const e = error instanceof AdapterError ? error : new AdapterError(500, 'internal_error', 'An unexpected error occurred.');
  const answer = envelopeAnswer({ status: e.status, code: e.code, message: e.message, details: e.details, headers: { 'x-request-id': requestId, ...(e.close ? { connection: 'close' } : {}) } }, requestId);
  const response = new Response(answer.body, { status: answer.status, headers: answer.headers });
  if (e.linger) lingering.add(response);
  return response;
}

/**
 * Ends an answer already written in full (its `content-length` sent) once the rest of the
 * request's body has been read and dropped, or after {@link LINGER_MS} or {@link LINGER_BYTES}:
 * the client reads the answer instead of a reset, and a client that never stops is cut off.
 */
function drainThenEnd(req: IncomingMessage, res: ServerResponse): void {
  let drained = 0;
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    req.off('data', onData);
    res.end();
  };
  const onData = (chunk: Buffer): void => {
    drained += chunk.length;
    if (drained > LINGER_BYTES) finish();
  };
  const timer = setTimeout(finish, LINGER_MS);
  timer.unref();
  if (req.readableEnded) return finish();
  req.on('data', onData);
  req.once('end', finish);
  req.once('close', finish);
  req.resume();
}

interface WriteOptions {
  /** HEAD: the headers of the GET answer, no body. */
  head: boolean;
  close: boolean;
  /** Added to the answer (CORS). */
  extra: Record<string, string> | null;
  /** The method a stand-in replaced, named back in the engine's message. */
  method: string;
  /** The request whose unread body is drained before the connection closes (an oversized body). */
  drain: IncomingMessage | null;
}

async function writeResponse(res: ServerResponse, response: Response, options: WriteOptions): Promise<void> {
  let body = response.body === null ? null : Buffer.from(await response.arrayBuffer());
  if (body !== null && FORBIDDEN_METHODS.has(options.method)) body = Buffer.from(body.toString('utf8').replace(`No route for ${STAND_IN_METHOD} `, `No route for ${options.method} `));
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (options.extra !== null) Object.assign(headers, options.extra);
  if (body !== null) headers['content-length'] = String(body.length);
  if (options.close) headers['connection'] = 'close';
  res.writeHead(response.status, headers);
  if (options.drain === null) {
    res.end(options.head ? undefined : (body ?? undefined));
    return;
  }
  // The whole answer goes out now; the connection ends once the upload is drained.
  if (!options.head && body !== null) res.write(body);
  drainThenEnd(options.drain, res);
}

/** The answer to a CORS preflight: allowed, or refused in the envelope with the way out. */
function preflightResponse(cors: CorsPolicy, origin: string, privateNetwork: boolean): Response {
  const requestId = newRequestId();
  if (cors.allows(origin)) return new Response(null, { status: 204, headers: { ...cors.preflightHeaders(origin, privateNetwork), 'x-request-id': requestId } });
  const message = `The origin ${origin} may not call this server: start it with --cors-origin ${origin}.`;
  return errorResponse(new AdapterError(400, 'validation_error', message, { issues: [{ path: 'Origin', message: 'Not an allowed origin' }] }), requestId);
}

/** The printable path: no query string (it may carry anything), no control characters. */
export function logPath(url: string | undefined): string {
  const path = (url ?? '').split('?')[0] ?? '';
  // eslint-disable-next-line no-control-regex
  return path.replace(/[\u0000-\u001f\u007f\s]/g, '?').slice(0, 200);
}

// When each request started, for the log line of a request that Node itself ends (a timeout).
const startedAt = new WeakMap<IncomingMessage, number>();
/** The fault plan of an injected answer: `x-...-fault-plan: <id>`, or `x-...-fault: network;plan=<id>`. */
function faultPlan(response: Response): string | null {
  const network = response.headers.get(NETWORK_FAULT_HEADER);
  if (network !== null) return /plan=([^;]+)/.exec(network)?.[1] ?? 'network';
  return response.headers.get(FAULT_PLAN_HEADER);
}

/** The `http.Server` request listener over a sandbox. */
export function createListener(handler: Handler, options: ListenerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const cors = options.cors ?? new CorsPolicy();
  return (req, res) => {
    const started = performance.now();
    startedAt.set(req, started);
    const method = (req.method ?? 'GET').toUpperCase();
    const origin = req.headers.origin;
    const tenantId = options.tenantOf?.(req.headers.authorization) ?? null;
    const answerWith = async (response: Response): Promise<void> => {
      // Node already answered and closed the connection (a request timeout): nothing to add.
      if (req.socket.destroyed && !isNetworkFault(response)) return;
      // An injected network fault: drop the connection, so the client sees a network error.
      if (isNetworkFault(response)) res.socket?.destroy();
      else {
        const extra = origin !== undefined && cors.allows(origin) ? cors.responseHeaders(origin) : null;
        const drain = lingering.has(response) ? req : null;
        await writeResponse(res, response, { head: method === 'HEAD', close: options.closing?.() === true, extra, method, drain });
      }
      options.log({
        method,
        path: logPath(req.url),
        status: response.status,
        ms: performance.now() - started,
        requestId: response.headers.get('x-request-id') ?? '-',
        replayed: response.headers.get('idempotent-replayed') === 'true',
        fault: faultPlan(response),
        tenantId,
      });
    };
    const dispatch = handler.dispatch?.bind(handler);
    if (dispatch !== undefined && !(origin !== undefined && isPreflight(method, req.headers))) {
      // The engine's answer written as it is: no web Request, Response or stream on the way.
      void toIncoming(req, options.origin, limit)
        .then(dispatch)
        .then(
          (answer) => {
            const network = answer.headers[NETWORK_FAULT_HEADER] !== undefined;
            if (req.socket.destroyed && !network) return;
            if (network) res.socket?.destroy();
            else {
              const extra = origin !== undefined && cors.allows(origin) ? cors.responseHeaders(origin) : null;
              // The body was read to its end (a refused one answers through answerWith): nothing to drain.
              writeAnswer(res, answer, { head: method === 'HEAD', close: options.closing?.() === true, extra, method, drain: null });
            }
            options.log({
              method,
              path: logPath(req.url),
              status: answer.status,
              ms: performance.now() - started,
              requestId: answer.headers['x-request-id'] ?? '-',
              replayed: answer.headers['idempotent-replayed'] === 'true',
              fault: answerFault(answer),
              tenantId,
            });
          },
          // The adapter refused the request (or the sandbox is closed): the envelope, as on the web path.
          (error: unknown) => answerWith(errorResponse(error, newRequestId())),
        )
        .catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
      return;
    }
    const answer = async (): Promise<Response> => {
      if (origin !== undefined && isPreflight(method, req.headers)) return preflightResponse(cors, origin, req.headers['access-control-request-private-network'] === 'true');
      try {
        // A tenant snapshot (a fork) may be larger than any other body.
        const max = req.url?.startsWith(TENANTS_PATH) === true ? Math.max(limit, SNAPSHOT_BODY_BYTES) : limit;
        return await handler.handle(await toRequest(req, options.origin, max));
      } catch (error) {
        // The engine never throws; this is the adapter refusing the request.
        return errorResponse(error, newRequestId());
      }
    };
    void answer()
      .then(answerWith)
      .catch(() => {
        // The socket went away mid-answer: nothing left to tell anyone.
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  };
}

/**
 * The `connect` listener: Node hands `CONNECT` requests to it instead of the request listener and
 * closes the connection unanswered without one. They get the listener's answer like any other
 * method (an authority target such as `example.com:443` is not a path: 400 in the envelope).
 */
export function createConnectHandler(listener: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket) => {
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once('finish', () => {
      res.detachSocket(socket as Socket);
      socket.end();
    });
    listener(req, res);
  };
}

/** Statuses and messages of what Node's HTTP parser and timers refuse before the listener answers. */
function clientErrorOf(error: NodeJS.ErrnoException & { reason?: string }, timeouts: ClientErrorOptions['timeouts']): { status: number; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: 'The request headers are too large (at most 16 KB in all).' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'The chunk extensions of the request body are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        message: `The request was not received in time: headers within ${timeouts.headersMs / 1000} s, the whole request within ${timeouts.requestMs / 1000} s.`,
      };
    case 'HPE_INVALID_METHOD':
      return { status: 400, message: 'The request is not valid HTTP: it does not start with a method HTTP defines.' };
    default:
      return { status: 400, message: `The request is not valid HTTP${error.reason === undefined ? '' : ` (${error.reason.replace(/[^\x20-\x7e]/g, '?')})`}.` };
  }
}

/** Options of {@link createClientErrorHandler}. */
export interface ClientErrorOptions {
  log: (entry: RequestLogEntry) => void;
  /** The server's limits, named in the 408 message. */
  timeouts: { headersMs: number; requestMs: number };
  cors?: CorsPolicy;
}

/**
 * The `clientError` listener: what Node would answer with a bare status line (431 oversized
 * headers, 400 a bad method token or bytes that are not HTTP, 408 a timeout) gets the envelope
 * and an `x-request-id`, then the connection closes.
 */
export function createClientErrorHandler(options: ClientErrorOptions): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  const cors = options.cors ?? new CorsPolicy();
  return (error, socket) => {
    // The peer went away, or an answer is already on the wire: nothing can be written.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
    if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || !socket.writable || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const { status, message } = clientErrorOf(error, options.timeouts);
    const requestId = newRequestId();
    const body = JSON.stringify({ code: 'validation_error', message, request_id: requestId });
    const req = inFlight?.req;
    const origin = req?.headers.origin;
    const extra = origin !== undefined && cors.allows(origin) ? cors.responseHeaders(origin) : {};
    const lines = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'content-type: application/json',
      `content-length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${requestId}`,
      ...Object.entries(extra).map(([name, value]) => `${name}: ${value}`),
      'connection: close',
    ];
    socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
    const started = req === undefined ? undefined : startedAt.get(req);
    options.log({
      method: req?.method ?? '-',
      path: req === undefined ? '-' : logPath(req.url),
      status,
      ms: started === undefined ? 0 : performance.now() - started,
      requestId,
      replayed: false,
      fault: null,
      tenantId: null,
    });
  };
}
