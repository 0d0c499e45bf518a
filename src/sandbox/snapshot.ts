/**
 * `snapshot()` / `restore()`: the whole engine state as JSON (every tenant, its clock time,
 * keys, idempotency records, rate windows, usage, event log), with timers re-created from
 * the state on restore. Snapshots hold API key secrets: treat them as test fixtures only.
 * @module
 */
import type { Engine } from './engine.js';
import type { LimitSettings } from './limits.js';
import type { PricingSettings } from './pricing.js';
import type { RandomState } from './random.js';
import { rescheduleAll } from './services/timers.js';
import {
  type ConversionRec,
  type IdempotencyRec,
  type KeyRec,
  type QuoteRec,
  type SandboxEvent,
  type TransactionRec,
  type UserRec,
  createTenantState,
} from './state.js';

/** One tenant in a snapshot. */
export interface TenantSnapshot {
  id: string;
  now: string;
  users: UserRec[];
  quotes: QuoteRec[];
  conversions: ConversionRec[];
  transactions: TransactionRec[];
  keys: KeyRec[];
  idempotency: IdempotencyRec[];
  rateWindows: Array<[string, number[]]>;
  usage: Array<[string, string]>;
  events: SandboxEvent[];
  extensions: Record<string, unknown>;
}

/** A JSON snapshot of a sandbox. */
export interface SandboxSnapshot {
  format: 'pix-usdt-sandbox';
  version: 1;
  environment: 'sandbox' | 'production';
  random: RandomState;
  cursorSecret: string;
  pricing: PricingSettings;
  limits: LimitSettings;
  platformUsage: Array<[string, string]>;
  defaultTenantId: string;
  defaultKeyId: string;
  tenants: TenantSnapshot[];
}

/** Takes a snapshot (a deep copy: later changes do not affect it). */
export function takeSnapshot(engine: Engine): SandboxSnapshot {
  const tenants: TenantSnapshot[] = [...engine.tenants.values()].map((t) => ({
    id: t.id,
    now: new Date(t.clock.nowMs()).toISOString(),
    users: [...t.users.all()],
    quotes: [...t.quotes.all()],
    conversions: [...t.conversions.all()],
    transactions: [...t.transactions.all()],
    keys: t.keys,
    idempotency: [...t.idempotency.values()].filter((r) => !r.running),
    rateWindows: [...t.rateWindows.entries()],
    usage: [...t.usage.entries()],
    events: engine.eventsOf(t),
    extensions: t.extensions,
  }));
  const snapshot: SandboxSnapshot = {
    format: 'pix-usdt-sandbox',
    version: 1,
    environment: engine.settings.environment,
    random: engine.random.state,
    cursorSecret: engine.cursorSecret,
    pricing: engine.pricing,
    limits: engine.limits,
    platformUsage: [...engine.platformUsage.entries()],
    defaultTenantId: engine.defaultTenantId,
    defaultKeyId: engine.defaultKeyId,
    tenants,
  };
  return JSON.parse(JSON.stringify(snapshot)) as SandboxSnapshot;
}

/**
 * Replaces the engine's state with a snapshot. Each tenant's clock is set to the snapshot's
 * time, or to `notBefore` when that is later (reset never moves a clock backwards).
 */
export function loadSnapshot(engine: Engine, input: SandboxSnapshot | string, notBefore?: number): void {
  const snap = (typeof input === 'string' ? JSON.parse(input) : JSON.parse(JSON.stringify(input))) as SandboxSnapshot;
  if (snap?.format !== 'pix-usdt-sandbox' || snap.version !== 1) throw new TypeError('Not a pix-usdt sandbox snapshot (format version 1).');
  if (snap.environment !== engine.settings.environment) {
    throw new TypeError(`The snapshot is of a ${snap.environment} sandbox; this one is ${engine.settings.environment}.`);
  }
  engine.random.state = snap.random;
  engine.cursorSecret = snap.cursorSecret;
  engine.pricing = snap.pricing;
  engine.limits = snap.limits;
  engine.platformUsage = new Map(snap.platformUsage);
  engine.defaultTenantId = snap.defaultTenantId;
  engine.defaultKeyId = snap.defaultKeyId;
  engine.tenants = new Map();
  engine.keys = new Map();
  for (const t of snap.tenants) {
    const clock = engine.newClock(t.id);
    clock.set(Math.max(Date.parse(t.now), notBefore ?? -Infinity));
    const tenant = createTenantState(t.id, clock);
    for (const u of t.users) {
      tenant.users.insert(u);
      tenant.cpfIndex.set(u.cpf, u.id);
      tenant.externalIdIndex.set(u.externalId, u.id);
    }
    for (const q of t.quotes) tenant.quotes.insert(q);
    for (const c of t.conversions) tenant.conversions.insert(c);
    for (const x of t.transactions) tenant.transactions.insert(x);
    tenant.keys = t.keys;
    for (const k of t.keys) engine.keys.set(k.secret, k);
    for (const r of [...t.idempotency].sort((a, b) => a.startedAt - b.startedAt)) {
      tenant.idempotency.set(r.key, r);
      tenant.idempotencyOrder.push([r.startedAt, r.key]);
    }
    tenant.rateWindows = new Map(t.rateWindows);
    tenant.usage = new Map(t.usage);
    tenant.events = t.events;
    tenant.extensions = t.extensions;
    engine.tenants.set(t.id, tenant);
    rescheduleAll(tenant);
    engine.webhooks?.onRestore(tenant);
  }
}
