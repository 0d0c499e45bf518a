/**
 * One tenant per object: a stored sandbox (`createStoredSandbox`, the assembly `serve --data`
 * uses) over the object's SQLite, answering through the sandbox's http layer. Every answered
 * mutation is committed before its answer leaves; one alarm is armed for the tenant's earliest
 * timer; webhook deliveries go out with `fetch`. The object also serves its tenant's part of the
 * operator's views: its request log's feed (`/_sandbox/logs`, the sandbox's `RequestLog`) and its
 * inspector (`/_inspector/`), the Worker routing or fanning out to them.
 * @module
 */
import { type SandboxSnapshot, type SqlDriver, createSandbox, createStoredSandbox, hasStoredSandbox } from '../sandbox/index.js';
import { LOG_FEED_PATH } from '../sandbox/http/request-log.js';
import type { StoredSandboxImpl } from '../sandbox/stored-sandbox.js';
import { directoryOf } from './directory.js';
import type { DurableObjectContext, SandboxWorkerEnv } from './runtime.js';
import { CREATE_PATH, INTERNAL_CREATE, createdTenantOf, envelope, isOperator, sandboxOptions } from './shared.js';

/** The storage port's SQL driver over an object's SQLite. */
function sqlDriver(storage: DurableObjectContext['storage']): SqlDriver {
  return {
    all: (sql, params = []) => storage.sql.exec(sql, ...params).toArray(),
    run: (sql, params = []) => {
      storage.sql.exec(sql, ...params).toArray();
    },
    transaction: (fn) => storage.transactionSync(fn),
  };
}

/** The secrets of the tenant's keys, in the stored sandbox's own table (src/sandbox/storage/sql.ts). */
function secretsOf(driver: SqlDriver): string[] {
  return driver.all('SELECT secret FROM api_keys ORDER BY rowid').map((r) => String(r['secret']));
}

/** A secret nobody holds: the feed's control key when the deployment has no `CONTROL_TOKEN` (an empty one would open it). Made on first use: Workers allow no random values at the module's top level. */
let noOperator: string | undefined;

/** One tenant: a stored sandbox over this object's SQLite, answering through the sandbox's http layer. */
export class TenantObject {
  readonly #ctx: DurableObjectContext;
  readonly #env: SandboxWorkerEnv;
  readonly #driver: SqlDriver;
  // The class behind createStoredSandbox: a host in the package reads its request log and key owner, as serve does.
  #sandbox: StoredSandboxImpl | null = null;
  #keys = '';

  constructor(ctx: DurableObjectContext, env: SandboxWorkerEnv) {
    this.#ctx = ctx;
    this.#env = env;
    this.#driver = sqlDriver(ctx.storage);
  }

  /** The stored sandbox (`initial`: the state of a new tenant, written in the first transaction); `null` before the tenant exists. */
  #open(initial?: SandboxSnapshot): StoredSandboxImpl | null {
    if (this.#sandbox !== null) return this.#sandbox;
    if (initial === undefined && !hasStoredSandbox(this.#driver)) return null;
    const storage = this.#ctx.storage;
    const sandbox = createStoredSandbox(this.#driver, {
      ...sandboxOptions(this.#env),
      // The runtime evicts the whole object when idle; one tenant stays in memory while it lives.
      idleMs: 0,
      ...(initial === undefined ? {} : { initial }),
      arm: (at) => {
        void storage.setAlarm(at);
      },
    }) as StoredSandboxImpl;
    // The inspector from the start (it watches the conversions' moves), and with it the request log.
    void sandbox.inspector;
    this.#sandbox = sandbox;
    this.#keys = secretsOf(this.#driver).join(',');
    return sandbox;
  }

  /** A request the Worker routed here (its key is this tenant's, or the operator's view of it), or the creation of this object's tenant. */
  async fetch(request: Request): Promise<Response> {
    if (request.url === INTERNAL_CREATE) return this.#create(request);
    const sandbox = this.#open();
    const path = new URL(request.url).pathname;
    if (path === LOG_FEED_PATH) {
      if (sandbox === null) return envelope('not_found', 'This object holds no tenant.');
      const controlKey = this.#env.CONTROL_TOKEN || (noOperator ??= `no-operator-${crypto.randomUUID()}`);
      return sandbox.requests.serveFeed(request, { controlKey, keyOwner: (authorization) => sandbox.keyOwner(authorization) });
    }
    if (path === '/_inspector' || path.startsWith('/_inspector/')) {
      // The Worker checked the token already; the object does not take it on trust.
      if (!isOperator(request.headers.get('authorization'), this.#env)) return envelope('authentication_failed', "The inspector needs the operator's token.");
      if (sandbox === null) return envelope('not_found', 'This object holds no tenant.');
      const answer = await sandbox.inspector.fetch(request);
      // An action may start deliveries: they carry on after the answer.
      if (request.method === 'POST') this.#ctx.waitUntil(sandbox.webhooks.flush().then(() => sandbox.flush()));
      return answer;
    }
    if (sandbox === null) return envelope('authentication_failed', 'The API key is unknown or revoked.');
    const response = await sandbox.handle(request);
    // A rotation issued a key: the directory learns it before the answer leaves.
    if (request.method !== 'GET') {
      const secrets = secretsOf(this.#driver);
      if (secrets.join(',') !== this.#keys) {
        await directoryOf(this.#env).register({ object: this.#ctx.id.toString(), tenant: sandbox.tenantId }, secrets);
        this.#keys = secrets.join(',');
      }
    }
    // Deliveries started by this request carry on after the answer.
    this.#ctx.waitUntil(sandbox.webhooks.flush().then(() => sandbox.flush()));
    return response;
  }

  /**
   * Makes this object's tenant from the body of `POST /v1/test_helpers/tenants` (`{ capabilities? }`
   * or `{ snapshot }`): the body, as the caller sent it, goes to the route in a scratch sandbox in
   * memory (the sandbox's own refusals, body limit and document checks), and the tenant it made
   * becomes this object's, written in one transaction.
   */
  async #create(request: Request): Promise<Response> {
    if (this.#open() !== null) return envelope('validation_error', 'This object already holds a tenant.');
    const scratch = createSandbox(sandboxOptions(this.#env));
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${scratch.apiKey}` };
      const type = request.headers.get('content-type');
      if (type !== null) headers['content-type'] = type;
      // The body streams on (`duplex` for runtimes that ask for it): the sandbox reads it under its own limit.
      const init = { method: 'POST', headers, body: request.body, duplex: 'half' } as RequestInit;
      const answer = await scratch.handle(new Request(`https://tenant.internal${CREATE_PATH}`, init));
      if (answer.status !== 201) return answer;
      const made = createdTenantOf(await answer.clone().text());
      const snapshot = scratch.snapshot();
      snapshot.tenants = snapshot.tenants.filter((t) => t.id === made.tenantId);
      snapshot.defaultTenantId = made.tenantId;
      // The sandbox's key falls back to the tenant's first live key when this one is not named.
      snapshot.defaultKeyId = made.keyId ?? '';
      this.#open(snapshot);
      return answer;
    } finally {
      await scratch.close();
    }
  }

  /** The alarm: the tenant's due timers fire (loading it), and their deliveries go out before it ends. */
  async alarm(): Promise<void> {
    const sandbox = this.#open();
    if (sandbox === null) return;
    sandbox.wakeUp();
    await sandbox.webhooks.flush();
    sandbox.flush();
  }
}
