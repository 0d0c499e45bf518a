/**
 * The Worker: authenticates the API key (key -> object through the `Directory` object) and routes
 * the request to the tenant's object. `POST /v1/test_helpers/tenants` (a new tenant, or a fork of
 * a snapshot) makes a new object: the caller's own object first checks its key (capability
 * `sandbox:control`), as for any test helper; the operator's `CONTROL_TOKEN` creates tenants too
 * (how the first one is made).
 * @module
 */
import { API_KEY_FORMAT } from '../models/api-key.js';
import { type KeyRoute, directoryOf } from './directory.js';
import type { SandboxWorkerEnv } from './runtime.js';
import { CREATE_PATH, INTERNAL_CREATE, envelope } from './shared.js';

// Keys are never deleted (a revoked key still routes to its tenant, which refuses it): a hit stays true.
const keyCache = new Map<string, KeyRoute>();

function bearer(request: Request): string | null {
  const header = request.headers.get('authorization');
  return header !== null && header.startsWith('Bearer ') ? header.slice(7) : null;
}

async function objectOf(env: SandboxWorkerEnv, secret: string): Promise<KeyRoute | null> {
  const hit = keyCache.get(secret);
  if (hit !== undefined) return hit;
  const found = await directoryOf(env).lookup(secret);
  if (found !== null) keyCache.set(secret, found);
  return found;
}

/** A new tenant's object; the caller (a key with `sandbox:control`, or the operator) is checked first. */
async function createTenant(request: Request, env: SandboxWorkerEnv, token: string): Promise<Response> {
  const directory = directoryOf(env);
  let scope = 'operator';
  if (token !== env.CONTROL_TOKEN || env.CONTROL_TOKEN === undefined || env.CONTROL_TOKEN === '') {
    const caller = await objectOf(env, token);
    if (caller === null) return envelope('authentication_failed', 'The API key is unknown or revoked.');
    // The caller's object answers as for any test helper: key revoked, capability missing...
    const check = await env.TENANTS.get(env.TENANTS.idFromString(caller.object)).fetch(
      new Request('https://tenant.internal/v1/test_helpers/clock', { headers: { authorization: `Bearer ${token}` } }),
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
  const answer = await env.TENANTS.get(id).fetch(new Request(INTERNAL_CREATE, { method: 'POST', body: await request.text() }));
  if (answer.status !== 201) return answer;
  const text = await answer.text();
  const made = JSON.parse(text) as { tenant_id: string; api_keys: Array<{ api_key: string }> };
  const secrets = made.api_keys.map((k) => k.api_key);
  await directory.created(scope, idempotencyKey, text, { object: id.toString(), tenant: made.tenant_id }, secrets);
  return new Response(text, { status: 201, headers: answer.headers });
}

/** The Worker's handler: the module's default export (`export { default } from 'pix-usdt/durable-object'`). */
export interface SandboxWorker {
  /** Answers one request: `/_sandbox/health`, or the API for the tenant of the request's key. */
  fetch(request: Request, env: SandboxWorkerEnv): Promise<Response>;
}

/** The Worker's handler. */
const worker: SandboxWorker = {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/_sandbox/health') return Response.json({ ok: true });
    const token = bearer(request);
    if (token === null) return envelope('authentication_required', 'Send the header Authorization: Bearer <API key>.');
    if (request.method === 'POST' && url.pathname === CREATE_PATH) return createTenant(request, env, token);
    const wellFormed = API_KEY_FORMAT.test(token);
    const found = wellFormed ? await objectOf(env, token) : null;
    if (found === null) {
      return wellFormed ? envelope('authentication_failed', 'The API key is unknown or revoked.') : envelope('invalid_api_key_format', 'The API key is malformed.');
    }
    return env.TENANTS.get(env.TENANTS.idFromString(found.object)).fetch(request);
  },
};

export default worker;
