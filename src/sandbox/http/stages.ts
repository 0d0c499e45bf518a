/**
 * The app's own stages, in order: authenticate -> route -> authorize -> idempotency ->
 * validate -> rate_limit -> execute. All but idempotency and execute are checks (they refuse
 * by throwing, or go on); idempotency and execute wrap the rest. The rate limit comes after
 * idempotency and validation: a replay answers the stored response and a malformed request is
 * refused, neither counted. Plugins insert theirs by name (src/sandbox/http/app.ts).
 * @module
 */
import { parseRequest } from '../../models/index.js';
import { ApiError } from '../core/errors.js';
import type { KeyRec, TenantState } from '../core/state.js';
import type { Answer, AppCall, Check, NamedStage, Stage } from './call.js';
import { expireIdempotency, idempotency, noteCompact } from './idempotency.js';
import { parseJsonBody } from './json-body.js';
import type { Reply, RouteDef } from './routes/types.js';

const KEY_FORMAT = /^sk_(test|live)_[A-Za-z0-9]{32}$/;
const MUTATIONS = new Set(['POST', 'PATCH', 'DELETE', 'PUT']);
export const MAX_BODY = 1_000_000;
const RATE_WINDOW_MS = 60_000;

const authenticate: Check = (call) => {
  const { platform } = call;
  const header = call.headers.get('authorization');
  if (header === null || !header.startsWith('Bearer ')) {
    throw new ApiError('authentication_required', 'Send the header Authorization: Bearer <API key>.');
  }
  const token = header.slice(7);
  if (!KEY_FORMAT.test(token)) throw new ApiError('invalid_api_key_format', 'The API key is malformed.');
  const env = token.startsWith('sk_test_') ? 'sandbox' : 'production';
  if (env !== platform.settings.environment) {
    throw new ApiError('api_key_env_mismatch', `This is the ${platform.settings.environment} environment; the key belongs to the other one.`);
  }
  const key = platform.keyOf(token);
  if (!key || key.revokedAt !== null) throw new ApiError('authentication_failed', 'The API key is unknown or revoked.');
  const tenant = platform.tenant(key.tenantId);
  if (!tenant) throw new ApiError('authentication_failed', 'The API key is unknown or revoked.');
  // Timers that fell due as real time passed fire now, before the request sees the state.
  tenant.clock.runDue();
  call.key = key;
  call.tenant = tenant;
  call.at = tenant.clock.nowMs();
  expireIdempotency(platform, tenant, call.at);
};

function withBody(call: AppCall, text: string): void {
  const max = (call.route as RouteDef).maxBody ?? MAX_BODY;
  if (text.length > max) {
    throw new ApiError('validation_error', 'The request body is too large.', { issues: [{ path: '', message: `At most ${max === MAX_BODY ? '1 MB' : `${max} characters`}` }] });
  }
  call.bodyText = text;
}

// Production has no test helpers (reference: 404 there); the message says why, so that a
// production key sent to a helper does not read as a typo in the path.
function helpersOnlyInSandbox(call: AppCall): string {
  const helper = call.path === '/v1/test_helpers' || call.path.startsWith('/v1/test_helpers/');
  return helper && call.platform.settings.environment === 'production' ? ': the test helpers exist only in the sandbox (sk_test_ keys), not in production' : '';
}

const route: Check = (call) => {
  const match = call.match(call.method, call.path);
  if (!match) throw new ApiError('not_found', `No route for ${call.method} ${call.path}${helpersOnlyInSandbox(call)}.`);
  call.route = match.handler;
  call.params = match.params;
  if (!MUTATIONS.has(call.method)) return;
  const { incoming } = call;
  // A body already held as a string (sandbox.fetch) is used without waiting a turn.
  if (incoming.body !== undefined) withBody(call, incoming.body);
  else return incoming.text().then((text) => withBody(call, text));
};

const authorize: Check = (call) => {
  const capability = (call.route as RouteDef).capability;
  if (!(call.key as KeyRec).capabilities.includes(capability)) {
    throw new ApiError('missing_capability', `This API key lacks the capability ${capability}.`, { capability });
  }
};

const rateLimit: Check = (call) => {
  const limit = call.platform.settings.quoteRateLimit;
  if (!(call.route as RouteDef).rateLimited || limit <= 0) return;
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
};

const NUMERIC_QUERY = new Set(['limit']);

function validate<T>(schema: RouteDef['body'], value: unknown, prefix: string): T {
  if (!schema) return value as T;
  const result = parseRequest(schema, value);
  if (result.ok) return result.value as T;
  const issues = result.issues.map((i) => ({ ...i, path: prefix && i.path ? `${prefix}.${i.path}` : i.path || prefix }));
  throw new ApiError('validation_error', 'The request is invalid.', { issues });
}

const validateInput: Check = (call) => {
  const routeDef = call.route as RouteDef;
  let body: unknown = {};
  if (MUTATIONS.has(call.method) && call.bodyText.trim() !== '') {
    body = parseJsonBody(call.bodyText);
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
  call.input = { params, query: parsedQuery, body: parsedBody };
};

function answerOf(reply: Reply): Answer {
  if (reply.status === 204) return { status: 204, body: null, headers: {} };
  const answer: Answer = { status: reply.status, body: JSON.stringify(reply.body), headers: { 'content-type': 'application/json' } };
  // A record's answer: the idempotency stage keeps its version, not the text (core/versions.ts).
  if (reply.compact !== undefined) noteCompact(answer, reply.compact);
  return answer;
}

// Not an async function: a handler that answers at once (most do) costs no extra turn.
const execute: Stage = (call) => {
  const routeDef = call.route as RouteDef;
  const input = call.input as NonNullable<AppCall['input']>;
  const reply = routeDef.handler({
    world: call.platform,
    tenant: call.tenant as TenantState,
    key: call.key as KeyRec,
    at: call.at,
    requestId: call.requestId,
    params: input.params as never,
    query: input.query as never,
    body: input.body as never,
  });
  return reply instanceof Promise ? reply.then(answerOf) : Promise.resolve(answerOf(reply));
};

/** The stages in order. */
export const STAGES: readonly NamedStage[] = [
  { name: 'authenticate', check: authenticate },
  { name: 'route', check: route },
  { name: 'authorize', check: authorize },
  { name: 'idempotency', run: idempotency },
  { name: 'validate', check: validateInput },
  { name: 'rate_limit', check: rateLimit },
  { name: 'execute', run: execute },
];
