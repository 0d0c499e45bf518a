/**
 * The Node listener: `IncomingMessage` -> the sandbox's `dispatch` -> `ServerResponse`, with no
 * web `Request`, `Response` or stream on the way (the server's throughput is a tracked figure:
 * bench/server.ts, docs/performance.md). One answer path, as in hono's node-server: every request
 * ends in one {@link Answer}, the sandbox's or the listener's own (a CORS preflight, a request it
 * refuses, an error), written by one function ({@link writeAnswer}) and recorded once in the
 * sandbox's request log: the sandbox records what it answers, {@link recordOwn} what the server
 * answers itself, before any tenant is known. The listener never throws: a malformed or oversized
 * request gets the API's error envelope, and so does what Node's HTTP parser refuses before any
 * request exists ({@link createClientErrorHandler}).
 * @module
 */
import { type IncomingMessage, STATUS_CODES, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type Answer, type ApartAnswer, type ErrorEnvelope, type Incoming, addHeader, envelopeAnswer, incomingOfParts, joinHeader, targetParts, upperMethod } from '../../sandbox/http/call.js';
import { newRequestId } from '../../sandbox/http/request-id.js';
import { type Arrival, type RequestLog, logPath } from '../../sandbox/http/request-log.js';
import { TENANTS_MAX_BODY } from '../../sandbox/http/routes/test-helpers.js';
import { MAX_BODY } from '../../sandbox/http/stages.js';
import { NETWORK_FAULT_HEADER } from '../../sandbox/plugins/faults/marker.js';
import { CorsPolicy, isPreflight } from './cors.js';

/** What the listener serves: a sandbox's `dispatch` (the answer itself when it has it at once) and its request log. */
export interface Dispatcher {
  dispatch(incoming: Incoming, arrival: Arrival): Answer | Promise<Answer>;
  readonly requests: RequestLog;
}

/** Options of {@link createListener}. */
export interface ListenerOptions {
  /** `http://127.0.0.1:4010`: the origin of the URLs handed to the sandbox. */
  origin: string;
  /** True once the server is shutting down: answers then close their connection. */
  closing?: () => boolean;
  /** Which browser origins may call the server (default: loopback origins only). */
  cors?: CorsPolicy;
  /**
   * The server's HTTP parser is Node's strict one (`insecureHTTPParser: false`, as
   * {@link startServer} creates it): it refuses every header name and value `Headers` would, so
   * the listener does not check them again. Leave it unset for a server that may be lenient.
   */
  strictParser?: boolean;
}

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
// Methods a web `Request` refuses. The sandbox sees a stand-in no route declares, so they get the
// answer of any undeclared method (401 without a valid key, else 404 not_found), not a 400.
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
const STAND_IN_METHOD = 'UNDECLARED-METHOD';

/** An answer of the server's own: the envelope with a fresh request id (also in `x-request-id`). */
export function ownAnswer(error: ErrorEnvelope): Answer {
  const requestId = newRequestId();
  return envelopeAnswer({ ...error, headers: { ...error.headers, 'x-request-id': requestId } }, requestId);
}

/** A client mistake the listener answers itself. */
class Refusal extends Error {
  /** The connection cannot be reused (the body was not read to its end). */
  close = false;
  /** The body was not read to its end: drain it (bounded) after answering. */
  linger = false;
  constructor(readonly envelope: ErrorEnvelope) {
    super(envelope.message);
  }
}

function refusal(message: string): Refusal {
  return new Refusal({ status: 400, code: 'validation_error', message });
}

function tooLarge(limit: number): Refusal {
  const error = new Refusal({ status: 400, code: 'validation_error', message: 'The request body is too large.', details: { issues: [{ path: '', message: `At most ${limit} bytes` }] } });
  // The rest of the body is not read: the connection cannot be reused, and it is drained
  // (bounded) after the answer so that the client reads the answer rather than a reset.
  error.close = true;
  error.linger = true;
  return error;
}

/** The largest body a request target may send: a fork's tenant document is larger than any other body. */
export function bodyLimitOf(target: string | undefined): number {
  if (target === undefined || !target.startsWith(TENANTS_PATH)) return MAX_BODY;
  return target.length === TENANTS_PATH.length || target.charCodeAt(TENANTS_PATH.length) === 63 /* ? */ ? SNAPSHOT_BODY_BYTES : MAX_BODY;
}

/**
 * A body being read (under a symbol of the request): its chunks so far, and what to do once it is
 * read or refused (`then`, called once: the listener's, shared by every request), with what the
 * listener knew of the request when it started reading.
 */
interface BodyRead {
  chunks: Buffer[];
  size: number;
  limit: number;
  settled: boolean;
  then: (req: IncomingMessage, read: BodyRead, body: Buffer | Refusal) => void;
  res: ServerResponse;
  method: string;
  asked: string;
  target: string;
  href: string;
  headers: Map<string, string>;
  origin: string | undefined;
  arrived: number;
}
const BODY = Symbol('body');
type Reading = IncomingMessage & { [BODY]: BodyRead };

function settle(req: Reading, body: Buffer | Refusal): void {
  const read = req[BODY];
  if (read.settled) return;
  read.settled = true;
  read.then(req, read, body);
}

// The request's listeners: shared functions reading the state off the request (`this`), not
// closures made per request; no promise between the body's last chunk and the sandbox.
function onBodyData(this: Reading, chunk: Buffer): void {
  const read = this[BODY];
  read.size += chunk.length;
  if (read.size > read.limit) {
    this.off('data', onBodyData);
    this.pause(); // the rest is drained once the answer is written (drainThenEnd)
    settle(this, tooLarge(read.limit));
    return;
  }
  read.chunks.push(chunk);
}

function onBodyEnd(this: Reading): void {
  const { chunks, size } = this[BODY];
  // One chunk (a small body, the usual case) is handed on as it is: no copy.
  settle(this, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
}

// The client went away mid-body: nobody will read the answer, but the log would show a 400, not a 500.
function onBodyError(this: Reading): void {
  settle(this, refusal('The request body was cut short.'));
}

/**
 * Reads the body, refusing more than `limit` bytes (checked on Content-Length first, then while
 * streaming), then calls `read.then` once; a refusal on Content-Length is thrown at once.
 */
function readBody(req: IncomingMessage, read: BodyRead): void {
  const declared = Number(read.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > read.limit) throw tooLarge(read.limit);
  (req as Reading)[BODY] = read;
  req.on('data', onBodyData);
  req.once('end', onBodyEnd);
  req.once('error', onBodyError);
}

/** The method the sandbox is asked with: HEAD is GET without the body; methods `Request` refuses get a stand-in. */
function askedMethod(method: string): string {
  if (method === 'HEAD') return 'GET';
  return FORBIDDEN_METHODS.has(method) ? STAND_IN_METHOD : method;
}

/**
 * The request's headers as `Headers` would hold them (sandbox/http/call.ts `addHeader`), or
 * `null` when one of them is one `Headers` refuses. Read from `rawHeaders`; the listener reads
 * `Origin` and `Content-Length` from this map too, not from Node's `req.headers`.
 */
function headersOf(req: IncomingMessage): Map<string, string> | null {
  const headers = new Map<string, string>();
  const raw = req.rawHeaders;
  // Node's parser has already refused most of what `Headers` would; the rest is refused here.
  for (let i = 0; i + 1 < raw.length; i += 2) if (!addHeader(headers, raw[i] as string, raw[i + 1] as string)) return null;
  return headers;
}

/**
 * {@link headersOf} behind Node's strict parser, which has refused every name and value `Headers`
 * would (test/server/http/strict-parser.test.ts holds the two rules equal, byte by byte): the
 * names lower-cased, the values trimmed and joined, nothing checked again.
 */
function checkedHeadersOf(req: IncomingMessage): Map<string, string> {
  const headers = new Map<string, string>();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) joinHeader(headers, raw[i] as string, raw[i + 1] as string);
  return headers;
}

/**
 * The answer of a request the sandbox answers: its headers checked (`null`: refused as `Headers`
 * refuses them), then the sandbox asked. Synchronous when there is no body to read (a GET) and
 * the sandbox answers at once: no promise on that path. With a body, `undefined`: `withBody`
 * goes on once it is read.
 */
function dispatchOf(
  sandbox: Dispatcher,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  headers: Map<string, string> | null,
  base: string,
  origin: string | undefined,
  arrived: number,
  withBody: BodyRead['then'],
): Answer | Promise<Answer> | undefined {
  const target = req.url ?? '';
  if (!target.startsWith('/') || target.startsWith('//')) throw refusal('The request target must be an absolute path.');
  const asked = askedMethod(method);
  if (headers === null) throw refusal('The request headers are malformed.');
  const href = base + target;
  if (NO_BODY.has(asked)) return sandbox.dispatch(incomingOfParts(asked, partsOf(target, href), href, headers, null), { at: arrived, method, requestIdApart: true });
  // The body is read before the target is checked: a refused target leaves nothing unread.
  readBody(req, { chunks: [], size: 0, limit: bodyLimitOf(target), settled: false, then: withBody, res, method, asked, target, href, headers, origin, arrived });
  return undefined;
}

/** The path and query of a target; one in the form a URL parser gives (what clients send) is not parsed again. */
function partsOf(target: string, href: string): { path: string; search: string } {
  const parts = targetParts(target);
  if (parts !== null) return parts;
  try {
    const url = new URL(href);
    return { path: url.pathname, search: url.search };
  } catch {
    throw refusal('The request is malformed.');
  }
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

/** How {@link writeAnswer} writes an answer besides its status, headers and body. */
export interface WriteOptions {
  /** HEAD: the headers of the GET answer, no body. */
  head?: boolean;
  /** `connection: close` (a refused body, a server shutting down). */
  close?: boolean;
  /** Added to the answer (CORS), under its own headers. */
  extra?: Record<string, string> | null;
  /** The method a stand-in replaced, named back in the sandbox's message. */
  method?: string;
  /** The request whose unread body is drained before the connection closes (an oversized body). */
  drain?: IncomingMessage | null;
  /**
   * The answer's `x-request-id` when its headers do not hold one (a sandbox's `ApartAnswer`):
   * written where `{ 'x-request-id': requestId, ...headers }` would put it.
   */
  requestId?: string | undefined;
}

const REQUEST_ID = 'x-request-id';

/** Writes an answer to a Node response: the one writer of every answer the server gives over a `ServerResponse`. */
export function writeAnswer(res: ServerResponse, answer: Answer, options: WriteOptions = {}): void {
  writeParts(res, answer, options.head === true, options.close === true, options.extra ?? null, options.method, options.drain ?? null, options.requestId);
}

// The last body's content-length: a read of a record that did not change and a replay answer the
// very same string (the kept JSON of its version) again and again.
let lastBody: string | null = null;
let lastLength = '';
function contentLength(body: string): string {
  if (body !== lastBody) {
    lastBody = body;
    lastLength = String(Buffer.byteLength(body));
  }
  return lastLength;
}

// writeAnswer with its options as arguments: the listener's path (no options object an answer).
function writeParts(
  res: ServerResponse,
  answer: Answer,
  head: boolean,
  close: boolean,
  extra: Record<string, string> | null,
  method: string | undefined,
  drain: IncomingMessage | null,
  requestId: string | undefined,
): void {
  let body = answer.body;
  if (body !== null && method !== undefined && FORBIDDEN_METHODS.has(method)) body = body.replace(`No route for ${STAND_IN_METHOD} `, `No route for ${method} `);
  // One flat list of names and values, as Node's `writeHead` takes it: no copy of the answer's
  // headers into a new object. The answer's own headers win over the extra ones (a preflight's
  // `vary` names more than `Origin`), in the order an object spread of the two would give.
  const own = answer.headers;
  const list: string[] = [];
  if (extra) for (const name in extra) list.push(name, own[name] ?? (name === REQUEST_ID ? requestId : undefined) ?? (extra[name] as string));
  if (requestId !== undefined && extra?.[REQUEST_ID] === undefined) list.push(REQUEST_ID, own[REQUEST_ID] ?? requestId);
  for (const name in own) {
    if (extra?.[name] !== undefined || (requestId !== undefined && name === REQUEST_ID)) continue;
    if ((name === 'content-length' && body !== null) || (name === 'connection' && close)) continue;
    list.push(name, own[name] as string);
  }
  if (body !== null) list.push('content-length', contentLength(body));
  if (close) list.push('connection', 'close');
  res.writeHead(answer.status, list);
  const sent = head ? undefined : (body ?? undefined);
  if (!drain) {
    res.end(sent);
    return;
  }
  // The whole answer goes out now; the connection ends once the upload is drained.
  if (sent !== undefined) res.write(sent);
  drainThenEnd(drain, res);
}

/**
 * The one way the server's own answers reach the request log: those it gives before (or instead
 * of) the sandbox, when no tenant is known (preflights, refused requests, what Node's parser
 * refuses, errors). A closed log builds nothing.
 */
export function recordOwn(log: RequestLog, request: { method: string; path: string; status: number; requestId: string; arrived: number }): void {
  if (!log.recording) return;
  log.add({ request_id: request.requestId, tenant_id: null, method: request.method, path: request.path, status: request.status, arrived: request.arrived, replayed: false, fault: null, object_ids: [] });
}

/** An answer of the listener's own and how it leaves (the sandbox's answers leave as {@link SANDBOX_REPLY} says). */
class Reply {
  constructor(
    readonly answer: Answer,
    /** The server's own answer (recorded by the listener), not the sandbox's (recorded by the sandbox). */
    readonly own: boolean,
    readonly close: boolean,
    readonly linger: boolean,
  ) {}
}

/** How an answer of the sandbox leaves: recorded by the sandbox, the connection kept. */
type How = Omit<Reply, 'answer'>;
const SANDBOX_REPLY: How = { own: false, close: false, linger: false };

// When each request arrived, for the log line of a request that Node itself ends (a timeout): a
// property of the request under a symbol of ours (cheaper per request than a WeakMap's entry).
const ARRIVED = Symbol('arrived');
type Arrived = IncomingMessage & { [ARRIVED]?: number };

/** The `http.Server` request listener over a sandbox. */
export function createListener(sandbox: Dispatcher, options: ListenerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const cors = options.cors ?? new CorsPolicy();
  const strict = options.strictParser === true;

  // The one error branch: a refused request, a closed sandbox, anything unexpected.
  const failure = (error: unknown): Reply => {
    const e = error instanceof Refusal ? error : new Refusal({ status: 500, code: 'internal_error', message: 'An unexpected error occurred.' });
    return new Reply(ownAnswer(e.envelope), true, e.close, e.linger);
  };

  // The answer, or a promise of it, or `undefined` while a body is read (`withBody` goes on): a
  // preflight is answered at once, the rest by the sandbox.
  const replyOf = (req: IncomingMessage, res: ServerResponse, method: string, headers: Map<string, string> | null, origin: string | undefined, arrived: number): Reply | Answer | Promise<Answer> | undefined => {
    if (origin !== undefined && isPreflight(method, req.headers)) {
      if (cors.allows(origin)) {
        const headers = { ...cors.preflightHeaders(origin, req.headers['access-control-request-private-network'] === 'true'), 'x-request-id': newRequestId() };
        return new Reply({ status: 204, body: null, headers }, true, false, false);
      }
      const message = `The origin ${origin} may not call this server: start it with --cors-origin ${origin}.`;
      throw new Refusal({ status: 400, code: 'validation_error', message, details: { issues: [{ path: 'Origin', message: 'Not an allowed origin' }] } });
    }
    return dispatchOf(sandbox, req, res, method, headers, options.origin, origin, arrived, withBody);
  };

  const finish = (req: IncomingMessage, res: ServerResponse, method: string, origin: string | undefined, arrived: number, answer: Answer, how: How): void => {
    // An injected network fault: drop the connection, so the client sees a network error.
    if (answer.headers[NETWORK_FAULT_HEADER] !== undefined) res.socket?.destroy();
    // Node already answered and closed the connection (a request timeout): nothing to add.
    else if (req.socket.destroyed) return;
    else {
      writeParts(
        res,
        answer,
        method === 'HEAD',
        how.close || options.closing?.() === true,
        origin !== undefined && cors.allows(origin) ? cors.responseHeaders(origin) : null,
        method,
        how.linger ? req : null,
        how.own ? undefined : (answer as ApartAnswer).requestId,
      );
    }
    if (how.own) recordOwn(sandbox.requests, { method, path: logPath(req.url), status: answer.status, requestId: answer.headers['x-request-id'] ?? '-', arrived });
  };

  // Only a write that throws (the socket went away mid-answer) lands in `finish`'s catch: nothing left to tell anyone.
  const finishOrDestroy = (req: IncomingMessage, res: ServerResponse, method: string, origin: string | undefined, arrived: number, answer: Answer, how: How): void => {
    try {
      finish(req, res, method, origin, arrived, answer, how);
    } catch {
      res.destroy();
    }
  };

  // Writes what replyOf (or the sandbox, once a body is read) gave.
  const answered = (req: IncomingMessage, res: ServerResponse, method: string, origin: string | undefined, arrived: number, pending: Reply | Answer | Promise<Answer>): void => {
    if (pending instanceof Reply) return finishOrDestroy(req, res, method, origin, arrived, pending.answer, pending);
    if (!(pending instanceof Promise)) return finishOrDestroy(req, res, method, origin, arrived, pending, SANDBOX_REPLY);
    pending.then(
      (answer) => finishOrDestroy(req, res, method, origin, arrived, answer, SANDBOX_REPLY),
      (error: unknown) => {
        const reply = failure(error);
        finishOrDestroy(req, res, method, origin, arrived, reply.answer, reply);
      },
    );
  };

  // A body read (or refused): the sandbox is asked with it in the same turn.
  const withBody = (req: IncomingMessage, read: BodyRead, body: Buffer | Refusal): void => {
    let pending: Reply | Answer | Promise<Answer>;
    try {
      if (body instanceof Refusal) throw body;
      const { asked, target, href } = read;
      pending = sandbox.dispatch(incomingOfParts(asked, partsOf(target, href), href, read.headers, body), { at: read.arrived, method: read.method, requestIdApart: true });
    } catch (error) {
      pending = failure(error);
    }
    answered(req, read.res, read.method, read.origin, read.arrived, pending);
  };

  return (req, res) => {
    const arrived = performance.now();
    (req as Arrived)[ARRIVED] = arrived;
    const method = upperMethod(req.method ?? 'GET');
    const headers = strict ? checkedHeadersOf(req) : headersOf(req);
    // Headers `Headers` refuses are refused after a preflight is answered (with Node's reading of `Origin`).
    const origin = headers === null ? req.headers.origin : headers.get('origin');
    let pending: Reply | Answer | Promise<Answer> | undefined;
    try {
      pending = replyOf(req, res, method, headers, origin, arrived);
    } catch (error) {
      pending = failure(error);
    }
    if (pending !== undefined) answered(req, res, method, origin, arrived, pending);
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
  /** The request log its refusals go to ({@link recordOwn}). */
  log: RequestLog;
  /** The server's limits, named in the 408 message. */
  timeouts: { headersMs: number; requestMs: number };
  cors?: CorsPolicy;
}

/**
 * The `clientError` listener: what Node would answer with a bare status line (431 oversized
 * headers, 400 a bad method token or bytes that are not HTTP, 408 a timeout) gets the envelope
 * and an `x-request-id`, then the connection closes. There is no `ServerResponse` here: the
 * answer goes on the socket as bytes.
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
    const req = inFlight?.req;
    const origin = req?.headers.origin;
    const answer = ownAnswer({ status, code: 'validation_error', message, headers: origin !== undefined && cors.allows(origin) ? cors.responseHeaders(origin) : {} });
    const body = answer.body as string;
    const lines = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      ...Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}`),
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
    ];
    socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
    const arrived = req === undefined ? undefined : (req as Arrived)[ARRIVED];
    recordOwn(options.log, {
      method: req?.method ?? '-',
      path: req === undefined ? '-' : logPath(req.url),
      status,
      requestId: answer.headers['x-request-id'] as string,
      arrived: arrived ?? performance.now(),
    });
  };
}
