/**
 * One tenant per object: a stored sandbox (`createStoredSandbox`, the assembly `serve --data`
 * uses) over the object's SQLite, answering through the sandbox's http layer. Every answered
 * mutation is committed before its answer leaves; one alarm is armed for the tenant's earliest
 * timer; webhook deliveries go out with `fetch`.
 * @module
 */
import { type SandboxSnapshot, type SqlDriver, type StoredSandbox, createSandbox, createStoredSandbox, hasStoredSandbox } from '../sandbox/index.js';
import { directoryOf } from './directory.js';
import type { DurableObjectContext, SandboxWorkerEnv } from './runtime.js';
import { CREATE_PATH, INTERNAL_CREATE, envelope, sandboxOptions } from './shared.js';

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

/** One tenant: a stored sandbox over this object's SQLite, answering through the sandbox's http layer. */
export class TenantObject {
  readonly #ctx: DurableObjectContext;
  readonly #env: SandboxWorkerEnv;
  readonly #driver: SqlDriver;
  #sandbox: StoredSandbox | null = null;
  #keys = '';

  constructor(ctx: DurableObjectContext, env: SandboxWorkerEnv) {
    this.#ctx = ctx;
    this.#env = env;
    this.#driver = sqlDriver(ctx.storage);
  }

  /** The stored sandbox (`initial`: the state of a new tenant, written in the first transaction); `null` before the tenant exists. */
  #open(initial?: SandboxSnapshot): StoredSandbox | null {
    if (this.#sandbox !== null) return this.#sandbox;
    if (initial === undefined && !hasStoredSandbox(this.#driver)) return null;
    const storage = this.#ctx.storage;
    this.#sandbox = createStoredSandbox(this.#driver, {
      ...sandboxOptions(this.#env),
      // The runtime evicts the whole object when idle; one tenant stays in memory while it lives.
      idleMs: 0,
      ...(initial === undefined ? {} : { initial }),
      arm: (at) => {
        void storage.setAlarm(at);
      },
    });
    this.#keys = secretsOf(this.#driver).join(',');
    return this.#sandbox;
  }

  /** A request the Worker routed here (its key is this tenant's), or the creation of this object's tenant. */
  async fetch(request: Request): Promise<Response> {
    if (request.url === INTERNAL_CREATE) return this.#create(request);
    const sandbox = this.#open();
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
   * or `{ snapshot }`): the route runs in a scratch sandbox in memory (same validation, same
   * refusals), and the tenant it made becomes this object's, written in one transaction.
   */
  async #create(request: Request): Promise<Response> {
    if (this.#open() !== null) return envelope('validation_error', 'This object already holds a tenant.');
    const scratch = createSandbox(sandboxOptions(this.#env));
    try {
      const answer = await scratch.handle(
        new Request(`https://tenant.internal${CREATE_PATH}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${scratch.apiKey}`, 'content-type': 'application/json' },
          body: await request.text(),
        }),
      );
      if (answer.status !== 201) return answer;
      const made = (await answer.clone().json()) as { tenant_id: string; api_key: string; api_keys: Array<{ id: string; api_key: string }> };
      const snapshot = scratch.snapshot();
      snapshot.tenants = snapshot.tenants.filter((t) => t.id === made.tenant_id);
      snapshot.defaultTenantId = made.tenant_id;
      snapshot.defaultKeyId = (made.api_keys.find((k) => k.api_key === made.api_key) as { id: string }).id;
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
