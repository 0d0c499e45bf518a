/**
 * The Worker: authenticates the API key by the sandbox's own rule (`readApiKey`), finds its
 * tenant's object through the `Directory` object and routes the request there. The operator's
 * views (`/_sandbox/tenants`, `/_sandbox/logs`, `/_inspector/`) are operator.ts's.
 * `POST /v1/test_helpers/tenants` (a new tenant, or a fork of a snapshot) makes a new object: the
 * caller's own object first checks its key (capability `sandbox:control`), as for any test
 * helper; the operator's `CONTROL_TOKEN` creates tenants too (how the first one is made).
 * @module
 */
import { API_KEY_REFUSALS, readApiKey } from '../sandbox/index.js';
import { type KeyRoute, directoryOf } from './directory.js';
import { isOperatorPath, operatorView } from './operator.js';
import type { SandboxWorkerEnv } from './runtime.js';
import { CREATE_PATH, INTERNAL_CREATE, createdTenantOf, isOperator, refusal } from './shared.js';

// Keys are never deleted (a revoked key still routes to its tenant, which refuses it): a hit stays true.
const keyCache = new Map<string, KeyRoute>();

async function objectOf(env: SandboxWorkerEnv, secret: string): Promise<KeyRoute | null> {
  const hit = keyCache.get(secret);
  if (hit !== undefined) return hit;
  const found = await directoryOf(env).lookup(secret);
  if (found !== null) keyCache.set(secret, found);
  return found;
}

/** A new tenant's object; the caller (a key with `sandbox:control`, or the operator) is checked first. */
async function createTenant(request: Request, env: SandboxWorkerEnv): Promise<Response> {
  const directory = directoryOf(env);
  let scope = 'operator';
  const authorization = request.headers.get('authorization');
  if (!isOperator(authorization, env)) {
    const key = readApiKey(authorization);
    if (typeof key !== 'string') return refusal(key);
    const caller = await objectOf(env, key);
    if (caller === null) return refusal(API_KEY_REFUSALS.unknown);
    // The caller's object answers as for any test helper: key revoked, capability missing...
    const check = await env.TENANTS.get(env.TENANTS.idFromString(caller.object)).fetch(
      new Request('https://tenant.internal/v1/test_helpers/clock', { headers: { authorization: `Bearer ${key}` } }),
    );
    if (check.status !== 200) return check;
    scope = caller.tenant;
  }
  const idempotencyKey = request.headers.get('idempotency-key');
  if (idempotencyKey !== null) {
    const stored = await directory.creation(scope, idempotencyKey);
    if (stored !== null) return new Response(stored, { status: 201, headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' } });
  }
  const id = env.TENANTS.newUniqueId();
  // The body streams on, as sent: the new object's sandbox reads it under its own limit and refusals.
  const headers: Record<string, string> = {};
  const type = request.headers.get('content-type');
  if (type !== null) headers['content-type'] = type;
  const answer = await env.TENANTS.get(id).fetch(new Request(INTERNAL_CREATE, { method: 'POST', headers, body: request.body, duplex: 'half' } as RequestInit));
  if (answer.status !== 201) return answer;
  const text = await answer.text();
  const made = createdTenantOf(text);
  await directory.created(scope, idempotencyKey, text, { object: id.toString(), tenant: made.tenantId }, made.secrets);
  return new Response(text, { status: 201, headers: answer.headers });
}

/** The Worker's handler: the module's default export (`export { default } from 'pix-usdt/durable-object'`). */
export interface SandboxWorker {
  /** Answers one request: `/_sandbox/health`, the operator's views, or the API for the tenant of the request's key. */
  fetch(request: Request, env: SandboxWorkerEnv): Promise<Response>;
}

/** The Worker's handler. */
const worker: SandboxWorker = {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/_sandbox/health') return Response.json({ ok: true });
    if (isOperatorPath(url.pathname)) return operatorView(request, env, url);
    if (request.method === 'POST' && url.pathname === CREATE_PATH) return createTenant(request, env);
    // The sandbox's own rule and messages: no key, a malformed key, a key of the other environment.
    const key = readApiKey(request.headers.get('authorization'));
    if (typeof key !== 'string') return refusal(key);
    const found = await objectOf(env, key);
    if (found === null) return refusal(API_KEY_REFUSALS.unknown);
    return env.TENANTS.get(env.TENANTS.idFromString(found.object)).fetch(request);
  },
};

export default worker;
