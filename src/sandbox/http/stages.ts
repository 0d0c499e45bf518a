/**
 * The app's own stages, in order: authenticate -> expire_idempotency -> route -> authorize ->
 * idempotency -> validate -> rate_limit -> execute. All but idempotency and execute are checks
 * (they refuse by throwing, or hand the call on); idempotency and execute wrap the rest. Each
 * check takes the call as the ones before it left it: `authenticate` hands on an
 * `AuthenticatedCall`, `route` a `RoutedCall`, `validate` a `ValidatedCall` (call.ts), and the
 * {@link Pipeline} below does not compile with a stage before what it needs. The rate limit comes
 * after idempotency and validation: a replay answers the stored response and a malformed request
 * is refused, neither counted. Plugins insert theirs by name (src/sandbox/http/app.ts).
 * @module
 */
import { compiled } from '../../models/compile.js';
import { parseRequest } from '../../models/index.js';
import { ApiError } from '../core/errors.js';
import { readApiKey, API_KEY_REFUSALS, type ApiKeyRefusal } from './authentication.js';
import { type Answer, type AppCall, type AuthenticatedCall, type Check, type NamedStage, Pipeline, type RoutedCall, type Stage, type ValidatedCall, isMutation } from './call.js';
import { expireIdempotency, idempotency, noteCompact } from './idempotency.js';
import { parseJsonBody } from './json-body.js';
import { IdParams } from './routes/shared.js';
import type { Reply, RouteDef } from './routes/types.js';

/** The largest body a route takes unless it says otherwise (`maxBody`), in characters; the Node listener reads as many bytes. */
export const MAX_BODY = 1_000_000;
const RATE_WINDOW_MS = 60_000;

function refused(refusal: ApiKeyRefusal): ApiError {
  return new ApiError(refusal.code, refusal.message);
}

export const authenticate: Check<AppCall, AuthenticatedCall> = (call: AppCall) => {
  const { platform } = call;
  const token = readApiKey(call.headers.get('authorization'), platform.settings.environment);
  if (typeof token !== 'string') throw refused(token);
  const key = platform.keyOf(token);
  if (!key || key.revokedAt !== null) throw refused(API_KEY_REFUSALS.unknown);
  const tenant = platform.tenant(key.tenantId);
  if (!tenant) throw refused(API_KEY_REFUSALS.unknown);
  // Timers that fell due as real time passed fire now, before the request sees the state.
  tenant.clock.runDue();
  call.authenticated(tenant, key, tenant.clock.nowMs());
  return call;
};

function withBody(call: RoutedCall, text: string): RoutedCall {
  const max = call.route.maxBody ?? MAX_BODY;
  if (text.length > max) {
    throw new ApiError('validation_error', 'The request body is too large.', { issues: [{ path: '', message: `At most ${max === MAX_BODY ? '1 MB' : `${max} characters`}` }] });
  }
  call.bodyText = text;
  return call;
}

// Production has no test helpers (reference: 404 there); the message says why, so that a
// production key sent to a helper does not read as a typo in the path.
function helpersOnlyInSandbox(call: AppCall): string {
  const helper = call.path === '/v1/test_helpers' || call.path.startsWith('/v1/test_helpers/');
  return helper && call.platform.settings.environment === 'production' ? ': the test helpers exist only in the sandbox (sk_test_ keys), not in production' : '';
}

export const route: Check<AuthenticatedCall, RoutedCall> = (call: AuthenticatedCall) => {
  const match = call.match(call.method, call.path);
  if (!match) throw new ApiError('not_found', `No route for ${call.method} ${call.path}${helpersOnlyInSandbox(call)}.`);
  call.routed(match.handler, match.params);
  if (!isMutation(call.method)) return call;
  const { incoming } = call;
  // A body already held as a string (sandbox.fetch) is used without waiting a turn.
  if (incoming.body !== undefined) return withBody(call, incoming.body);
  const routed: RoutedCall = call;
  return incoming.text().then((text) => withBody(routed, text));
};

export const authorize: Check<RoutedCall> = (call) => {
  const { capability } = call.route;
  if (!call.key.capabilities.includes(capability)) {
    throw new ApiError('missing_capability', `This API key lacks the capability ${capability}.`, { capability });
  }
  return call;
};

const rateLimit: Check<ValidatedCall> = (call) => {
  const limit = call.platform.settings.quoteRateLimit;
  if (call.route.rateLimited !== true || limit <= 0) return call;
  const { tenant } = call;
  const keyId = call.key.id;
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
  return call;
};

const NUMERIC_QUERY = new Set(['limit']);

// IdParams' pattern (models/common.ts `Uuid`): a path of one id (most reads) is checked by it
// alone, what zod would answer (`{ id }`); anything else goes through zod, for its issues.
// A loop, not the pattern: a read's id is checked on every request (test/sandbox/http/fast-checks.test.ts
// holds the two equal).
export function isUuid(value: string | undefined): value is string {
  if (value === undefined || value.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = value.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45 /* - */) return false;
    } else if (!((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 102))) return false;
  }
  return true;
}

// Compiled where the runtime allows generated code (models/compile.ts): the same outcome, issues included.
function validate(schema: RouteDef['body'], value: unknown, prefix: string): unknown {
  if (!schema) return value;
  const result = parseRequest(compiled(schema), value);
  if (result.ok) return result.value;
  const issues = result.issues.map((i) => ({ ...i, path: prefix && i.path ? `${prefix}.${i.path}` : i.path || prefix }));
  throw new ApiError('validation_error', 'The request is invalid.', { issues });
}

const validateInput: Check<RoutedCall, ValidatedCall> = (call: RoutedCall) => {
  const { route: routeDef } = call;
  let body: unknown = {};
  if (isMutation(call.method) && call.bodyText.trim() !== '') {
    body = parseJsonBody(call.bodyText);
  }
  const query: Record<string, unknown> = {};
  if (call.search.length > 1) {
    for (const [k, v] of new URLSearchParams(call.search)) {
      if (k in query) continue;
      query[k] = NUMERIC_QUERY.has(k) && /^-?\d{1,15}$/.test(v) ? Number(v) : v;
    }
  }
  const params = routeDef.params === IdParams && isUuid(call.params['id']) ? { id: call.params['id'] } : validate(routeDef.params, call.params, '');
  const parsedQuery = validate(routeDef.query, query, '');
  routeDef.precheck?.(body);
  const parsedBody = validate(routeDef.body, body, '');
  call.validated({ params, query: parsedQuery, body: parsedBody });
  return call;
};

// A read's answer: nothing stores it, so its version is not noted (a WeakMap entry a request).
function readAnswerOf(reply: Reply): Answer {
  if (reply.status === 204) return { status: 204, body: null, headers: {} };
  return { status: reply.status, body: reply.text ?? JSON.stringify(reply.body), headers: { 'content-type': 'application/json' } };
}

function answerOf(reply: Reply): Answer {
  const answer = readAnswerOf(reply);
  // A record's answer: the idempotency stage keeps its version, not the text (core/versions.ts).
  if (answer.body !== null && reply.compact !== undefined) noteCompact(answer, reply.compact);
  return answer;
}

// Not an async function: a handler that answers at once (most do) is answered at once.
const execute: Stage<ValidatedCall> = (call) => {
  const { input } = call;
  const reply = call.route.handler({
    platform: call.platform,
    tenant: call.tenant,
    key: call.key,
    at: call.at,
    requestId: call.requestId,
    params: input.params,
    query: input.query,
    body: input.body,
  });
  // Only a mutation's answer is stored by the idempotency stage (and its version noted for it).
  const of = isMutation(call.method) ? answerOf : readAnswerOf;
  return reply instanceof Promise ? reply.then(of) : of(reply);
};

/** Where {@link inOrder} goes on in the app's runner: at the named stage (`past`: at the one after it, where the loop would go on), with the stages in force then. */
export type Resume = (call: AppCall, stage: 'route' | 'authorize' | 'idempotency', past?: boolean) => Answer | Promise<Answer>;

/**
 * The stages above in their order, without the runner's loop, for a call that no plugin stage or
 * middleware sees (every inserted stage idle: the app decides, `App.answer`): the same checks in
 * the same order, throwing what they throw. A read of one record (no query, no body schema, no
 * precheck, not rate limited, a path of one id that passes the id's pattern or no parameters) is
 * validated and executed straight, what `validate`, `rate_limit` and `execute` would do with it;
 * anything else goes on in the runner (`resume`) at the stage it has reached. `quiet` says whether
 * every inserted stage is still idle (asked again after `authorize`, where the first of them
 * after `authenticate` stands).
 */
export function inOrder(call: AppCall, resume: Resume, quiet: () => boolean): Answer | Promise<Answer> {
  authenticate(call);
  expireIdempotency(call as AuthenticatedCall);
  const handed = route(call as AuthenticatedCall);
  if (handed !== call) return Promise.resolve(handed).then(() => resume(call, 'route', true));
  const routed: RoutedCall = handed;
  authorize(routed);
  // An event listener run by `authenticate`'s due timers may have put a fault plan in force: the
  // runner would see it at the fault stage after `authorize`, and so it does.
  if (!quiet()) return resume(routed, 'authorize', true);
  // A mutation: the idempotency stage (a replay answers there), then the runner after it, as its `next` in the loop.
  if (isMutation(routed.method)) return idempotency(routed, () => resume(routed, 'idempotency', true));
  const def = routed.route;
  if (routed.search !== '' || def.query !== undefined || def.body !== undefined || def.precheck !== undefined || def.rateLimited === true) return resume(routed, 'authorize', true);
  let params: unknown;
  if (def.params === undefined) params = routed.params;
  else if (def.params === IdParams && isUuid(routed.params['id'])) params = { id: routed.params['id'] };
  else return resume(routed, 'authorize', true);
  routed.validated({ params, query: {}, body: {} });
  return execute(routed as ValidatedCall, unreachable);
}

// `execute` is the last stage: it never calls on.
function unreachable(): never {
  throw new ApiError('not_found', 'No route.');
}

/** The stages in order. */
export const STAGES: readonly NamedStage[] = Pipeline.start()
  .check('authenticate', authenticate)
  .check('expire_idempotency', expireIdempotency)
  .check('route', route)
  .check('authorize', authorize)
  .wrap('idempotency', idempotency)
  .check('validate', validateInput)
  .check('rate_limit', rateLimit)
  .wrap('execute', execute).stages;
