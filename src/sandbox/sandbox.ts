/**
 * The wiring of a sandbox: options -> platform (core) -> plugins -> app (http), and the facade
 * the public `Sandbox` interface describes. Each layer is built once, in that order, and none
 * points back at the one that built it.
 * @module
 */
import type { Clock, Duration, SandboxClock } from './core/clock.js';
import type { LimitSettings } from './core/limits.js';
import { Platform } from './core/platform.js';
import { DEFAULT_MAX_TENANTS_PER_ROOT, makeRoot } from './core/lineage.js';
import type { PricingSettings } from './core/pricing.js';
import { type LimitsPatch, type OwnSettings, type PlatformScope, type SettingsKind, type TimingSettings, defaultSettings, settingsFromOptions } from './core/settings.js';
import { type SandboxSnapshot, loadSnapshot, snapshotParts, takeSnapshot } from './core/snapshot.js';
import { type TenantDocument, type TenantTransfer, tenantTransfer } from './core/transfer.js';
import type { SandboxEvent, TenantState } from './core/state.js';
import { App } from './http/app.js';
import { type Arrival, REQUEST_LOG_SIZE, type RequestLog } from './http/request-log.js';
import { IN_PROCESS, type InProcessAnswer, SandboxResponse, fastIncoming, inProcessAnswer } from './http/fetch.js';
import { readApiKey } from './http/authentication.js';
import { type Answer, type Incoming, type Middleware, incomingOf } from './http/call.js';
import type { SandboxPlugin } from './http/plugin.js';
import { type RouteDef, coreRoutes } from './http/routes/index.js';
import { type SandboxFaults, faultsPlugin } from './plugins/faults/index.js';
import { NETWORK_FAULT_HEADER, faultPlanOf } from './plugins/faults/marker.js';
import { DELIVERY_LOG_SIZE, type SandboxWebhooks, type WebhookRecords, webhooksPlugin } from './plugins/webhooks/index.js';
import type { Sandbox, SandboxClientOptions, SandboxEvents, SandboxOptions, SandboxTenant, SandboxTenantSettings } from './types.js';
import { INSPECTOR_BASE, inspectorHandler } from './inspector/handler.js';
import { SandboxClosedError, closedFetch, guardFaults, guardWebhooks } from './closing.js';
import { Inspection, requestOut } from './inspector/inspection.js';
import type { SandboxInspector } from './inspector/types.js';
import type { Persistence, StoredParts } from './stored.js';

// The one validation of price, limits and timings, for the serve flags (src/server/commands/serve-settings.ts).
export { parseSettings } from './core/settings.js';
// A snapshot's records (opaque in the public types), for the import of the old data folder (src/server/data/legacy.ts).
export type { SnapshotRecords, TenantRecords } from './core/snapshot.js';

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

/** `maxTenantsPerRoot`: a whole number from 0 (no tenant made over the API), or `Infinity` (no bound). */
function tenantBound(value: number | undefined): number {
  const n = value ?? DEFAULT_MAX_TENANTS_PER_ROOT;
  if (n !== Infinity && (!Number.isInteger(n) || n < 0)) throw new RangeError('maxTenantsPerRoot must be a whole number from 0, or Infinity.');
  return n;
}

/** The sandbox's default settings from its options, validated as the routes validate a tenant's (core/settings.ts). */
function defaultsOf(options: SandboxOptions): ReturnType<typeof defaultSettings> {
  const { platformScope = 'tenant', ...limits } = options.limits ?? {};
  if (platformScope !== 'tenant' && platformScope !== 'shared') throw new RangeError("createSandbox: limits.platformScope must be 'tenant' or 'shared'.");
  const check = { operator: true } as const;
  const parts: OwnSettings = {};
  if (options.pricing !== undefined) parts.price = settingsFromOptions('price', options.pricing, 'createSandbox: pricing', check);
  if (options.limits !== undefined) parts.limits = settingsFromOptions('limits', limits, 'createSandbox: limits', check);
  const timings: Partial<TimingSettings> = {};
  if (options.quoteTtlSeconds !== undefined) timings.quoteTtlSeconds = options.quoteTtlSeconds;
  if (options.depositWindowSeconds !== undefined) timings.depositWindowSeconds = options.depositWindowSeconds;
  if (options.settlementDelaySeconds !== undefined) timings.settlementDelaySeconds = options.settlementDelaySeconds;
  if (Object.keys(timings).length > 0) parts.timings = settingsFromOptions('timings', timings, 'createSandbox', check);
  return defaultSettings(parts, platformScope);
}

const SANDBOX_ORIGIN = 'https://sandbox.pix-usdt.local';

// What `fetch` gives for an answer: a network fault rejects as `fetch` does on a failed connection.
function fetchAnswer(answer: Answer): Response {
  throwNetworkFault(answer);
  return new SandboxResponse(answer.body, { status: answer.status, headers: answer.headers });
}

// The same answer for our own client (`IN_PROCESS`): no `Response` unless the caller asks for one.
function exchangeAnswer(answer: Answer): InProcessAnswer {
  throwNetworkFault(answer);
  return inProcessAnswer(answer);
}

function throwNetworkFault(answer: Answer): void {
  const marker = answer.headers[NETWORK_FAULT_HEADER];
  if (marker !== undefined) throw new TypeError('fetch failed', { cause: new Error(`Connection reset (sandbox fault ${marker})`) });
}

/** The platform, its plugins and the app over them, from sandbox options. */
export interface Parts {
  platform: Platform;
  app: App;
  transfer: TenantTransfer;
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
      idempotencyTtlMs: seconds(options.idempotencyTtlSeconds, 86_400, 'idempotencyTtlSeconds'),
      eventLogSize: count(options.eventLogSize, 10_000, 'eventLogSize'),
      quoteRateLimit: Math.max(0, options.quoteRateLimit ?? 60),
      maxTenantsPerRoot: tenantBound(options.maxTenantsPerRoot),
    },
    defaultsOf(options),
  );
  const { tenant, key } = platform.createTenant();
  platform.defaultTenantId = tenant.id;
  platform.defaultKeyId = key.id;
  const webhooks = webhooksPlugin(platform, options.webhookTransport, options.webhooks, count(options.deliveryLogSize, DELIVERY_LOG_SIZE, 'deliveryLogSize'));
  const faults = faultsPlugin(platform.random);
  const plugins = [webhooks, faults];
  for (const plugin of plugins) {
    if (plugin.timers) platform.addTimers(plugin.timers);
    for (const [name, schema] of Object.entries(plugin.extensions ?? {})) platform.addExtension(name, schema);
  }
  const transfer = tenantTransfer(platform);
  const app = new App(platform, {
    routes: [...coreRoutes(transfer), ...plugins.flatMap((p) => p.routes)],
    stages: plugins.flatMap((p) => p.stages ?? []),
    faultOf: faultPlanOf,
    requestLogSize: count(options.requestLogSize, REQUEST_LOG_SIZE, 'requestLogSize'),
  });
  return { platform, app, transfer, webhooks, faults };
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

/** What only a host (the server, a Durable Object) hands a sandbox: not part of the public options. */
export interface SandboxHooks {
  /**
   * Keeps the state in storage: `(parts) => new Persistence(parts, options)` (src/sandbox/stored.ts;
   * tenants load on use, every answer commits). A factory, so that `createSandbox` never carries
   * the stored code.
   */
  stored?: (parts: StoredParts) => Persistence;
}

/** The layers behind a sandbox, for benches and structural tests (not exported by `pix-usdt/sandbox`). */
export interface SandboxInternals extends Parts {
  /** The inspection, once `sandbox.inspector` was first read (`undefined` until then: nothing watched). */
  readonly inspection: Inspection | undefined;
}

const INTERNALS = new WeakMap<Sandbox, SandboxInternals>();

/** The layers behind a sandbox made by `createSandbox` (`undefined` for any other object). */
export function internalsOf(sandbox: Sandbox): SandboxInternals | undefined {
  return INTERNALS.get(sandbox);
}

// Runtimes without explicit resource management (Safari today) have no Symbol.dispose: there,
// the registered symbols that esbuild's lowering of `using` falls back to.
const DISPOSE: typeof Symbol.dispose = Symbol.dispose ?? (Symbol.for('Symbol.dispose') as typeof Symbol.dispose);
const ASYNC_DISPOSE: typeof Symbol.asyncDispose = Symbol.asyncDispose ?? (Symbol.for('Symbol.asyncDispose') as typeof Symbol.asyncDispose);

/** The sandbox behind `createSandbox`. */
export class SandboxImpl implements Sandbox {
  readonly #platform: Platform;
  readonly #app: App;
  readonly #transfer: TenantTransfer;
  readonly #plugins: ReadonlyArray<SandboxPlugin<unknown>>;
  #closing: Promise<void> | null = null;
  readonly #initial: SandboxSnapshot;
  /** The stored state (`hooks.stored`), or `null` in memory. */
  readonly persistence: Persistence | null;
  readonly fetch: Sandbox['fetch'];
  readonly clock: SandboxClock;
  readonly settings: SandboxTenantSettings;
  readonly webhooks: SandboxWebhooks;
  readonly faults: SandboxFaults;
  #inspector: SandboxInspector | undefined;
  #inspection: Inspection | undefined;
  readonly #inspectionParts: ConstructorParameters<typeof Inspection>[0] & { hasRoute: (method: string, path: string) => boolean };

  constructor(options: SandboxOptions, hooks: SandboxHooks = {}) {
    const { platform, app, transfer, webhooks, faults } = build(options);
    this.#platform = platform;
    this.#app = app;
    this.#transfer = transfer;
    this.#plugins = [webhooks, faults];
    const closed = (): boolean => platform.closed;
    this.webhooks = guardWebhooks(webhooks.api, closed);
    this.faults = guardFaults(faults.api, closed);
    this.#initial = takeSnapshot(platform);
    this.persistence =
      hooks.stored?.({
        platform,
        app,
        recordKinds: webhooks.recordKinds ?? {},
        subscribe: (listener) => webhooks.records.subscribe((tenantId) => listener(tenantId)),
      }) ?? null;
    // One request as `fetch(input, init)` takes it, answered by the app (or the rejection `fetch` gives).
    const dispatch = (input: RequestInfo | URL, init: RequestInit | undefined): Promise<Answer> => {
      if (platform.closed) return closedFetch();
      try {
        const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
        if (signal?.aborted) return Promise.reject(signal.reason);
        // ky passes a Request plus an empty options object: building a second Request would cost as much as the sandbox's whole work.
        const incoming =
          fastIncoming(input, init, SANDBOX_ORIGIN) ??
          incomingOf(
            input instanceof Request && (init === undefined || Object.keys(init).length === 0)
              ? input
              : new Request(typeof input === 'string' && input.startsWith('/') ? SANDBOX_ORIGIN + input : input, init),
          );
        return app.dispatch(incoming);
      } catch (error) {
        return Promise.reject(error);
      }
    };
    const fetch: Sandbox['fetch'] = (input, init) => dispatch(input, init).then(fetchAnswer);
    // Our client, handed this very function (`of`: not a spy or wrapper that copied its
    // properties), calls `exchange` instead (issue 34; docs/decisions.md): the same request and
    // the same answer, without a `Response` unless the caller asks for one.
    const exchange = (input: RequestInfo | URL, init: RequestInit | undefined): Promise<InProcessAnswer> => dispatch(input, init).then(exchangeAnswer);
    Object.defineProperty(fetch, IN_PROCESS, { value: Object.freeze({ of: fetch, exchange }) });
    this.fetch = fetch;
    this.clock = this.clockOf(() => this.#platform.defaultTenantId);
    this.settings = this.settingsOf(() => this.#platform.defaultTenantId);
    const persistence = this.persistence;
    this.#inspectionParts = {
      platform,
      requests: app.requests,
      webhooks: webhooks.records,
      hasRoute: (method: string, path: string) => app.router.match(method, path) !== null,
      ...(persistence === null ? {} : { listing: () => persistence.listing() }),
    };
    const inspection = (): Inspection | undefined => this.#inspection;
    INTERNALS.set(this, {
      platform,
      app,
      transfer,
      webhooks,
      faults,
      get inspection() {
        return inspection();
      },
    });
  }

  /**
   * Built on first use: from then on the app records its request log and the inspection watches
   * conversion moves. Until then neither costs anything (issue 22; docs/decisions.md).
   */
  get inspector(): SandboxInspector {
    if (this.#inspector === undefined) {
      this.#inspection = new Inspection(this.#inspectionParts);
      this.#inspector = createInspector(this.#inspection, this.#inspectionParts, this.fetch);
    }
    return this.#inspector;
  }

  /** Throws once the sandbox is closed: `what` acts (sends, moves time, delivers or changes state). */
  #open(what: string): void {
    if (this.#platform.closed) throw new SandboxClosedError(what);
  }

  #tenant(id: string): TenantState {
    const tenant = this.#platform.tenant(id);
    if (!tenant) throw new RangeError(`No tenant ${id} in this sandbox.`);
    return tenant;
  }

  handle(request: Request): Promise<Response> {
    if (this.#platform.closed) return Promise.reject(new SandboxClosedError('handle'));
    return this.#app.handle(request);
  }

  /**
   * `handle` without the web `Request` and `Response`: the Node server's path
   * (src/server/http/listener.ts). `arrival`: when the host received the request and its method
   * as sent, for the request log.
   */
  dispatch(incoming: Incoming, arrival?: Arrival): Answer | Promise<Answer> {
    if (this.#platform.closed) return Promise.reject(new SandboxClosedError('handle'));
    // The answer itself when the app has it at once: the server writes it without waiting a turn.
    return this.#app.answer(incoming, arrival);
  }

  /**
   * The request log (http/request-log.ts): the app records what it answers; a server records its
   * own refusals in it, and reads it for its stderr line and its feed `/_sandbox/logs`.
   */
  get requests(): RequestLog {
    return this.#app.requests;
  }

  get apiKey(): string {
    const platform = this.#platform;
    // Read without loading the tenant (a stored one may be large): a server is ready before its data is.
    const keys = platform.keysOf(platform.defaultTenantId);
    const key = keys.find((k) => k.id === platform.defaultKeyId && k.revokedAt === null) ?? keys.find((k) => k.revokedAt === null);
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
      advance: (duration: Duration) =>
        this.#platform.closed ? Promise.reject(new SandboxClosedError('clock.advance')) : this.#tenant(id()).clock.advance(duration),
    };
  }

  clientOptions(tenant?: Pick<SandboxTenant, 'apiKey' | 'tenantId'>): SandboxClientOptions {
    this.#open('clientOptions');
    const tenantId = tenant?.tenantId ?? this.#platform.defaultTenantId;
    const clock = (): Clock => this.#tenant(tenantId).clock;
    clock();
    return {
      apiKey: tenant?.apiKey ?? this.apiKey,
      fetch: this.fetch,
      // The client's retry waits: virtual time moves (timers fire, as they would while waiting).
      sleep: async (ms, signal) => {
        if (signal?.aborted) throw signal.reason;
        this.#open('clock.advance');
        await clock().advance({ ms: Math.max(0, ms) });
        if (signal?.aborted) throw signal.reason;
      },
      now: () => clock().nowMs(),
    };
  }

  settingsOf(tenantId: string | (() => string)): SandboxTenantSettings {
    const id = typeof tenantId === 'function' ? tenantId : () => tenantId;
    if (typeof tenantId === 'string') this.#tenant(tenantId);
    const platform = this.#platform;
    const tenant = (): TenantState => this.#tenant(id());
    const change = <K extends SettingsKind>(kind: K, input: unknown, where: string): void => {
      this.#open(where);
      platform.changeSettings(tenant(), kind, settingsFromOptions(kind, input, where, { operator: false, scope: platform }));
    };
    // Getters answer copies: a caller mutating what it read changes nothing.
    return {
      get price(): PricingSettings {
        return { ...tenant().settings.price };
      },
      setPrice: (price) => change('price', price, 'setPrice'),
      get limits(): LimitSettings & { platformScope: PlatformScope } {
        const { platform: p, partner, user, platformScope } = tenant().settings.limits;
        return { platform: { ...p }, partner: { ...partner }, user: { ...user }, platformScope };
      },
      setLimits: (limits) => change('limits', limits, 'setLimits'),
      get timings(): TimingSettings {
        return { ...tenant().settings.timings };
      },
      setTimings: (timings) => change('timings', timings, 'setTimings'),
    };
  }

  createTenant(options: { capabilities?: string[]; snapshot?: TenantDocument | string } = {}): SandboxTenant {
    this.#open('createTenant');
    if (options.snapshot !== undefined) {
      if (options.capabilities !== undefined) throw new TypeError('A fork takes its keys (and their capabilities) from the snapshot: pass `capabilities` or `snapshot`, not both.');
      const { tenant, key } = this.#transfer.fork(options.snapshot);
      // Made in code: a root, whatever lineage the document came with (core/lineage.ts).
      makeRoot(tenant);
      return { tenantId: tenant.id, apiKey: key.secret, clock: this.clockOf(tenant.id), settings: this.settingsOf(tenant.id) };
    }
    const unknown = options.capabilities?.find((c) => !this.#platform.knownCapability(c));
    if (unknown !== undefined) throw new RangeError(`Unknown capability: ${unknown}`);
    const { tenant, key } = this.#platform.createTenant(options.capabilities);
    return { tenantId: tenant.id, apiKey: key.secret, clock: this.clockOf(tenant.id), settings: this.settingsOf(tenant.id) };
  }

  exportTenant(tenantId?: string): TenantDocument {
    const tenant = this.#tenant(tenantId ?? this.#platform.defaultTenantId);
    return this.#transfer.export(tenant);
  }

  events(tenantId?: string): SandboxEvent[] {
    return this.#platform.eventsOf(this.#tenant(tenantId ?? this.#platform.defaultTenantId));
  }

  setPrice(price: Partial<PricingSettings>): void {
    this.settings.setPrice(price);
  }

  get price(): PricingSettings {
    return this.settings.price;
  }

  setLimits(limits: LimitsPatch): void {
    this.settings.setLimits(limits);
  }

  get limits(): LimitSettings & { platformScope: PlatformScope } {
    return this.settings.limits;
  }

  setTimings(timings: Partial<TimingSettings>): void {
    this.settings.setTimings(timings);
  }

  get timings(): TimingSettings {
    return this.settings.timings;
  }

  reset(): void {
    this.#open('reset');
    const now = this.#tenant(this.#platform.defaultTenantId).clock.nowMs();
    if (this.persistence) this.persistence.restore(this.#initial, now);
    else loadSnapshot(this.#platform, this.#initial, now);
    this.#inspection?.forget();
  }

  snapshot(): SandboxSnapshot {
    if (this.persistence) return this.persistence.snapshot(snapshotParts(this.#platform, []));
    return takeSnapshot(this.#platform);
  }

  restore(snapshot: SandboxSnapshot | string): void {
    this.#open('restore');
    if (this.persistence) this.persistence.restore(snapshot);
    else loadSnapshot(this.#platform, snapshot);
    this.#inspection?.forget();
  }

  /**
   * The tenant whose live API key an `Authorization: Bearer <key>` header carries, and a check
   * that the key is still live (a rotation revokes it); `null` for anything else. The request
   * log's feed decides its readers with it (`RequestLog.readerOf`).
   */
  keyOwner(authorization: string | null | undefined): { tenantId: string; live: () => boolean } | null {
    const secret = readApiKey(authorization ?? null, this.#platform.settings.environment);
    if (typeof secret !== 'string') return null;
    const key = this.#platform.keyOf(secret);
    if (key === undefined || key.revokedAt !== null) return null;
    // Looked up again each time: a stored tenant that left memory comes back with new key objects.
    return { tenantId: key.tenantId, live: () => this.#platform.keyOf(secret)?.revokedAt === null };
  }

  use(name: string, middleware: Middleware, before?: string): void {
    this.#open('use');
    this.#app.use(name, middleware, before);
  }

  on<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this {
    this.#open('on');
    this.#platform.on(event, listener as never);
    return this;
  }

  once<K extends keyof SandboxEvents>(event: K, listener: (...args: SandboxEvents[K]) => void): this {
    this.#open('once');
    this.#platform.once(event, listener as never);
    return this;
  }

  off<K extends keyof SandboxEvents>(event: K, listener?: (...args: SandboxEvents[K]) => void): this {
    this.#platform.off(event, listener as never);
    return this;
  }

  /**
   * Stops everything at once: the real timer (no tenant's timer fires on its own any more),
   * queued webhook attempts (never sent) and attempts in flight (aborted, not recorded). Resolves
   * once those have ended, and a stored sandbox has written what waited (the storage itself is
   * its owner's to close). Idempotent.
   */
  close(): Promise<void> {
    if (this.#closing !== null) return this.#closing;
    this.#platform.close();
    const reason = new SandboxClosedError('webhooks');
    // The aborted attempts were not recorded: a stored sandbox writes them as still pending.
    this.#closing = Promise.all(this.#plugins.map((plugin) => plugin.close?.(reason))).then(() => this.persistence?.close());
    return this.#closing;
  }

  [DISPOSE](): void {
    void this.close();
  }

  [ASYNC_DISPOSE](): Promise<void> {
    return this.close();
  }
}
