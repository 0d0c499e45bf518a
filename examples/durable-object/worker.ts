/**
 * The pix-usdt sandbox on Cloudflare Durable Objects: one tenant per object (docs/scale.md).
 *
 * - The Worker (`fetch` below) authenticates the API key (key -> object through the `Directory`
 *   object, whose SQLite storage survives restarts) and routes the request to the tenant's object.
 *   `POST /v1/test_helpers/tenants` (a new tenant, or a fork of a snapshot) makes a new object:
 *   the caller's own object first checks its key (capability `sandbox:control`), as any test
 *   helper; the operator's `CONTROL_TOKEN` creates tenants too (how the first one is made).
 * - A `TenantObject` holds one tenant: the same core and http layers as `createSandbox` and
 *   `serve --data` (SandboxImpl), stored through the same storage port and schema
 *   (src/sandbox/storage/sql.ts) over `ctx.storage.sql`. Every answered mutation is committed
 *   before its answer leaves; one alarm is armed for the tenant's earliest timer; webhook
 *   deliveries go out with `fetch` (https, or http to a loopback receiver in the sandbox).
 *
 * Bundled as wrangler bundles a module worker (esbuild, `cloudflare:workers` external); run with
 * `workerd serve config.capnp` (test/durable-object/) or `wrangler deploy` (wrangler.toml here).
 */
import { DurableObject } from 'cloudflare:workers';
import { isLoopbackHost } from '../../src/client/options.js';
import { envelopeAnswer } from '../../src/sandbox/http/call.js';
import type { ErrorCode } from '../../src/sandbox/core/errors.js';
import { ERROR_STATUS } from '../../src/sandbox/core/errors.js';
import { SandboxImpl } from '../../src/sandbox/sandbox.js';
import { Persistence } from '../../src/sandbox/stored.js';
import { type SqlDriver, type SqlValue, SqlStorage, prepareSchema } from '../../src/sandbox/storage/sql.js';
import type { SandboxSnapshot } from '../../src/sandbox/core/snapshot.js';
import type { SandboxOptions, WebhookTransport } from '../../src/sandbox/index.js';

/** The parts of the Durable Objects API used here (see @cloudflare/workers-types for the whole). */
interface SqlCursor {
  toArray(): Array<Record<string, SqlValue>>;
}
interface DurableObjectState {
  readonly id: { toString(): string };
  readonly storage: {
    readonly sql: { exec(query: string, ...bindings: SqlValue[]): SqlCursor };
    transactionSync<T>(fn: () => T): T;
    setAlarm(at: number): Promise<void>;
  };
  waitUntil(promise: Promise<unknown>): void;
}
interface Stub {
  fetch(request: Request): Promise<Response>;
}
type RpcStub<T> = Stub & { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never };
interface Namespace<T> {
  idFromName(name: string): unknown;
  idFromString(id: string): unknown;
  newUniqueId(): { toString(): string };
  get(id: unknown): RpcStub<T>;
}

/** The Worker's bindings (config.capnp, wrangler.toml). */
export interface Env {
  TENANTS: Namespace<TenantObject>;
  DIRECTORY: Namespace<Directory>;
  /** The operator's token: `Authorization: Bearer <it>` creates tenants (the first one included). */
  CONTROL_TOKEN?: string;
  /** Sandbox timings, as the `serve` flags (seconds). */
  SETTLEMENT_DELAY_SECONDS?: string;
  QUOTE_TTL_SECONDS?: string;
  DEPOSIT_WINDOW_SECONDS?: string;
  /** POST /v1/quotes per key per minute (`0`: no limit). */
  QUOTE_RATE_LIMIT?: string;
}

const CREATE_PATH = '/v1/test_helpers/tenants';
const INTERNAL_CREATE = 'https://tenant.internal/_do/create';

function envelope(code: ErrorCode, message: string, details?: Record<string, unknown>): Response {
  const requestId = `req_${crypto.randomUUID().replaceAll('-', '')}`;
  const answer = envelopeAnswer({ status: ERROR_STATUS[code], code, message, details }, requestId);
  return new Response(answer.body, { status: answer.status, headers: { ...answer.headers, 'x-request-id': requestId } });
}

function numberOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

function sandboxOptions(env: Env): SandboxOptions {
  const options: SandboxOptions = { environment: 'sandbox', webhookTransport: fetchTransport };
  const settlement = numberOf(env.SETTLEMENT_DELAY_SECONDS);
  const quoteTtl = numberOf(env.QUOTE_TTL_SECONDS);
  const depositWindow = numberOf(env.DEPOSIT_WINDOW_SECONDS);
  const rate = numberOf(env.QUOTE_RATE_LIMIT);
  if (settlement !== undefined) options.settlementDelaySeconds = settlement;
  if (quoteTtl !== undefined) options.quoteTtlSeconds = quoteTtl;
  if (depositWindow !== undefined) options.depositWindowSeconds = depositWindow;
  if (rate !== undefined) options.quoteRateLimit = rate;
  return options;
}

/**
 * Webhook deliveries with `fetch`, under the sandbox's destination rule: `https://`, or `http://`
 * to a loopback receiver. Private and metadata addresses are the runtime's to refuse (Cloudflare's
 * `fetch` never reaches them; workerd's `network` service names what it may reach).
 */
const fetchTransport: WebhookTransport = async ({ url, headers, body }) => {
  const target = new URL(url);
  if (target.protocol !== 'https:' && !(target.protocol === 'http:' && isLoopbackHost(target.hostname))) {
    throw new Error(`Refused: ${target.protocol}// is allowed only to a loopback receiver; use https://`);
  }
  const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  return { status: response.status, body: text.slice(0, 1_000) };
};

/** The storage port's SQL driver over a Durable Object's SQLite. */
function sqlDriver(storage: DurableObjectState['storage']): SqlDriver {
  return {
    all: (sql, params = []) => storage.sql.exec(sql, ...params).toArray(),
    run: (sql, params = []) => {
      storage.sql.exec(sql, ...params).toArray();
    },
    transaction: (fn) => storage.transactionSync(fn),
  };
}

/** Key -> tenant object: one small object whose table survives restarts (the Worker caches hits). */
export class Directory extends DurableObject<Env> {
  readonly #sql: DurableObjectState['storage']['sql'];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx as never, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec('CREATE TABLE IF NOT EXISTS keys (secret TEXT PRIMARY KEY, object TEXT NOT NULL, tenant TEXT NOT NULL) WITHOUT ROWID');
    this.#sql.exec('CREATE TABLE IF NOT EXISTS creations (scope TEXT NOT NULL, key TEXT NOT NULL, answer TEXT NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID');
  }

  /** The object of a key's tenant, or `null`. */
  lookup(secret: string): { object: string; tenant: string } | null {
    const row = this.#sql.exec('SELECT object, tenant FROM keys WHERE secret = ?', secret).toArray()[0];
    return row === undefined ? null : { object: String(row['object']), tenant: String(row['tenant']) };
  }

  /** Registers the keys of a tenant's object (new keys of a rotation included). */
  register(object: string, tenant: string, secrets: string[]): void {
    for (const secret of secrets) this.#sql.exec('INSERT INTO keys (secret, object, tenant) VALUES (?, ?, ?) ON CONFLICT (secret) DO NOTHING', secret, object, tenant);
  }

  /** The stored answer of a tenant creation under (caller, Idempotency-Key), or `null`. */
  creation(scope: string, key: string): string | null {
    const row = this.#sql.exec('SELECT answer FROM creations WHERE scope = ? AND key = ?', scope, key).toArray()[0];
    return row === undefined ? null : String(row['answer']);
  }

  /** Stores the answer of a tenant creation, and the new tenant's keys, in one transaction. */
  created(scope: string, key: string | null, answer: string, object: string, tenant: string, secrets: string[]): void {
    this.register(object, tenant, secrets);
    if (key !== null) this.#sql.exec('INSERT INTO creations (scope, key, answer) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', scope, key, answer);
  }
}

/** One tenant: a stored sandbox over this object's SQLite, answering through the sandbox's http layer. */
export class TenantObject extends DurableObject<Env> {
  readonly #state: DurableObjectState;
  readonly #env: Env;
  #sandbox: SandboxImpl | null = null;
  #keys = '';

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx as never, env);
    this.#state = ctx;
    this.#env = env;
  }

  /** The stored sandbox (`initial`: the state of a new tenant, written in the first transaction); `null` before the tenant exists. */
  #open(initial?: SandboxSnapshot): SandboxImpl | null {
    if (this.#sandbox !== null) return this.#sandbox;
    const storage = this.#state.storage;
    const driver = sqlDriver(storage);
    const { created } = prepareSchema(driver);
    if (initial === undefined && (created || !this.#exists(driver))) return null;
    const sandbox = new SandboxImpl(sandboxOptions(this.#env), {
      stored: (parts) =>
        new Persistence(parts, {
          storage: new SqlStorage(driver),
          // The runtime evicts the whole object when idle; one tenant stays in memory while it lives.
          idleMs: 0,
          ...(initial === undefined ? {} : { initial }),
          arm: (at) => {
            void storage.setAlarm(at);
          },
        }),
    });
    this.#sandbox = sandbox;
    this.#keys = this.#secrets(driver).join(',');
    return sandbox;
  }

  #exists(driver: SqlDriver): boolean {
    return driver.all('SELECT COUNT(*) AS n FROM tenants')[0]?.['n'] !== 0;
  }

  #secrets(driver: SqlDriver): string[] {
    return driver.all('SELECT secret FROM api_keys ORDER BY rowid').map((r) => String(r['secret']));
  }

  async fetch(request: Request): Promise<Response> {
    if (request.url === INTERNAL_CREATE) return this.#create(request);
    const sandbox = this.#open();
    if (sandbox === null) return envelope('authentication_failed', 'The API key is unknown or revoked.');
    const response = await sandbox.handle(request);
    // A rotation issued a key: the directory learns it before the answer leaves.
    if (request.method !== 'GET') {
      const secrets = this.#secrets(sqlDriver(this.#state.storage));
      if (secrets.join(',') !== this.#keys) {
        await this.#env.DIRECTORY.get(this.#env.DIRECTORY.idFromName('directory')).register(this.#state.id.toString(), sandbox.tenantId, secrets);
        this.#keys = secrets.join(',');
      }
    }
    // Deliveries started by this request carry on after the answer.
    this.#state.waitUntil(sandbox.webhooks.flush().then(() => sandbox.persistence?.flushNow()));
    return response;
  }

  /**
   * Makes this object's tenant from the body of `POST /v1/test_helpers/tenants` (`{ capabilities? }`
   * or `{ snapshot }`): the route runs in a scratch sandbox in memory (same validation, same
   * refusals), and the tenant it made becomes this object's, written in one transaction.
   */
  async #create(request: Request): Promise<Response> {
    if (this.#open() !== null) return envelope('validation_error', 'This object already holds a tenant.');
    const scratch = new SandboxImpl(sandboxOptions(this.#env));
    try {
      const answer = await scratch.handle(
        new Request(`https://tenant.internal${CREATE_PATH}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${scratch.apiKey}`, 'content-type': 'application/json' },
          body: await request.text(),
        }),
      );
      if (answer.status !== 201) return answer;
      const made = (await answer.clone().json()) as { tenant_id: string; api_key: { id: string } };
      const snapshot = scratch.snapshot();
      snapshot.tenants = snapshot.tenants.filter((t) => t.id === made.tenant_id);
      snapshot.defaultTenantId = made.tenant_id;
      snapshot.defaultKeyId = made.api_key.id;
      this.#open(snapshot);
      return answer;
    } finally {
      (scratch as { close?: () => void }).close?.();
    }
  }

  /** The alarm: the tenant's due timers fire (loading it), and their deliveries go out before it ends. */
  async alarm(): Promise<void> {
    const sandbox = this.#open();
    if (sandbox === null) return;
    sandbox.persistence?.wakeUp();
    await sandbox.webhooks.flush();
    sandbox.persistence?.flushNow();
  }
}

const keyCache = new Map<string, { object: string; tenant: string }>();

function bearer(request: Request): string | null {
  const header = request.headers.get('authorization');
  return header !== null && header.startsWith('Bearer ') ? header.slice(7) : null;
}

async function objectOf(env: Env, secret: string): Promise<{ object: string; tenant: string } | null> {
  const hit = keyCache.get(secret);
  if (hit !== undefined) return hit;
  const found = await env.DIRECTORY.get(env.DIRECTORY.idFromName('directory')).lookup(secret);
  // Keys are never deleted (a revoked key still routes to its tenant, which refuses it): a hit stays true.
  if (found !== null) keyCache.set(secret, found);
  return found;
}

/** A new tenant's object; the caller (a key with `sandbox:control`, or the operator) is checked first. */
async function createTenant(request: Request, env: Env, token: string): Promise<Response> {
  const directory = env.DIRECTORY.get(env.DIRECTORY.idFromName('directory'));
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
  const made = JSON.parse(text) as { tenant_id: string; api_key: { api_key: string }; api_keys?: Array<{ api_key: string }> };
  const secrets = (made.api_keys ?? [made.api_key]).map((k) => k.api_key);
  await directory.created(scope, idempotencyKey, text, id.toString(), made.tenant_id, secrets);
  return new Response(text, { status: 201, headers: answer.headers });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/_sandbox/health') return Response.json({ ok: true });
    const token = bearer(request);
    if (token === null) return envelope('authentication_required', 'Send the header Authorization: Bearer <API key>.');
    if (request.method === 'POST' && url.pathname === CREATE_PATH) return createTenant(request, env, token);
    const found = /^sk_(test|live)_[A-Za-z0-9]{32}$/.test(token) ? await objectOf(env, token) : null;
    if (found === null) {
      return /^sk_(test|live)_[A-Za-z0-9]{32}$/.test(token)
        ? envelope('authentication_failed', 'The API key is unknown or revoked.')
        : envelope('invalid_api_key_format', 'The API key is malformed.');
    }
    return env.TENANTS.get(env.TENANTS.idFromString(found.object)).fetch(request);
  },
};
