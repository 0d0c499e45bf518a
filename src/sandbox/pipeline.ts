/**
 * The request pipeline: named stages, each `(call, next) => Promise<Answer>`, run in order.
 * authenticate -> route -> authorize -> rate_limit -> idempotency -> execute. A later layer
 * (fault injection) inserts its own stage with `engine.use`. One place turns errors into the
 * envelope `{ code, message, request_id, details? }`, and every answer gets `x-request-id`.
 * @module
 */
import { toIssues } from '../models/index.js';
import type { Engine } from './engine.js';
import { ApiError } from './errors.js';
import { hashHex } from './random.js';
import type { RouteDef } from './routes/types.js';
import type { KeyRec, TenantState } from './state.js';

/**
 * A request as the engine reads it: what a web `Request` carries, without necessarily being
 * one. `sandbox.fetch` builds it straight from `fetch(url, init)`, because on Node 20 a
 * `Request` with a body (and reading that body back) costs more than the engine's whole work.
 */
export interface Incoming {
  /** HTTP method, as given. */
  method: string;
  /** Absolute URL (parsed once: the pipeline reads its path and query). */
  url: URL;
  /** Header lookup, case-insensitive. */
  headers: HeaderReader;
  /** The body as text (read once, on demand). */
  text(): Promise<string>;
  /** The body, when it is already a string. */
  body?: string;
  /** The same request as a web `Request`. */
  toRequest(): Request;
}

/** Case-insensitive header lookup, as `Headers.get`. */
export interface HeaderReader {
  /** The value of a header (several joined with `, `), or `null` without one. */
  get(name: string): string | null;
}

/** One request on its way through the pipeline. */
export interface Call {
  /** The sandbox engine that runs the request. */
  engine: Engine;
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
  /** The caller's tenant; `null` before authentication. */
  tenant: TenantState | null;
  /** The caller's API key; `null` before authentication. */
  key: KeyRec | null;
  /** The matched route; `null` before routing. */
  route: RouteDef | null;
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

/** A pipeline stage. */
export type Middleware = (call: Call, next: () => Promise<Answer>) => Promise<Answer>;

/** A named pipeline stage. */
export interface NamedMiddleware {
  name: string;
  run: Middleware;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const KEY_FORMAT = /^sk_(test|live)_[A-Za-z0-9]{32}$/;
const MUTATIONS = new Set(['POST', 'PATCH', 'DELETE', 'PUT']);
const MAX_BODY = 1_000_000;
const IN_PROGRESS_MS = 60_000;
const RATE_WINDOW_MS = 60_000;

/** The envelope of an error. */
export function errorAnswer(error: unknown, requestId: string): Answer {
  if (error instanceof ApiError) {
    const body: Record<string, unknown> = { code: error.code, message: error.message, request_id: requestId };
    if (error.details !== undefined) body['details'] = error.details;
    return { status: error.status, body: JSON.stringify(body), headers: { ...JSON_HEADERS, ...error.headers } };
  }
  return {
    status: 500,
    body: JSON.stringify({ code: 'internal_error', message: 'An unexpected error occurred.', request_id: requestId }),
    headers: { ...JSON_HEADERS },
  };
}

const authenticate: Middleware = (call, next) => {
  const { engine } = call;
  const header = call.headers.get('authorization');
  if (header === null || !header.startsWith('Bearer ')) {
    throw new ApiError('authentication_required', 'Send the header Authorization: Bearer <API key>.');
  }
  const token = header.slice(7);
  if (!KEY_FORMAT.test(token)) throw new ApiError('invalid_api_key_format', 'The API key is malformed.');
  const env = token.startsWith('sk_test_') ? 'sandbox' : 'production';
  if (env !== engine.settings.environment) {
    throw new ApiError('api_key_env_mismatch', `This is the ${engine.settings.environment} environment; the key belongs to the other one.`);
  }
  const key = engine.keys.get(token);
  if (!key || key.revokedAt !== null) throw new ApiError('authentication_failed', 'The API key is unknown or revoked.');
  const tenant = engine.tenants.get(key.tenantId);
  if (!tenant) throw new ApiError('authentication_failed', 'The API key is unknown or revoked.');
  // Timers that fell due as real time passed fire now, before the request sees the state.
  tenant.clock.runDue();
  call.key = key;
  call.tenant = tenant;
  call.at = tenant.clock.nowMs();
  expireIdempotency(engine, tenant, call.at);
  return next();
};

function withBody(call: Call, text: string, next: () => Promise<Answer>): Promise<Answer> {
  if (text.length > MAX_BODY) {
    throw new ApiError('validation_error', 'The request body is too large.', { issues: [{ path: '', message: 'At most 1 MB' }] });
  }
  call.bodyText = text;
  return next();
}

const route: Middleware = (call, next) => {
  const match = call.engine.router.match(call.method, call.path);
  if (!match) throw new ApiError('not_found', `No route for ${call.method} ${call.path}.`);
  call.route = match.handler;
  call.params = match.params;
  if (!MUTATIONS.has(call.method)) return next();
  const { incoming } = call as PipelineCall;
  // A body already held as a string (sandbox.fetch) is used without waiting a turn.
  return incoming.body !== undefined ? withBody(call, incoming.body, next) : incoming.text().then((text) => withBody(call, text, next));
};

const authorize: Middleware = (call, next) => {
  const capability = (call.route as RouteDef).capability;
  if (!(call.key as KeyRec).capabilities.includes(capability)) {
    throw new ApiError('missing_capability', `This API key lacks the capability ${capability}.`, { capability });
  }
  return next();
};

const rateLimit: Middleware = (call, next) => {
  const limit = call.engine.settings.quoteRateLimit;
  if (!(call.route as RouteDef).rateLimited || limit <= 0) return next();
  const tenant = call.tenant as TenantState;
  const keyId = (call.key as KeyRec).id;
  let window = tenant.rateWindows.get(keyId);
  if (!window) tenant.rateWindows.set(keyId, (window = []));
  const from = call.at - RATE_WINDOW_MS;
  let drop = 0;
  while (drop < window.length && (window[drop] as number) <= from) drop++;
  if (drop > 0) window.splice(0, drop);
  if (window.length >= limit) {
    const retry = Math.max(1, Math.ceil(((window[0] as number) + RATE_WINDOW_MS - call.at) / 1000));
    throw new ApiError(
      'rate_limit_exceeded',
      `At most ${limit} quote requests per minute per API key.`,
      { retry_after_seconds: retry },
      { 'retry-after': String(retry) },
    );
  }
  window.push(call.at);
  return next();
};

function expireIdempotency(engine: Engine, tenant: TenantState, at: number): void {
  const order = tenant.idempotencyOrder;
  const cutoff = at - engine.settings.idempotencyTtlMs;
  while (tenant.idempotencyHead < order.length && (order[tenant.idempotencyHead] as [number, string])[0] <= cutoff) {
    const [createdAt, key] = order[tenant.idempotencyHead] as [number, string];
    const rec = tenant.idempotency.get(key);
    if (rec && rec.startedAt === createdAt) tenant.idempotency.delete(key);
    tenant.idempotencyHead++;
  }
  if (tenant.idempotencyHead > 1024 && tenant.idempotencyHead * 2 > order.length) {
    order.splice(0, tenant.idempotencyHead);
    tenant.idempotencyHead = 0;
  }
}

const idempotency: Middleware = async (call, next) => {
  if (!MUTATIONS.has(call.method)) return next();
  const routeDef = call.route as RouteDef;
  const key = call.headers.get('idempotency-key');
  if (key === null || key === '') {
    if (routeDef.idempotency === 'required') {
      throw new ApiError('idempotency_key_required', 'Send an Idempotency-Key header with every POST, PATCH and DELETE.');
    }
    return next();
  }
  if (key.length > 255) {
    throw new ApiError('validation_error', 'The request is invalid.', { issues: [{ path: 'Idempotency-Key', message: 'At most 255 characters' }] });
  }
  const tenant = call.tenant as TenantState;
  const fingerprint = hashHex(`${call.method} ${call.path}${call.search}\n${call.bodyText}`);
  const existing = tenant.idempotency.get(key);
  if (existing) {
    if (existing.running && call.at - existing.startedAt < IN_PROGRESS_MS) {
      throw new ApiError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still running.');
    }
    if (!existing.running) {
      if (existing.fingerprint !== fingerprint) {
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
      }
      return { status: existing.status, body: existing.body, headers: { ...existing.headers, 'idempotent-replayed': 'true' } };
    }
  }
  const rec = { key, fingerprint, running: true, startedAt: call.at, status: 0, body: null as string | null, headers: {} };
  tenant.idempotency.set(key, rec);
  tenant.idempotencyOrder.push([call.at, key]);
  let answer: Answer;
  try {
    answer = await next();
  } catch (error) {
    answer = errorAnswer(error, call.requestId);
  }
  if (answer.status >= 500 || answer.status === 429) {
    // Not stored: a retry with the same key must be able to succeed.
    if (tenant.idempotency.get(key) === rec) tenant.idempotency.delete(key);
  } else {
    rec.running = false;
    rec.status = answer.status;
    rec.body = answer.body;
    rec.headers = answer.headers;
  }
  return answer;
};

const NUMERIC_QUERY = new Set(['limit']);

function validate<T>(schema: RouteDef['body'], value: unknown, prefix: string): T {
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (result.success) return result.data as T;
  const issues = toIssues(result.error.issues).map((i) => ({ ...i, path: prefix && i.path ? `${prefix}.${i.path}` : i.path || prefix }));
  throw new ApiError('validation_error', 'The request is invalid.', { issues });
}

const execute: Middleware = async (call) => {
  const routeDef = call.route as RouteDef;
  let body: unknown = {};
  if (MUTATIONS.has(call.method) && call.bodyText.trim() !== '') {
    try {
      body = JSON.parse(call.bodyText);
    } catch {
      throw new ApiError('invalid_json', 'The request body is not valid JSON.');
    }
  }
  const query: Record<string, unknown> = {};
  if (call.search.length > 1) {
    for (const [k, v] of new URLSearchParams(call.search)) {
      if (k in query) continue;
      query[k] = NUMERIC_QUERY.has(k) && /^-?\d{1,15}$/.test(v) ? Number(v) : v;
    }
  }
  const params = validate(routeDef.params, call.params, '');
  const parsedQuery = validate(routeDef.query, query, '');
  routeDef.precheck?.(body);
  const parsedBody = validate(routeDef.body, body, '');
  const reply = await routeDef.handler({
    engine: call.engine,
    tenant: call.tenant as TenantState,
    key: call.key as KeyRec,
    at: call.at,
    requestId: call.requestId,
    params: params as never,
    query: parsedQuery as never,
    body: parsedBody as never,
  });
  if (reply.status === 204) return { status: 204, body: null, headers: {} };
  return { status: reply.status, body: JSON.stringify(reply.body), headers: { ...JSON_HEADERS } };
};

/** The stages in order. */
export const STAGES: readonly NamedMiddleware[] = [
  { name: 'authenticate', run: authenticate },
  { name: 'route', run: route },
  { name: 'authorize', run: authorize },
  { name: 'rate_limit', run: rateLimit },
  { name: 'idempotency', run: idempotency },
  { name: 'execute', run: execute },
];

// `Request.text()` would replace invalid UTF-8 with U+FFFD: a payments API must not store what it did not receive.
const UTF8 = new TextDecoder('utf-8', { fatal: true });
function utf8(bytes: ArrayBuffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid UTF-8: JSON must be UTF-8, and these bytes cannot be read without altering them.');
  }
}

/** A web `Request` as the engine reads it. */
export function incomingOf(request: Request): Incoming {
  return { method: request.method, url: new URL(request.url), headers: request.headers, text: () => request.arrayBuffer().then(utf8), toRequest: () => request };
}

/** The web `Response` of an answer. */
export function toResponse(answer: Answer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

class PipelineCall implements Call {
  readonly headers: HeaderReader;
  readonly method: string;
  readonly path: string;
  readonly search: string;
  tenant: TenantState | null = null;
  key: KeyRec | null = null;
  route: RouteDef | null = null;
  params: Record<string, string> = {};
  bodyText = '';
  at = 0;
  #request: Request | undefined;

  constructor(
    readonly engine: Engine,
    readonly incoming: Incoming,
    readonly requestId: string,
  ) {
    this.headers = incoming.headers;
    this.method = incoming.method.toUpperCase();
    this.path = incoming.url.pathname;
    this.search = incoming.url.search;
  }

  get request(): Request {
    return (this.#request ??= this.incoming.toRequest());
  }
}

/** Runs a request through the engine's pipeline. The answer's headers carry `x-request-id`. */
export async function runPipeline(engine: Engine, incoming: Incoming): Promise<Answer> {
  const requestId = `req_${engine.random.uuidHex()}`;
  let answer: Answer;
  try {
    const call = new PipelineCall(engine, incoming, requestId);
    const stages = engine.middlewares;
    const run = (i: number): Promise<Answer> => {
      const stage = stages[i];
      if (!stage) return Promise.reject(new ApiError('not_found', 'No route.'));
      try {
        return Promise.resolve(stage.run(call, () => run(i + 1)));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    answer = await run(0);
  } catch (error) {
    answer = errorAnswer(error, requestId);
  }
  const headers = answer.headers;
  return { status: answer.status, body: answer.body, headers: { ...headers, 'x-request-id': requestId } };
}
