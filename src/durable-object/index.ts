/**
 * `pix-usdt/durable-object`: the sandbox on Cloudflare Durable Objects, one tenant per object
 * (docs/scale.md). A partner's whole Worker is
 *
 * ```ts
 * export { default, TenantObject, Directory } from 'pix-usdt/durable-object';
 * ```
 *
 * plus a `wrangler.toml` that binds `TENANTS` to `TenantObject` and `DIRECTORY` to `Directory`
 * (both SQLite classes: `new_sqlite_classes`), and sets `CONTROL_TOKEN` as a secret. No
 * `nodejs_compat`: only web APIs are used.
 *
 * - The Worker (the default export) authenticates the API key, finds its tenant's object through
 *   the {@link Directory} and forwards the request.
 * - A {@link TenantObject} holds one tenant: a stored sandbox (`createStoredSandbox` of
 *   `pix-usdt/sandbox`, the assembly `serve --data` uses) over the object's SQLite, one alarm for
 *   its earliest timer, webhook deliveries with `fetch`.
 * @module
 */
export { default, type SandboxWorker } from './worker.js';
export { TenantObject } from './tenant.js';
export { Directory } from './directory.js';
export type { DurableObjectBinding, DurableObjectContext, DurableObjectIdLike, DurableObjectStubLike, SandboxWorkerEnv } from './runtime.js';
