/**
 * One request through the app, in the shapes its parts share: `Incoming` (what arrives),
 * `Call` (what a stage sees), the app's own calls as its stages narrow them (`AppCall`, then
 * `AuthenticatedCall`, `RoutedCall`, `ValidatedCall`), `Answer` (what leaves), the stage types
 * with the {@link Pipeline} that checks their order, and the one builder of the error envelope.
 * @module
 */
import type { Platform } from '../core/platform.js';
import { ApiError } from '../core/errors.js';
import type { KeyRec, TenantState } from '../core/state.js';
import type { RouteDef } from './routes/types.js';

/**
 * A request as the sandbox reads it: what a web `Request` carries, without necessarily being
 * one. `sandbox.fetch` builds it straight from `fetch(url, init)`, because on Node 20 a
 * `Request` with a body (and reading that body back) costs more than the sandbox's whole work.
 */
export interface Incoming {
  /** HTTP method, as given. */
  method: string;
  /** The URL's path, as a URL parser gives it (dot segments resolved, percent-encoded where it encodes). */
  path: string;
  /** The URL's query with its `?`, as a URL parser gives it (empty without one). */
  search: string;
  /** Header lookup, case-insensitive. */
  headers: HeaderReader;
  /** The body as text (read once, on demand). */
  text(): Promise<string>;
  /** The body, when it is already a string. */
  body?: string | undefined;
  /** The same request as a web `Request`. */
  toRequest(): Request;
}

/** Case-insensitive header lookup, as `Headers.get`. */
export interface HeaderReader {
  /** The value of a header (several joined with `, `), or `null` without one. */
  get(name: string): string | null;
}

/** One request on its way through the pipeline, as a stage added with `sandbox.use` sees it. */
export interface Call {
  /** The incoming web Request (built on first use when the caller passed `fetch(url, init)`). */
  readonly request: Request;
  /** The request's headers. */
  headers: HeaderReader;
  /** The `req_...` id of this request (the answer's `x-request-id` and envelope `request_id`). */
  requestId: string;
  /** HTTP method, upper case. */
  method: string;
  /** URL path, without the query. */
  path: string;
  /** URL query, with its leading `?` (empty without one). */
  search: string;
  /** The caller's tenant id; `null` before authentication. */
  readonly tenantId: string | null;
  /** The id of the caller's API key; `null` before authentication. */
  readonly keyId: string | null;
  /** Path parameters of the matched route (e.g. `id`). */
  params: Record<string, string>;
  /** Raw body of a mutation, read at routing (empty for GET). */
  bodyText: string;
  /** Virtual time of the request (the tenant's clock once authenticated). */
  at: number;
}

/** An answer before it becomes a Response. */
export interface Answer {
  /** HTTP status. */
  status: number;
  /** Body text (JSON), or `null` for no body. */
  body: string | null;
  /** Response headers. */
  headers: Record<string, string>;
}

/**
 * An answer whose `x-request-id` is not among its headers yet (a host's `Arrival` with
 * `requestIdApart`, http/request-log.ts): the host writes `requestId` first unless the headers hold their own (a
 * replay's), which is where the app's copy of them would have put it.
 */
export interface ApartAnswer extends Answer {
  readonly requestId: string;
}

/** A pipeline stage added with `sandbox.use`. */
export type Middleware = (call: Call, next: () => Promise<Answer>) => Promise<Answer>;

/** A method in upper case: the ones Node's parser and most callers give are already (no copy made). */
export function upperMethod(method: string): string {
  return method === 'GET' || method === 'POST' || method === 'PATCH' || method === 'DELETE' ? method : method.toUpperCase();
}

/** Whether a method changes something: a mutation carries a body and may carry an `Idempotency-Key`. */
export function isMutation(method: string): boolean {
  return method === 'POST' || method === 'PATCH' || method === 'DELETE' || method === 'PUT';
}

/** The call as the app's own stages receive it before any ran: the public one plus the platform and the request as it arrived. */
export interface AppCall extends Call {
  readonly platform: Platform;
  readonly incoming: Incoming;
  /** The caller's tenant; `null` until `authenticate` establishes it ({@link AuthenticatedCall}). */
  readonly tenant: TenantState | null;
  /** The caller's API key; `null` until `authenticate` establishes it. */
  readonly key: KeyRec | null;
  /** Finds the route of a method and path. */
  match(method: string, path: string): { handler: RouteDef; params: Record<string, string> } | null;
  /** Sets what `authenticate` found (`at`: the tenant's clock): from here on the call is an {@link AuthenticatedCall}. */
  authenticated(tenant: TenantState, key: KeyRec, at: number): asserts this is AuthenticatedCall;
}

/** A call `authenticate` let through: its tenant and key are known, `at` is the tenant's clock. */
export interface AuthenticatedCall extends AppCall {
  readonly tenant: TenantState;
  readonly key: KeyRec;
  /** Sets what `route` found: from here on the call is a {@link RoutedCall}. */
  routed(route: RouteDef, params: Record<string, string>): asserts this is RoutedCall;
}

/** A call `route` matched: its route, its path parameters, and (for a mutation) its body text. */
export interface RoutedCall extends AuthenticatedCall {
  readonly route: RouteDef;
  /** Sets what `validate` parsed: from here on the call is a {@link ValidatedCall}. */
  validated(input: RouteInput): asserts this is ValidatedCall;
}

/** Params, query and body as a route's schemas parsed them. */
export interface RouteInput {
  params: unknown;
  query: unknown;
  body: unknown;
}

/** A call `validate` accepted: its input as the route's schemas parsed it. */
export interface ValidatedCall extends RoutedCall {
  readonly input: RouteInput;
}

/**
 * A stage of the app that wraps the rest. Unlike a public {@link Middleware}, it may answer at
 * once (an `Answer`, not a promise of it) and its `next` may too: a request whose stages all
 * answer at once is answered without a turn of the event loop (docs/performance.md, issue 34).
 */
export type Stage<C extends AppCall = AppCall> = (call: C, next: () => Answer | Promise<Answer>) => Answer | Promise<Answer>;

/**
 * A check of the app: it throws to refuse, or hands the later stages the call (maybe after a
 * promise), narrowed to `Out` when it established something (`call.authenticated(...)`,
 * `routed`, `validated`: the same object, so a middleware's `Call` and the app's stay one). It
 * never wraps.
 */
export type Check<In extends AppCall, Out extends In = In> = (call: In) => Out | Promise<Out>;

/**
 * A stage in the runner's list: a check, a stage of the app's that wraps the rest (`wrap`: it may
 * answer at once), or a public one (`run`: a {@link Middleware}, promises both ways). The list holds
 * them whatever call they take: the {@link Pipeline} that built it checked that each one's call
 * is what the stages before it established, and the runner keeps their order.
 */
export type NamedStage = { name: string; idle?: () => boolean } & (
  | { run(call: AppCall, next: () => Promise<Answer>): Promise<Answer>; check?: never; wrap?: never }
  | { wrap(call: AppCall, next: () => Answer | Promise<Answer>): Answer | Promise<Answer>; check?: never; run?: never }
  | { check(call: AppCall): AppCall | Promise<AppCall>; run?: never; wrap?: never }
);

/** A plugin's stage and where it goes: before the stage named `before`. It sees the public {@link Call}, as `sandbox.use` does. */
export interface StageInsert {
  name: string;
  run: Middleware;
  before: string;
  /** Skipped while this answers `true` (a fault stage while no plan is in force). */
  idle?: () => boolean;
}

/**
 * The app's own stages, in order, typed by the call each takes: a check added here must take
 * what the stages before it established (authorizing before routing does not compile), and
 * what it hands on is what the next ones get.
 */
export class Pipeline<C extends AppCall> {
  private constructor(
    /** The stages so far, in order. */
    readonly stages: readonly NamedStage[],
  ) {}

  /** An empty pipeline over a call as it arrives. */
  static start(): Pipeline<AppCall> {
    return new Pipeline<AppCall>([]);
  }

  /** Adds a check over the call as the stages so far leave it; the next get what it hands on. */
  check<Out extends C>(name: string, check: Check<C, Out>): Pipeline<Out> {
    return new Pipeline<Out>([...this.stages, { name, check }]);
  }

  /** Adds a stage that wraps the rest. */
  wrap(name: string, wrap: Stage<C>): Pipeline<C> {
    return new Pipeline<C>([...this.stages, { name, wrap: wrap as Stage }]);
  }
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** What an error answer is made of: its status, the envelope's fields and extra headers. */
export interface ErrorEnvelope {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown> | undefined;
  headers?: Record<string, string> | undefined;
}

const INTERNAL: ErrorEnvelope = { status: 500, code: 'internal_error', message: 'An unexpected error occurred.' };

/** The one builder of the reference's error envelope `{ code, message, request_id, details? }`. */
export function envelopeAnswer(error: ErrorEnvelope, requestId: string): Answer {
  const body: Record<string, unknown> = { code: error.code, message: error.message, request_id: requestId };
  if (error.details !== undefined) body['details'] = error.details;
  return { status: error.status, body: JSON.stringify(body), headers: { ...JSON_HEADERS, ...error.headers } };
}

/** The answer of a thrown error: an `ApiError`'s envelope, anything else a 500 `internal_error`. */
export function errorAnswer(error: unknown, requestId: string): Answer {
  return envelopeAnswer(error instanceof ApiError ? error : INTERNAL, requestId);
}

// `Request.text()` would replace invalid UTF-8 with U+FFFD: a payments API must not store what it did not receive.
const UTF8 = new TextDecoder('utf-8', { fatal: true });
function notUtf8(): ApiError {
  return new ApiError('invalid_json', 'The request body is not valid UTF-8: JSON must be UTF-8, and these bytes cannot be read without altering them.');
}
function utf8(bytes: ArrayBuffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw notUtf8();
  }
}

/** A web `Request` as the sandbox reads it. */
export function incomingOf(request: Request): Incoming {
  const url = new URL(request.url);
  return { method: request.method, path: url.pathname, search: url.search, headers: request.headers, text: () => request.arrayBuffer().then(utf8), toRequest: () => request };
}

// RFC 9110 header names, and field values without CR, LF or NUL: what `Headers` accepts.
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

// HEADER_NAME and HEADER_VALUE as loops over a table: a request's headers are checked on every
// request, and two regular expressions a header were most of the cost of reading them.
const TOKEN = /* @__PURE__ */ (() => {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) if (HEADER_NAME.test(String.fromCharCode(c))) table[c] = 1;
  return table;
})();

function isHeaderName(name: string): boolean {
  const n = name.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = name.charCodeAt(i);
    if (c > 127 || TOKEN[c] !== 1) return false;
  }
  return true;
}

function isHeaderValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 ? c !== 9 : c === 0x7f || c > 0xff) return false;
  }
  return true;
}

/**
 * Adds one request header to `headers` as `Headers` would: the name in lower case, the value
 * without the spaces and tabs around it, a repeated name joined with `, `. Answers false, adding
 * nothing, for a name or value `Headers` would refuse. The in-process `fetch` and the Node server
 * read headers through this one rule.
 */
export function addHeader(headers: Map<string, string>, name: string, value: string): boolean {
  if (!isHeaderName(name) || !isHeaderValue(value)) return false;
  joinHeader(headers, name, value);
  return true;
}

/**
 * {@link addHeader} for a name and value already checked (a host whose parser refused what
 * `Headers` would): the name in lower case, the value trimmed, a repeated name joined with `, `.
 */
export function joinHeader(headers: Map<string, string>, name: string, value: string): void {
  const n = value.length;
  // Most values have nothing around them: no regular expression for those.
  if (n > 0 && (value.charCodeAt(0) <= 32 || value.charCodeAt(n - 1) <= 32)) value = value.replace(/^[\t ]+|[\t ]+$/g, '');
  const key = name.toLowerCase();
  const previous = headers.get(key);
  headers.set(key, previous === undefined ? value : `${previous}, ${value}`);
}

/**
 * A request the host read itself (the Node server): its target's path and query (read by
 * {@link targetParts}), headers already joined, the body as bytes. The body is decoded as
 * `incomingOf` decodes it (UTF-8, refused when invalid); the web `Request` is built only if a
 * stage asks for it, from `href` (the origin and the target).
 */
export function incomingOfParts(method: string, target: { path: string; search: string }, href: string, headers: Map<string, string>, bytes: Uint8Array | null): Incoming {
  return new PartsIncoming(method, target.path, target.search, href, headers, bytes);
}

// What incomingOfParts hands out: methods on the prototype, not closures made per request.
class PartsIncoming implements Incoming {
  readonly headers: MapHeaders;
  readonly body: string | undefined;
  readonly #refused: ApiError | null = null;

  constructor(
    readonly method: string,
    readonly path: string,
    readonly search: string,
    readonly href: string,
    readonly map: Map<string, string>,
    readonly bytes: Uint8Array | null,
  ) {
    this.headers = new MapHeaders(map);
    if (bytes === null || bytes.length === 0) {
      this.body = '';
      return;
    }
    try {
      this.body = UTF8.decode(bytes);
    } catch {
      this.body = undefined;
      this.#refused = notUtf8();
    }
  }

  text(): Promise<string> {
    return this.#refused === null ? Promise.resolve(this.body as string) : Promise.reject(this.#refused);
  }

  toRequest(): Request {
    const { bytes } = this;
    return new Request(this.href, { method: this.method, headers: [...this.map], body: bytes === null || bytes.length === 0 ? null : new Uint8Array(bytes) });
  }
}

// Characters a URL parser leaves as they are in a path (RFC 3986 unreserved, and `/`) and in a
// query (those, and the sub-delimiters it does not encode). `%` is not among them: `%2e` is a dot
// to the parser, and a path with one is parsed.
const PATH_CHARS = new Uint8Array(128);
const QUERY_CHARS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9\-._~/]/.test(ch)) PATH_CHARS[c] = 1;
  if (/[A-Za-z0-9\-._~/?=&+,:;!$()*@%]/.test(ch)) QUERY_CHARS[c] = 1;
}

/**
 * The path and query of a request target (`/v1/users?limit=2`) when it is already in the form a
 * URL parser gives (no `%`, `#`, dot segment, or character it would encode), without parsing it:
 * what `new URL(target, origin)` would give, at a fraction of its cost. `null` otherwise: parse it.
 */
export function targetParts(target: string, from = 0): { path: string; search: string } | null {
  const n = target.length;
  if (from >= n || target.charCodeAt(from) !== 47) return null;
  let query = -1;
  let segment = from + 1;
  for (let i = from + 1; i <= n; i++) {
    const c = i === n ? 47 : target.charCodeAt(i);
    if (c === 47 || c === 63) {
      // `.` and `..` are dot segments: the parser resolves them.
      const length = i - segment;
      if ((length === 1 || length === 2) && target.charCodeAt(segment) === 46 && target.charCodeAt(i - 1) === 46) return null;
      segment = i + 1;
      if (c === 63) {
        query = i;
        break;
      }
    } else if (c > 127 || PATH_CHARS[c] !== 1) return null;
  }
  if (query < 0) return { path: from === 0 ? target : target.slice(from), search: '' };
  for (let i = query + 1; i < n; i++) {
    const c = target.charCodeAt(i);
    if (c > 127 || QUERY_CHARS[c] !== 1) return null;
  }
  // A `?` with nothing after it is no query to the parser.
  return { path: target.slice(from, query), search: query + 1 === n ? '' : target.slice(query) };
}

/** Header lookup over a map of lower-case names. */
export class MapHeaders implements HeaderReader {
  constructor(readonly map: Map<string, string>) {}
  get(name: string): string | null {
    // The stages ask in lower case: most lookups need no lower-cased copy of the name.
    return this.map.get(name) ?? this.map.get(name.toLowerCase()) ?? null;
  }
}

/** The web `Response` of an answer. */
export function toResponse(answer: Answer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
