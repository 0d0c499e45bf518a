/**
 * The engine behind a sandbox: tenants, keys, pricing, limits, the event log and emitter,
 * timers, and the request pipeline (src/sandbox/pipeline.ts). No module state: everything
 * lives on an instance.
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import type { EventType } from '../../models/index.js';
import { type Capability, defaultCapabilities } from './capabilities.js';
import { Clock, type Timer } from './clock.js';
import { DEFAULT_LIMITS, type LimitSettings, type Usage } from './limits.js';
import { type Answer, type Incoming, type Middleware, type NamedMiddleware, STAGES, incomingOf, runPipeline, toResponse } from '../http/pipeline.js';
import { DEFAULT_PRICING, type PricingSettings } from './pricing.js';
import { Random } from './random.js';
import { ALL_ROUTES, type RouteDef } from '../http/routes/index.js';
import { TrieRouter } from '../http/router.js';
import { fireTimer } from './timers.js';
import { iso } from './wire.js';
import { type KeyRec, type SandboxEvent, type TenantState, createTenantState } from './state.js';
import type { FaultInjector } from '../plugins/faults/injector.js';
import type { WebhookService } from '../plugins/webhooks/service.js';

/** Normalized engine settings. */
export interface EngineSettings {
  environment: 'sandbox' | 'production';
  /** Start instant of a frozen clock; `null` follows real time. */
  start: number | null;
  seed: number | string | undefined;
  quoteTtlMs: number;
  depositWindowMs: number;
  settlementDelayMs: number;
  transactionWindowMs: number;
  idempotencyTtlMs: number;
  eventLogSize: number;
  /** POST /v1/quotes per key per 60 s (0: no limit). */
  quoteRateLimit: number;
}

/** Events of the engine's emitter. */
export interface EngineEvents {
  /** A state change: the event envelope and the id of the tenant it belongs to. */
  event: [event: SandboxEvent, tenantId: string];
  /** A listener threw; the engine carried on. */
  error: [error: unknown];
}

/** What every service receives: the engine, the tenant and the instant of the change. */
export interface Scope {
  engine: Engine;
  tenant: TenantState;
  at: number;
}

/** The sandbox engine. */
export class Engine extends EventEmitter<EngineEvents> {
  readonly settings: EngineSettings;
  readonly random: Random;
  readonly router = new TrieRouter<RouteDef>();
  pricing: PricingSettings = { ...DEFAULT_PRICING };
  limits: LimitSettings;
  platformUsage: Usage = new Map();
  tenants = new Map<string, TenantState>();
  keys = new Map<string, KeyRec>();
  cursorSecret: string;
  defaultTenantId = '';
  defaultKeyId = '';
  middlewares: NamedMiddleware[] = [...STAGES];
  /** Webhook delivery (src/sandbox/webhooks), attached by createSandbox. */
  webhooks: WebhookService | null = null;
  /** Fault injection (src/sandbox/faults), attached by createSandbox. */
  faults: FaultInjector | null = null;
  readonly #pending = new Set<Promise<unknown>>();
  #strings = new Map<string, string>();

  constructor(settings: EngineSettings, pricing?: Partial<PricingSettings>, limits?: LimitSettings) {
    super();
    this.settings = settings;
    this.random = new Random(settings.seed);
    this.pricing = { ...DEFAULT_PRICING, ...pricing };
    this.limits = limits ?? structuredClone(DEFAULT_LIMITS);
    this.cursorSecret = this.random.base62(32);
    for (const route of ALL_ROUTES) {
      if (route.sandboxOnly && settings.environment === 'production') continue;
      this.router.add(route.method, route.path, route);
    }
  }

  /** A new clock for a tenant, at the current time of the default tenant (or the start). */
  newClock(tenantId: string): Clock {
    const clock = new Clock(
      this.settings.start === null ? null : this.settings.start,
      (timer) => this.fire(tenantId, timer),
      () => this.settle(),
    );
    const reference = this.tenants.get(this.defaultTenantId);
    if (reference) clock.set(reference.clock.nowMs());
    return clock;
  }

  /** Creates a tenant with one API key. */
  createTenant(capabilities?: readonly string[], name = 'default'): { tenant: TenantState; key: KeyRec } {
    const id = this.random.uuid();
    const tenant = createTenantState(id, this.newClock(id));
    this.tenants.set(id, tenant);
    const key = this.issueKey(tenant, name, capabilities ?? defaultCapabilities(this.settings.environment), tenant.clock.nowMs());
    return { tenant, key };
  }

  /** Issues an API key for a tenant. */
  issueKey(tenant: TenantState, name: string, capabilities: readonly string[], at: number): KeyRec {
    const prefix = this.settings.environment === 'sandbox' ? 'sk_test_' : 'sk_live_';
    const key: KeyRec = {
      id: this.random.uuid(),
      tenantId: tenant.id,
      secret: prefix + this.random.base62(32),
      name,
      capabilities: [...capabilities],
      createdAt: at,
      revokedAt: null,
    };
    tenant.keys.push(key);
    this.keys.set(key.secret, key);
    return key;
  }

  /** Records an event on the tenant's log and emits it. The object is a snapshot taken now. */
  record(tenant: TenantState, type: EventType, object: object, at: number): SandboxEvent {
    const event: SandboxEvent = {
      id: this.random.uuid(),
      type,
      created_at: iso(at),
      data: { object: object as Record<string, unknown> },
    };
    const log = tenant.events;
    log.push(event);
    // Bounded log: trim in batches so that the cost stays amortized O(1).
    if (log.length > this.settings.eventLogSize * 2) log.splice(0, log.length - this.settings.eventLogSize);
    try {
      super.emit('event', event, tenant.id);
    } catch (error) {
      if (this.listenerCount('error') > 0) super.emit('error', error);
    }
    return event;
  }

  /** Recorded events of a tenant, oldest first (the log keeps at least `eventLogSize`). */
  eventsOf(tenant: TenantState): SandboxEvent[] {
    const log = tenant.events;
    return log.slice(Math.max(0, log.length - this.settings.eventLogSize));
  }

  /** Schedules a timer on a tenant's clock. */
  schedule(tenant: TenantState, at: number, kind: string, id: string): void {
    tenant.clock.schedule({ at, kind, id });
  }

  fire(tenantId: string, timer: Timer): void {
    const tenant = this.tenants.get(tenantId);
    if (!tenant) return;
    try {
      fireTimer({ engine: this, tenant, at: timer.at }, timer);
      this.webhooks?.onTimer(tenant, timer);
    } catch (error) {
      if (this.listenerCount('error') > 0) super.emit('error', error);
    }
  }

  /**
   * One shared copy of a short, often repeated string (amounts, rates, holder names): a
   * million stored conversions of the same amount then hold one string, not a million.
   */
  intern(value: string): string {
    const known = this.#strings.get(value);
    if (known !== undefined) return known;
    if (this.#strings.size >= 100_000) this.#strings = new Map();
    this.#strings.set(value, value);
    return value;
  }

  /** Keeps track of an asynchronous effect so that `clock.advance` can wait for it. */
  waitUntil(promise: Promise<unknown>): void {
    const tracked = promise.catch(() => undefined).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }

  /** Resolves once every tracked effect has settled. */
  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** Inserts a middleware into the pipeline, before a named stage (default: before `idempotency`). */
  use(name: string, run: Middleware, before = 'idempotency'): void {
    const at = this.middlewares.findIndex((m) => m.name === before);
    this.middlewares.splice(at < 0 ? this.middlewares.length - 1 : at, 0, { name, run });
  }

  /** Handles one web Request (`sandbox.handle`: msw, the server). */
  handle(request: Request): Promise<Response> {
    return runPipeline(this, incomingOf(request)).then(toResponse);
  }

  /** Handles one request and gives the answer before it becomes a Response (`sandbox.fetch`). */
  dispatch(incoming: Incoming): Promise<Answer> {
    return runPipeline(this, incoming);
  }

  /** Every capability name, for validation of tenant creation. */
  knownCapability(value: string): value is Capability {
    return defaultCapabilities('sandbox').includes(value as Capability);
  }
}
