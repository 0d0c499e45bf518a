/**
 * The public types of `pix-usdt/sandbox`: options, the sandbox, a tenant, listener signatures.
 * @module
 */
import type { LimitPair } from './core/limits.js';
import type { PlatformEvents } from './core/platform.js';
import type { PricingSettings } from './core/pricing.js';
import type { SandboxClock } from './core/clock.js';
import type { SandboxSnapshot } from './core/snapshot.js';
import type { TenantDocument } from './core/transfer.js';
import type { SandboxEvent } from './core/state.js';
import type { Middleware } from './http/call.js';
import type { SandboxInspector } from './inspector/types.js';
import type { SandboxFaults } from './plugins/faults/index.js';
import type { SandboxWebhooks, WebhookDeliveryOptions, WebhookTransport } from './plugins/webhooks/index.js';

/** Options of `createSandbox`. */
export interface SandboxOptions {
  /** `'sandbox'` (default: `sk_test_` keys, test helpers) or `'production'` (`sk_live_` keys, test helpers answer 404). */
  environment?: 'sandbox' | 'production';
  /** Freeze the clock at this instant (it then moves only with `advance`). Default: follow real time. */
  now?: Date | string | number;
  /** Deterministic ids and secrets. Default: random. */
  seed?: number | string;
  /** Quote validity in seconds (default 300; the reference also mentions 30). */
  quoteTtlSeconds?: number;
  /** Deposit window of a conversion in seconds (default 900). */
  depositWindowSeconds?: number;
  /** Delay between a Pix payout being dispatched and its settlement, in seconds (default 60). */
  settlementDelaySeconds?: number;
  /** Initial pricing (see {@link PricingSettings}). */
  pricing?: Partial<PricingSettings>;
  /** Volume limits in BRL (defaults in docs/sandbox.md). */
  limits?: {
    /** Limits across every tenant of the platform. */
    platform?: Partial<LimitPair>;
    /** `'tenant'` (default): each tenant is its own platform, so tenants never limit each other. `'shared'`: one platform usage across every tenant. */
    platformScope?: 'tenant' | 'shared';
    /** Limits of each tenant (partner). */
    partner?: Partial<LimitPair>;
    /** Limits of each end user. */
    user?: Partial<LimitPair>;
  };
  /** Events kept per tenant by `events()` (default 10,000). */
  eventLogSize?: number;
  /** How long idempotency records are kept, in seconds (default 86,400). */
  idempotencyTtlSeconds?: number;
  /** Sends webhook deliveries (default: in-process receivers registered with `sandbox.webhooks.listen`). */
  webhookTransport?: WebhookTransport;
  /** Test modes of webhook delivery: duplicates, shuffled order, retry schedule. */
  webhooks?: WebhookDeliveryOptions;
  /** `POST /v1/quotes` allowed per API key in a sliding 60 s window (default 60, as the reference; 0 turns it off for load tests). */
  quoteRateLimit?: number;
}

/** A tenant created from code. */
export interface SandboxTenant {
  /** The new tenant's id. */
  tenantId: string;
  /** The secret of the tenant's first API key. */
  apiKey: string;
  /** The tenant's own clock. */
  clock: SandboxClock;
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
  /** Changes the pricing at run time (e.g. `{ midRate: '5.10' }` or `{ available: false }`). */
  setPrice(settings: Partial<PricingSettings>): void;
  /** The current pricing. */
  readonly price: PricingSettings;
  /** Changes the volume limits at run time. */
  setLimits(limits: { platform?: Partial<LimitPair>; partner?: Partial<LimitPair>; user?: Partial<LimitPair>; platformScope?: 'tenant' | 'shared' }): void;
  /** Back to the initial state (same tenant id and API key), clocks kept where they are. */
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
   */
  readonly inspector: SandboxInspector;
  /** Listens to `event` (every state change, with its tenant id) or `error` (a listener threw). */
  on<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this;
  /** Like {@link Sandbox.on}, for the next emission only. */
  once<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this;
  /** Removes `listener` (or, without one, every listener of `event`). */
  off<K extends keyof SandboxEvents>(event: K, listener?: (...args: SandboxEvents[K]) => void): this;
}
