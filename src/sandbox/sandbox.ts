/**
 * The wiring of a sandbox: options -> platform (core) -> plugins -> app (http), and the facade
 * the public `Sandbox` interface describes. Each layer is built once, in that order, and none
 * points back at the one that built it.
 * @module
 */
import type { Clock, Duration, SandboxClock } from './core/clock.js';
import { DEFAULT_LIMITS, type LimitSettings } from './core/limits.js';
import { Platform } from './core/platform.js';
import type { PricingSettings } from './core/pricing.js';
import { type SandboxSnapshot, type TenantTracker, journalParts, loadSnapshot, takeSnapshot } from './core/snapshot.js';
import type { SandboxEvent, TenantState } from './core/state.js';
import { App, type CommitHook } from './http/app.js';
import { REQUEST_LOG_SIZE } from './http/request-log.js';
import { SandboxResponse, fastIncoming } from './http/fetch.js';
import { type Answer, type Middleware, incomingOf } from './http/call.js';
import type { SandboxPlugin } from './http/plugin.js';
import { CORE_ROUTES, type RouteDef } from './http/routes/index.js';
import { type SandboxFaults, faultsPlugin } from './plugins/faults/index.js';
import { NETWORK_FAULT_HEADER, faultPlanOf } from './plugins/faults/marker.js';
import { DELIVERY_LOG_SIZE, type SandboxWebhooks, type WebhookRecords, webhooksPlugin } from './plugins/webhooks/index.js';
import type { Sandbox, SandboxClientOptions, SandboxEvents, SandboxOptions, SandboxTenant } from './types.js';
import { INSPECTOR_BASE, inspectorHandler } from './inspector/handler.js';
import { Inspection, requestOut } from './inspector/inspection.js';
import type { SandboxInspector } from './inspector/types.js';

export type { TenantChange } from './core/snapshot.js';

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

function count(value: number | undefined, fallback: number, name: string): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive whole number.`);
  return n;
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

/** The platform, its plugins and the app over them, from sandbox options. */
export interface Parts {
  platform: Platform;
  app: App;
  webhooks: SandboxPlugin<SandboxWebhooks> & { records: WebhookRecords };
  faults: SandboxPlugin<SandboxFaults>;
}

/** Builds the layers of a sandbox: platform, plugins (which register their timers), app. */
export function build(options: SandboxOptions): Parts {
  const environment = options.environment ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') throw new TypeError("environment must be 'sandbox' or 'production'.");
  const platform = new Platform(
    {
      environment,
      start: options.now === undefined ? null : toMs(options.now),
      seed: options.seed,
      quoteTtlMs: seconds(options.quoteTtlSeconds, 300, 'quoteTtlSeconds'),
      depositWindowMs: seconds(options.depositWindowSeconds, 900, 'depositWindowSeconds'),
      settlementDelayMs: seconds(options.settlementDelaySeconds, 60, 'settlementDelaySeconds'),
      transactionWindowMs: seconds(options.depositWindowSeconds, 900, 'depositWindowSeconds'),
      idempotencyTtlMs: seconds(options.idempotencyTtlSeconds, 86_400, 'idempotencyTtlSeconds'),
      eventLogSize: count(options.eventLogSize, 10_000, 'eventLogSize'),
      quoteRateLimit: Math.max(0, options.quoteRateLimit ?? 60),
    },
    options.pricing,
    mergeLimits(DEFAULT_LIMITS, options.limits),
  );
  const { tenant, key } = platform.createTenant();
  platform.defaultTenantId = tenant.id;
  platform.defaultKeyId = key.id;
  const webhooks = webhooksPlugin(platform, options.webhookTransport, options.webhooks, count(options.deliveryLogSize, DELIVERY_LOG_SIZE, 'deliveryLogSize'));
  const faults = faultsPlugin(platform.random);
  const plugins = [webhooks, faults];
  for (const plugin of plugins) if (plugin.timers) platform.addTimers(plugin.timers);
  const app = new App(platform, {
    routes: [...CORE_ROUTES, ...plugins.flatMap((p) => p.routes)],
    stages: plugins.flatMap((p) => p.stages ?? []),
    faultOf: faultPlanOf,
    requestLogSize: count(options.requestLogSize, REQUEST_LOG_SIZE, 'requestLogSize'),
  });
  return { platform, app, webhooks, faults };
}

/** Every route of a sandbox, core and plugins (docs and fuzzing read their definitions). */
export function allRoutes(): readonly RouteDef[] {
  return build({ seed: 'routes' }).app.routes;
}

/** The inspection API and the console's handler over built parts; actions go through `fetch`. */
function createInspector(
  inspection: Inspection,
  parts: { platform: Platform; requests: App['requests']; webhooks: WebhookRecords; hasRoute: (method: string, path: string) => boolean },
  fetch: Sandbox['fetch'],
): SandboxInspector {
  const handle = inspectorHandler({ ...parts, inspection, fetch });
  return {
    basePath: INSPECTOR_BASE,
    fetch: handle,
    tenants: () => inspection.tenants(),
    tenant: (id) => inspection.tenant(id),
    conversion: (tenantId, id) => inspection.conversion(tenantId, id),
    requests: (filter) => inspection.requests(filter),
    search: (query) => inspection.search(query),
    conversionMachine: () => inspection.conversionMachine(),
    onRequest: (listener) => parts.requests.subscribe((entry) => listener(requestOut(entry))),
  };
}

/** What only a host (the server) hands a sandbox: not part of the public options. */
export interface SandboxHooks {
  /** Called once a tenant's mutation has its answer, before it leaves (a server's journal). */
  onCommit?: CommitHook;
}

/** The layers behind a sandbox, for benches and structural tests (not exported by `pix-usdt/sandbox`). */
export interface SandboxInternals extends Parts {
  inspection: Inspection;
}

const INTERNALS = new WeakMap<Sandbox, SandboxInternals>();

/** The layers behind a sandbox made by `createSandbox` (`undefined` for any other object). */
export function internalsOf(sandbox: Sandbox): SandboxInternals | undefined {
  return INTERNALS.get(sandbox);
}

/** The sandbox behind `createSandbox`. */
export class SandboxImpl implements Sandbox {
  readonly #platform: Platform;
  readonly #app: App;
  readonly #initial: SandboxSnapshot;
  readonly #trackers = new WeakMap<TenantState, TenantTracker>();
  readonly fetch: Sandbox['fetch'];
  readonly clock: SandboxClock;
  readonly webhooks: SandboxWebhooks;
  readonly faults: SandboxFaults;
  readonly inspector: SandboxInspector;
  readonly #inspection: Inspection;

  constructor(options: SandboxOptions, hooks: SandboxHooks = {}) {
    const { platform, app, webhooks, faults } = build(options);
    this.#platform = platform;
    this.#app = app;
    app.onCommit = hooks.onCommit;
    this.webhooks = webhooks.api;
    this.faults = faults.api;
    this.#initial = takeSnapshot(platform);
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
        return app.dispatch(incoming).then(fetchAnswer);
      } catch (error) {
        return Promise.reject(error);
      }
    };
    this.clock = this.clockOf(() => this.#platform.defaultTenantId);
    const parts = { platform, requests: app.requests, webhooks: webhooks.records, hasRoute: (method: string, path: string) => app.router.match(method, path) !== null };
    this.#inspection = new Inspection(parts);
    this.inspector = createInspector(this.#inspection, parts, this.fetch);
    INTERNALS.set(this, { platform, app, webhooks, faults, inspection: this.#inspection });
  }

  #tenant(id: string): TenantState {
    const tenant = this.#platform.tenants.get(id);
    if (!tenant) throw new RangeError(`No tenant ${id} in this sandbox.`);
    return tenant;
  }

  handle(request: Request): Promise<Response> {
    return this.#app.handle(request);
  }

  get apiKey(): string {
    const platform = this.#platform;
    const tenant = this.#tenant(platform.defaultTenantId);
    const key = tenant.keys.find((k) => k.id === platform.defaultKeyId && k.revokedAt === null) ?? tenant.keys.find((k) => k.revokedAt === null);
    return key?.secret ?? '';
  }

  get tenantId(): string {
    return this.#platform.defaultTenantId;
  }

  get environment(): 'sandbox' | 'production' {
    return this.#platform.settings.environment;
  }

  clockOf(tenantId: string | (() => string)): SandboxClock {
    const id = typeof tenantId === 'function' ? tenantId : () => tenantId;
    if (typeof tenantId === 'string') this.#tenant(tenantId);
    return {
      now: () => this.#tenant(id()).clock.now(),
      advance: (duration: Duration) => this.#tenant(id()).clock.advance(duration),
    };
  }

  clientOptions(tenant?: Pick<SandboxTenant, 'apiKey' | 'tenantId'>): SandboxClientOptions {
    const tenantId = tenant?.tenantId ?? this.#platform.defaultTenantId;
    const clock = (): Clock => this.#tenant(tenantId).clock;
    clock();
    return {
      apiKey: tenant?.apiKey ?? this.apiKey,
      fetch: this.fetch,
      // The client's retry waits: virtual time moves (timers fire, as they would while waiting).
      sleep: async (ms, signal) => {
        if (signal?.aborted) throw signal.reason;
        await clock().advance({ ms: Math.max(0, ms) });
        if (signal?.aborted) throw signal.reason;
      },
      now: () => clock().nowMs(),
    };
  }

  createTenant(options: { capabilities?: string[] } = {}): SandboxTenant {
    const unknown = options.capabilities?.find((c) => !this.#platform.knownCapability(c));
    if (unknown !== undefined) throw new RangeError(`Unknown capability: ${unknown}`);
    const { tenant, key } = this.#platform.createTenant(options.capabilities);
    return { tenantId: tenant.id, apiKey: key.secret, clock: this.clockOf(tenant.id) };
  }

  events(tenantId?: string): SandboxEvent[] {
    return this.#platform.eventsOf(this.#tenant(tenantId ?? this.#platform.defaultTenantId));
  }

  setPrice(settings: Partial<PricingSettings>): void {
    const next = { ...this.#platform.pricing, ...settings };
    if (!/^(0|[1-9]\d*)(\.\d+)?$/.test(next.midRate) || Number(next.midRate) <= 0) throw new RangeError('midRate must be a positive decimal string.');
    if (!/^(0|[1-9]\d*)(\.\d+)?$/.test(next.withdrawalFeeUsdt)) throw new RangeError('withdrawalFeeUsdt must be a decimal string.');
    if (!Number.isInteger(next.spreadBps) || next.spreadBps < 0 || next.spreadBps >= 10_000) throw new RangeError('spreadBps must be an integer from 0 to 9999.');
    this.#platform.pricing = next;
  }

  get price(): PricingSettings {
    return { ...this.#platform.pricing };
  }

  setLimits(limits: SandboxOptions['limits'] = {}): void {
    this.#platform.limits = mergeLimits(this.#platform.limits, limits);
  }

  reset(): void {
    const now = this.#tenant(this.#platform.defaultTenantId).clock.nowMs();
    loadSnapshot(this.#platform, this.#initial, now);
    this.#inspection.forget();
  }

  snapshot(): SandboxSnapshot {
    return takeSnapshot(this.#platform);
  }

  restore(snapshot: SandboxSnapshot | string): void {
    loadSnapshot(this.#platform, snapshot);
    this.#inspection.forget();
  }

  /** A journal line of the named tenants (live objects: serialize at once); `full`: whole tenants (core/snapshot.ts). */
  journal(tenantIds: Iterable<string>, full: boolean): SandboxSnapshot {
    return journalParts(this.#platform, this.#trackers, tenantIds, full);
  }

  /** Ids of every tenant. */
  tenantIds(): string[] {
    return [...this.#platform.tenants.keys()];
  }

  use(name: string, middleware: Middleware, before?: string): void {
    this.#app.use(name, middleware, before);
  }

  on<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this {
    this.#platform.on(event, listener as never);
    return this;
  }

  once<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this {
    this.#platform.once(event, listener as never);
    return this;
  }

  off<K extends keyof SandboxEvents>(event: K, listener?: (...args: SandboxEvents[K]) => void): this {
    this.#platform.off(event, listener as never);
    return this;
  }
}
