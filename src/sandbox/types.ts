/**
 * The public types of `pix-usdt/sandbox`: options, the sandbox, a tenant, listener signatures.
 * @module
 */
import type { LimitPair, LimitSettings } from './core/limits.js';
import type { PlatformEvents } from './core/platform.js';
import type { PricingSettings } from './core/pricing.js';
import type { SandboxClock } from './core/clock.js';
import type { LimitsPatch, PlatformScope, TimingSettings } from './core/settings.js';
import type { SandboxSnapshot } from './core/snapshot.js';
import type { TenantDocument } from './core/transfer.js';
import type { SandboxEvent } from './core/state.js';
import type { Middleware } from './http/call.js';
import type { SandboxInspector } from './inspector/types.js';
import type { SandboxFaults } from './plugins/faults/index.js';
import type { SandboxWebhooks, WebhookDeliveryOptions, WebhookTransport } from './plugins/webhooks/index.js';

declare global {
  // The symbols of explicit resource management (`using`), declared as @types/node and
  // TypeScript's lib.esnext.disposable declare them, for projects with neither (a browser app
  // on lib es2022): `Sandbox` names them. Node 20 and current engines define them at run time.
  interface SymbolConstructor {
    readonly dispose: unique symbol;
    readonly asyncDispose: unique symbol;
  }
}

/** Options of `createSandbox`. */
export interface SandboxOptions {
  /** `'sandbox'` (default: `sk_test_` keys, test helpers) or `'production'` (`sk_live_` keys, test helpers answer 404). */
  environment?: 'sandbox' | 'production';
  /** Freeze the clock at this instant (it then moves only with `advance`). Default: follow real time. */
  now?: Date | string | number;
  /** Deterministic ids and secrets. Default: random. */
  seed?: number | string;
  /**
   * Quote validity in seconds, from 0.001 to 31,536,000 (default 300; the reference also
   * mentions 30). This and the next two are every tenant's starting timings: a tenant changes
   * its own with {@link SandboxTenantSettings.setTimings} or `POST /v1/test_helpers/settings`.
   */
  quoteTtlSeconds?: number;
  /** Deposit window of a conversion or a transaction in seconds (default 900). */
  depositWindowSeconds?: number;
  /** Delay between a Pix payout being dispatched and its settlement, in seconds (default 60). */
  settlementDelaySeconds?: number;
  /**
   * Every tenant's starting price feed (see {@link PricingSettings}): `midRate` from 0.01 with at
   * most 6 decimals, `spreadBps` 0 to 9,999, `withdrawalFeeUsdt` at most 6 decimals. A tenant
   * changes its own with {@link SandboxTenantSettings.setPrice} or `POST /v1/test_helpers/price`.
   */
  pricing?: Partial<PricingSettings>;
  /** Every tenant's starting volume limits in BRL, at most 2 decimals (defaults in docs/sandbox.md). */
  limits?: {
    /** The platform level: each tenant's own, or under `platformScope: 'shared'` the one ceiling of every tenant's volume together. */
    platform?: Partial<LimitPair>;
    /**
     * `'tenant'` (default): each tenant is its own platform, so tenants never limit each other.
     * `'shared'`: one platform usage across every tenant, held to the `platform` limit given
     * here, which no tenant can change. Set once, here (`serve --shared-platform-limits`).
     */
    platformScope?: PlatformScope;
    /** Limits of each tenant (partner). */
    partner?: Partial<LimitPair>;
    /** Limits of each end user. */
    user?: Partial<LimitPair>;
  };
  /** Events kept per tenant by `events()` (default 10,000). */
  eventLogSize?: number;
  /** How long idempotency records are kept, in seconds (default 86,400, the reference's 24 hours). */
  idempotencyTtlSeconds?: number;
  /**
   * Finished webhook deliveries (with their attempts) kept per tenant, the newest ones; pending
   * deliveries are always kept (default 10,000). An older delivery answers `webhook_delivery_not_found`.
   */
  deliveryLogSize?: number;
  /** Answered requests kept for `sandbox.inspector` and a server's `logs tail` (default 1,000). */
  requestLogSize?: number;
  /** Sends webhook deliveries (default: in-process receivers registered with `sandbox.webhooks.listen`). */
  webhookTransport?: WebhookTransport;
  /** Test modes of webhook delivery: duplicates, shuffled order, retry schedule. */
  webhooks?: WebhookDeliveryOptions;
  /** `POST /v1/quotes` allowed per API key in a sliding 60 s window (default 60, as the reference; 0 turns it off for load tests). */
  quoteRateLimit?: number;
  /**
   * Tenants that one root's tree may make over the API (`POST /v1/test_helpers/tenants`, new or
   * forks), default 1,000. A tenant made in code (the default tenant, `createTenant`) is a root;
   * one made over the API belongs to the root of the caller's tenant, so tenants made by tenants
   * it made count against it too. Past the bound the call answers 403 `tenant_limit_exceeded`
   * and makes nothing. 0 lets no key make tenants; `Infinity` sets no bound.
   * (`serve --max-tenants-per-root`.)
   */
  maxTenantsPerRoot?: number;
}

/** A tenant created from code. */
export interface SandboxTenant {
  /** The new tenant's id. */
  tenantId: string;
  /** The secret of the tenant's first API key. */
  apiKey: string;
  /** The tenant's own clock. */
  clock: SandboxClock;
  /** The tenant's own price feed, limits and timings. */
  settings: SandboxTenantSettings;
}

/**
 * One tenant's price feed, volume limits and timings, in process (over HTTP: `GET`/`POST
 * /v1/test_helpers/price`, `/limits` and `/settings` with the tenant's key). A tenant starts
 * from the sandbox's options; a change applies to that tenant only, to what it creates next
 * (a quote's TTL and a conversion's window are fixed when they are created), and is part of its
 * snapshot. The setters take what they change and keep the rest; a bad value throws a
 * `RangeError` naming the field, as the routes answer `validation_error` for the same value.
 *
 * @example
 * ```ts
 * const tenant = sandbox.createTenant();
 * tenant.settings.setPrice({ midRate: '5.10', available: true });
 * tenant.settings.setLimits({ user: { daily: '100.00' } });
 * tenant.settings.setTimings({ quoteTtlSeconds: 30 });
 * sandbox.settingsOf(tenant.tenantId).price.midRate; // '5.10', and the default tenant still has its own
 * ```
 */
export interface SandboxTenantSettings {
  /** The price feed in force (a copy). */
  readonly price: PricingSettings;
  /** Changes the price feed: `{ midRate: '5.10' }`, `{ available: false }` (quotes then answer 503 `price_feed_unavailable`). */
  setPrice(price: Partial<PricingSettings>): void;
  /** The volume limits in force (a copy), with the sandbox's `platformScope`. */
  readonly limits: LimitSettings & { platformScope: PlatformScope };
  /**
   * Changes the volume limits (BRL decimal strings, at most 2 decimals): `{ user: { daily: '100.00' } }`.
   * Under shared platform limits the `platform` level is the operator's and is refused here.
   */
  setLimits(limits: LimitsPatch): void;
  /** The timings in force (a copy), in seconds. */
  readonly timings: TimingSettings;
  /** Changes the timings of what the tenant creates next (seconds, from 0.001 to 31,536,000, kept to the millisecond). */
  setTimings(timings: Partial<TimingSettings>): void;
}

/**
 * Options for `new PixUsdt(...)` wired to a sandbox (see {@link Sandbox.clientOptions}): its key,
 * its `fetch`, and `sleep` and `now` on the tenant's virtual clock, so that the client's retry
 * waits move the clock instead of waiting in real time.
 */
export interface SandboxClientOptions {
  /** The tenant's API key. */
  apiKey: string;
  /** The sandbox's `fetch` ({@link Sandbox.fetch}). */
  fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /**
   * Waits `ms` of virtual time: advances the tenant's clock by `ms` (firing the timers that fall
   * due, as real waiting would) and resolves at once. Rejects with the signal's reason when
   * `signal` is aborted.
   */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The tenant's virtual time in ms since the epoch (the client's deadlines and Retry-After dates). */
  now: () => number;
}

/** Listener signatures of {@link Sandbox.on}. */
export type SandboxEvents = PlatformEvents;

/** An in-process sandbox of the whole platform. */
export interface Sandbox {
  /** `fetch`-compatible and bound: hand it to `new PixUsdt({ fetch })`. Relative URLs are accepted. */
  readonly fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /** The core: one web `Request` in, one `Response` out. Never throws, never answers 500 for bad input. */
  handle(request: Request): Promise<Response>;
  /** The secret of the default tenant's API key. */
  readonly apiKey: string;
  /** The default tenant's id. */
  readonly tenantId: string;
  /** The environment chosen at creation (`SandboxOptions.environment`). */
  readonly environment: 'sandbox' | 'production';
  /** The default tenant's clock. */
  readonly clock: SandboxClock;
  /**
   * Options for `new PixUsdt(...)`: the API key of the default tenant (or of `tenant`, from
   * {@link Sandbox.createTenant}), this sandbox's `fetch`, and `sleep` and `now` on that tenant's
   * virtual clock, so that a retried call completes without waiting in real time.
   *
   * @example
   * ```ts
   * const client = new PixUsdt(sandbox.clientOptions());
   * ```
   */
  clientOptions(tenant?: Pick<SandboxTenant, 'apiKey' | 'tenantId'>): SandboxClientOptions;
  /** Another tenant's clock. */
  clockOf(tenantId: string): SandboxClock;
  /** The default tenant's price feed, limits and timings ({@link Sandbox.settingsOf} for another tenant's). */
  readonly settings: SandboxTenantSettings;
  /** A tenant's own price feed, limits and timings (a `RangeError` for an unknown tenant). */
  settingsOf(tenantId: string): SandboxTenantSettings;
  /**
   * Creates an isolated tenant with one API key (all capabilities unless given); with `snapshot`
   * (from {@link Sandbox.exportTenant}, object or JSON text), a fork of it: the same data under a
   * new tenant id and new API keys, its clock at the snapshot's time and its timers re-created on
   * it. `apiKey` is then the fork's first key that is not revoked. A snapshot of another version,
   * environment or format, damaged or larger than 16 MiB throws a `TenantDocumentError` and
   * creates nothing.
   */
  createTenant(options?: { capabilities?: string[]; snapshot?: TenantDocument | string }): SandboxTenant;
  /**
   * One tenant (default: the default tenant) as a versioned JSON document: its data, clock time,
   * timers' records, settings, API keys, webhook endpoints and their secrets, idempotency records
   * and events. Holds secrets: fixtures only. `createTenant({ snapshot })` forks it, here or in
   * another sandbox (`GET /v1/test_helpers/tenant/snapshot` answers the same document).
   */
  exportTenant(tenantId?: string): TenantDocument;
  /** Recorded events of a tenant (default: the default tenant), oldest first. */
  events(tenantId?: string): SandboxEvent[];
  /** The default tenant's `settings.setPrice` (e.g. `{ midRate: '5.10' }` or `{ available: false }`); other tenants keep theirs. */
  setPrice(price: Partial<PricingSettings>): void;
  /** The default tenant's price feed (a copy). */
  readonly price: PricingSettings;
  /** The default tenant's `settings.setLimits`; other tenants keep theirs. */
  setLimits(limits: LimitsPatch): void;
  /** The default tenant's volume limits (a copy). */
  readonly limits: LimitSettings & { platformScope: PlatformScope };
  /** The default tenant's `settings.setTimings` (quote TTL, deposit window, settlement delay); other tenants keep theirs. */
  setTimings(timings: Partial<TimingSettings>): void;
  /** The default tenant's timings (a copy). */
  readonly timings: TimingSettings;
  /** Back to the initial state (same tenant id and API key, the default settings), clocks kept where they are. */
  reset(): void;
  /** The whole state as JSON-serializable data. Contains API key secrets: fixtures only. */
  snapshot(): SandboxSnapshot;
  /** Replaces the state with a snapshot (object or JSON text); timers are re-created. */
  restore(snapshot: SandboxSnapshot | string): void;
  /** Inserts a pipeline stage before a named one (default `idempotency`); the seam of fault injection. */
  use(name: string, middleware: Middleware, before?: string): void;
  /** Webhook delivery helpers for tests: receivers, delivered events, pending deliveries. */
  readonly webhooks: SandboxWebhooks;
  /** Deterministic fault injection (also at /v1/test_helpers/faults). */
  readonly faults: SandboxFaults;
  /**
   * The inspector: a read-only inspection API of the whole state, and a web console's `fetch`
   * handler to mount in a dev server (`pix-usdt-sandbox serve` serves it at `/_inspector/`).
   * It opens on first use: the request log and each conversion's live path start then (a path
   * not seen live is rebuilt from the event log), so that a suite that never looks pays nothing
   * for it. Read `sandbox.inspector` once at set-up to see every request.
   */
  readonly inspector: SandboxInspector;
  /** Listens to `event` (every state change, with its tenant id) or `error` (a listener threw). */
  on<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this;
  /** Like {@link Sandbox.on}, for the next emission only. */
  once<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this;
  /** Removes `listener` (or, without one, every listener of `event`). */
  off<K extends keyof SandboxEvents>(event: K, listener?: (...args: SandboxEvents[K]) => void): this;
  /**
   * Stops the sandbox at once, when called: no timer of any tenant fires any more, no queued
   * webhook attempt is sent, and attempts in flight are aborted (their transport's `signal`, or
   * an in-process receiver's `context.signal`) and not recorded. The promise resolves once those
   * attempts have ended. Closing twice is harmless (the same promise).
   *
   * After it, whatever acts throws a `SandboxClosedError` (a promise rejects with one): `fetch`
   * rejects as a `fetch` to a stopped server does (`TypeError('fetch failed')` with the error
   * as its `cause`), as do `handle`, `clock.advance`, `createTenant`, `clientOptions`,
   * `setPrice`, `setLimits`, `reset`, `restore`, `use`, `on`, `once`, `webhooks.listen`,
   * `webhooks.nextEvent`, `webhooks.flush` and `faults.add`; a pending `nextEvent` rejects.
   * Reads (`events`, `snapshot`, `webhooks.delivered`, `webhooks.pending`, the inspector's reads,
   * `clock.now`...) answer the state as it was when it closed.
   *
   * A sandbox nobody references is garbage-collected with its timers without `close()`; close
   * it to stop its deliveries at a known point (the end of a test).
   *
   * @example
   * ```ts
   * afterEach(() => sandbox.close());
   * // or, with explicit resource management:
   * await using sandbox = createSandbox();
   * ```
   */
  close(): Promise<void>;
  /** Closes the sandbox without waiting for attempts in flight (`using sandbox = createSandbox()`). */
  [Symbol.dispose](): void;
  /** Closes the sandbox and waits for attempts in flight (`await using sandbox = createSandbox()`). */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Options of `createStoredSandbox`: the sandbox's own ({@link SandboxOptions}), and what its
 * host supplies (when to write, how to wake up, how much to keep in memory, whom to tell of
 * failed writes). Everything else (the schema, how a tenant becomes rows, when a change is
 * committed) is the sandbox's.
 */
export interface StoredSandboxOptions extends SandboxOptions {
  /**
   * Arms the host's own alarm for `at` (epoch ms, real time), the earliest timer of any tenant
   * (a Durable Object's `ctx.storage.setAlarm`); the alarm's handler then calls
   * {@link StoredSandbox.wakeUp}. Only the earliest instant is armed: a later call replaces it.
   * Without `arm`, one real timer of this process does it.
   */
  arm?: (at: number) => void;
  /**
   * Runs `fn` after the other callbacks of this turn of the event loop (`setImmediate` on Node):
   * the answers of one turn then share one transaction (a group commit). Without it, each answer
   * commits on its own before it leaves.
   */
  defer?: (fn: () => void) => void;
  /** A tenant unused this long (ms) leaves memory, written; 0 keeps every tenant loaded (default 60,000). */
  idleMs?: number;
  /** At most this many tenants in memory: past it, the least recently used idle one leaves (default 1,000). */
  maxTenants?: number;
  /**
   * When the database holds no sandbox yet: start from this state (a `sandbox.snapshot()`)
   * instead of one new default tenant. It is written in the first transaction; its tenants then
   * load on first use. Ignored when the database already holds a sandbox.
   */
  initial?: SandboxSnapshot;
  /**
   * Told when writes start failing (once, until one succeeds again). Meanwhile every request
   * answers 503 `storage_unavailable`, changing nothing, and the tenants in memory are dropped
   * (the database keeps what was answered before).
   */
  onWriteError?: (error: unknown) => void;
  /** Told when a write succeeds after failures. */
  onWriteRecovered?: () => void;
  /**
   * Told when a read of the database fails: once for each tenant whose data cannot be read
   * (`tenantId`), and once for reads of no one tenant (a key lookup, a listing: `null`). The
   * request that needed the read answers 503 `storage_unavailable` and changes nothing. When the
   * error says the data is damaged (a `StorageError` with reason `damaged`: a malformed page,
   * rows that do not decode), the tenant is marked: its requests answer 503 at once, without
   * reading again, until the sandbox is built again; the other tenants are served and their
   * timers fire.
   */
  onReadError?: (error: unknown, tenantId: string | null) => void;
}

/**
 * A sandbox whose state lives in a SQL database (`createStoredSandbox`): the database is the
 * truth, memory holds the tenants in use. Tenants load on first use and leave memory when idle;
 * every answered mutation is committed before its answer leaves (503 `storage_unavailable`,
 * nothing changed, when the write fails); timers wake their tenants from the database, so a
 * restart on the same database resumes every tenant with its pending timers.
 *
 * `close()` stops it and writes what waits; the driver stays the host's to close afterwards.
 */
export interface StoredSandbox extends Sandbox {
  /**
   * Writes, now and in one transaction, the changes made without a request (a webhook attempt's
   * outcome, a timer that fired): the sandbox writes them on its own on the next turn of the
   * event loop, but a host whose runtime may stop after a callback (a Durable Object after
   * `alarm()` or a `waitUntil`) calls this before it ends.
   */
  flush(): void;
  /**
   * Fires the timers of every tenant whose earliest timer has come (loading it when needed) and
   * writes their changes: the handler of the host's alarm ({@link StoredSandboxOptions.arm}),
   * which is armed again for the next timer.
   */
  wakeUp(): void;
}
