/**
 * `pix-usdt/sandbox`: the whole platform in memory, behind `fetch`.
 *
 * ```ts
 * const sandbox = createSandbox({ seed: 1, now: '2026-01-01T00:00:00Z' });
 * const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
 * await sandbox.clock.advance({ minutes: 15 });
 * ```
 * @module
 */
import type { Duration, SandboxClock } from './clock.js';
import { Engine, type EngineEvents } from './engine.js';
import { DEFAULT_LIMITS, type LimitPair, type LimitSettings } from './limits.js';
import { type Answer, type Middleware, incomingOf } from './pipeline.js';
import type { PricingSettings } from './pricing.js';
import { type SandboxSnapshot, loadSnapshot, takeSnapshot } from './snapshot.js';
import type { SandboxEvent, TenantState } from './state.js';
import { FaultInjector, NETWORK_FAULT_HEADER, type SandboxFaults } from './faults/index.js';
import { SandboxResponse, fastIncoming } from './fetch.js';
import { type SandboxWebhooks, type WebhookDeliveryOptions, type WebhookTransport, WebhookService } from './webhooks/index.js';

export { ApiError, ERROR_STATUS, type ErrorCode } from './errors.js';
export { CAPABILITIES, type Capability } from './capabilities.js';
export { DEFAULT_PRICING, type PricingSettings } from './pricing.js';
export { DEFAULT_LIMITS, type LimitPair, type LimitSettings } from './limits.js';
export type { Duration, SandboxClock } from './clock.js';
export type { SandboxEvent } from './state.js';
export type { SandboxSnapshot, TenantSnapshot } from './snapshot.js';
export * from './webhooks/public.js';
export * from './faults/public.js';
export type { Answer, Call, HeaderReader, Middleware } from './pipeline.js';
export { CONVERSION_MACHINE, KYC_MACHINE, QUOTE_MACHINE, TRANSACTION_MACHINE, type Machine, type Transition } from './machines.js';
export {
  SANDBOX_PIX_EMAIL,
  SANDBOX_PIX_EVP,
  SANDBOX_PIX_NOT_FOUND_EMAIL,
  SANDBOX_PIX_NOT_FOUND_EVP,
  SANDBOX_PIX_NOT_FOUND_PHONE,
  SANDBOX_PIX_PHONE,
} from './pix.js';
export { isValidCnpj, isValidCpf } from './documents.js';

/** Options of {@link createSandbox}. */
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
    /** Platform-level limits: of each tenant on its own, unless `platformScope` is `'shared'`. */
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

/** Listener signatures of {@link Sandbox.on}. */
export type SandboxEvents = EngineEvents;

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
  /** Another tenant's clock. */
  clockOf(tenantId: string): SandboxClock;
  /** Creates an isolated tenant with one API key (all capabilities unless given). */
  createTenant(options?: { capabilities?: string[] }): SandboxTenant;
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
  /** Listens to `event` (every state change, with its tenant id) or `error` (a listener threw). */
  on<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this;
  /** Like {@link Sandbox.on}, for the next emission only. */
  once<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this;
  /** Removes `listener` (or, without one, every listener of `event`). */
  off<K extends keyof SandboxEvents>(event: K, listener?: (...args: SandboxEvents[K]) => void): this;
}

function toMs(value: Date | string | number): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw new TypeError('`now` must be a valid date.');
  return ms;
}

function seconds(value: number | undefined, fallback: number, name: string): number {
  const s = value ?? fallback;
  if (!Number.isFinite(s) || s <= 0) throw new RangeError(`${name} must be a positive number of seconds.`);
  return s * 1000;
}

function mergeLimits(base: LimitSettings, patch: SandboxOptions['limits']): LimitSettings {
  return {
    platform: { ...base.platform, ...patch?.platform },
    platformScope: patch?.platformScope ?? base.platformScope ?? 'tenant',
    partner: { ...base.partner, ...patch?.partner },
    user: { ...base.user, ...patch?.user },
  };
}

const SANDBOX_ORIGIN = 'https://sandbox.pix-usdt.local';

// What `fetch` gives for an answer: a network fault rejects as `fetch` does on a failed connection.
function fetchAnswer(answer: Answer): Response {
  const marker = answer.headers[NETWORK_FAULT_HEADER];
  if (marker !== undefined) throw new TypeError('fetch failed', { cause: new Error(`Connection reset (sandbox fault ${marker})`) });
  return new SandboxResponse(answer.body, { status: answer.status, headers: answer.headers });
}

class SandboxImpl implements Sandbox {
  readonly #engine: Engine;
  readonly #initial: SandboxSnapshot;
  readonly fetch: Sandbox['fetch'];
  readonly clock: SandboxClock;
  readonly webhooks: WebhookService;
  readonly faults: FaultInjector;

  constructor(options: SandboxOptions) {
    const environment = options.environment ?? 'sandbox';
    if (environment !== 'sandbox' && environment !== 'production') throw new TypeError("environment must be 'sandbox' or 'production'.");
    this.#engine = new Engine(
      {
        environment,
        start: options.now === undefined ? null : toMs(options.now),
        seed: options.seed,
        quoteTtlMs: seconds(options.quoteTtlSeconds, 300, 'quoteTtlSeconds'),
        depositWindowMs: seconds(options.depositWindowSeconds, 900, 'depositWindowSeconds'),
        settlementDelayMs: seconds(options.settlementDelaySeconds, 60, 'settlementDelaySeconds'),
        transactionWindowMs: seconds(options.depositWindowSeconds, 900, 'depositWindowSeconds'),
        idempotencyTtlMs: seconds(options.idempotencyTtlSeconds, 86_400, 'idempotencyTtlSeconds'),
        eventLogSize: Math.max(1, options.eventLogSize ?? 10_000),
        quoteRateLimit: Math.max(0, options.quoteRateLimit ?? 60),
      },
      options.pricing,
      mergeLimits(DEFAULT_LIMITS, options.limits),
    );
    const { tenant, key } = this.#engine.createTenant();
    this.#engine.defaultTenantId = tenant.id;
    this.#engine.defaultKeyId = key.id;
    this.webhooks = new WebhookService(this.#engine, options.webhookTransport, options.webhooks);
    this.faults = new FaultInjector(this.#engine);
    this.#initial = takeSnapshot(this.#engine);
    this.fetch = (input, init) => {
      try {
        const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
        if (signal?.aborted) return Promise.reject(signal.reason);
        // ky passes a Request plus an empty options object: building a second Request would cost as much as the engine.
        const incoming =
          fastIncoming(input, init, SANDBOX_ORIGIN) ??
          incomingOf(
            input instanceof Request && (init === undefined || Object.keys(init).length === 0)
              ? input
              : new Request(typeof input === 'string' && input.startsWith('/') ? SANDBOX_ORIGIN + input : input, init),
          );
        return this.#engine.dispatch(incoming).then(fetchAnswer);
      } catch (error) {
        return Promise.reject(error);
      }
    };
    this.clock = this.clockOf(() => this.#engine.defaultTenantId);
  }

  #tenant(id: string): TenantState {
    const tenant = this.#engine.tenants.get(id);
    if (!tenant) throw new RangeError(`No tenant ${id} in this sandbox.`);
    return tenant;
  }

  handle(request: Request): Promise<Response> {
    return this.#engine.handle(request);
  }

  get apiKey(): string {
    const tenant = this.#tenant(this.#engine.defaultTenantId);
    const key = tenant.keys.find((k) => k.id === this.#engine.defaultKeyId && k.revokedAt === null) ?? tenant.keys.find((k) => k.revokedAt === null);
    return key?.secret ?? '';
  }

  get tenantId(): string {
    return this.#engine.defaultTenantId;
  }

  get environment(): 'sandbox' | 'production' {
    return this.#engine.settings.environment;
  }

  clockOf(tenantId: string | (() => string)): SandboxClock {
    const id = typeof tenantId === 'function' ? tenantId : () => tenantId;
    if (typeof tenantId === 'string') this.#tenant(tenantId);
    return {
      now: () => this.#tenant(id()).clock.now(),
      advance: (duration: Duration) => this.#tenant(id()).clock.advance(duration),
    };
  }

  createTenant(options: { capabilities?: string[] } = {}): SandboxTenant {
    const unknown = options.capabilities?.find((c) => !this.#engine.knownCapability(c));
    if (unknown !== undefined) throw new RangeError(`Unknown capability: ${unknown}`);
    const { tenant, key } = this.#engine.createTenant(options.capabilities);
    return { tenantId: tenant.id, apiKey: key.secret, clock: this.clockOf(tenant.id) };
  }

  events(tenantId?: string): SandboxEvent[] {
    return this.#engine.eventsOf(this.#tenant(tenantId ?? this.#engine.defaultTenantId));
  }

  setPrice(settings: Partial<PricingSettings>): void {
    const next = { ...this.#engine.pricing, ...settings };
    if (!/^(0|[1-9]\d*)(\.\d+)?$/.test(next.midRate) || Number(next.midRate) <= 0) throw new RangeError('midRate must be a positive decimal string.');
    if (!/^(0|[1-9]\d*)(\.\d+)?$/.test(next.withdrawalFeeUsdt)) throw new RangeError('withdrawalFeeUsdt must be a decimal string.');
    if (!Number.isInteger(next.spreadBps) || next.spreadBps < 0 || next.spreadBps >= 10_000) throw new RangeError('spreadBps must be an integer from 0 to 9999.');
    this.#engine.pricing = next;
  }

  get price(): PricingSettings {
    return { ...this.#engine.pricing };
  }

  setLimits(limits: SandboxOptions['limits'] = {}): void {
    this.#engine.limits = mergeLimits(this.#engine.limits, limits);
  }

  reset(): void {
    const now = this.#tenant(this.#engine.defaultTenantId).clock.nowMs();
    loadSnapshot(this.#engine, this.#initial, now);
  }

  snapshot(): SandboxSnapshot {
    return takeSnapshot(this.#engine);
  }

  restore(snapshot: SandboxSnapshot | string): void {
    loadSnapshot(this.#engine, snapshot);
  }

  use(name: string, middleware: Middleware, before?: string): void {
    this.#engine.use(name, middleware, before);
  }

  on<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this {
    this.#engine.on(event, listener as never);
    return this;
  }

  once<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this {
    this.#engine.once(event, listener as never);
    return this;
  }

  off<K extends keyof SandboxEvents>(event: K, listener?: (...args: SandboxEvents[K]) => void): this {
    this.#engine.off(event, listener as never);
    return this;
  }
}

/** Creates an in-process sandbox with one default tenant and its API key. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new SandboxImpl(options);
}
