/**
 * `snapshot()` / `restore()`: the whole platform state as JSON (every tenant, its clock time,
 * keys, idempotency records, rate windows, usage, event log), with timers re-created from
 * the state on restore. Snapshots hold API key secrets: treat them as test fixtures only.
 * @module
 */
import type { Platform } from './platform.js';
import type { LimitSettings } from './limits.js';
import type { PricingSettings } from './pricing.js';
import type { RandomState } from './random.js';
import { RestoredEvent } from './event-log.js';
import {
  type ConversionRec,
  type IdempotencyRec,
  type KeyRec,
  type LoggedEvent,
  type QuoteRec,
  type SandboxEvent,
  type TenantState,
  type TransactionRec,
  type UserRec,
  bodyText,
  createTenantState,
} from './state.js';

/**
 * An idempotency record in a snapshot (the form of format version 1; in memory the record is
 * kept compact, core/state.ts `IdempotencyRec`).
 */
export interface IdempotencySnapshot {
  /** The Idempotency-Key. */
  key: string;
  /** Hex digits of the request's hash (14; snapshots written before 0.2 have 28, of which the first 14 count). */
  fingerprint: string;
  /** Always `false`: records still running are left out. */
  running: boolean;
  /** Epoch milliseconds on the tenant's clock. */
  startedAt: number;
  /** HTTP status of the first answer. */
  status: number;
  /** Body of the first answer. */
  body: string | null;
  /** Headers of the first answer, `x-request-id` included. */
  headers: Record<string, string>;
}

const JSON_ONLY = { 'content-type': 'application/json' };

/** A record as a snapshot holds it. */
export function idempotencyOut(r: IdempotencyRec): IdempotencySnapshot {
  return {
    key: r.key,
    fingerprint: r.fingerprint.toString(16).padStart(14, '0'),
    running: r.status === 0,
    startedAt: r.startedAt,
    status: r.status,
    body: bodyText(r.body),
    headers: { ...(r.headers ?? JSON_ONLY), 'x-request-id': r.requestId },
  };
}

/** A record from its snapshot form. */
export function idempotencyIn(s: IdempotencySnapshot): IdempotencyRec {
  const { 'x-request-id': requestId = '', ...rest } = s.headers;
  const names = Object.keys(rest);
  const usual = names.length === 1 && rest['content-type'] === 'application/json';
  return {
    key: s.key,
    fingerprint: Number.parseInt(s.fingerprint.slice(0, 14), 16),
    startedAt: s.startedAt,
    status: s.status,
    body: s.body,
    requestId,
    headers: usual ? null : rest,
  };
}

/** One tenant in a snapshot. */
export interface TenantSnapshot {
  /** The tenant's id. */
  id: string;
  /** The tenant's virtual time (ISO 8601). */
  now: string;
  /** Users, as stored. */
  users: UserRec[];
  /** Quotes, as stored. */
  quotes: QuoteRec[];
  /** Conversions, as stored. */
  conversions: ConversionRec[];
  /** Transactions, as stored. */
  transactions: TransactionRec[];
  /** API keys, secrets included. */
  keys: KeyRec[];
  /** Completed idempotency records (those still running are left out). */
  idempotency: IdempotencySnapshot[];
  /** `POST /v1/quotes` times per API key id (the quote rate limit's sliding window). */
  rateWindows: Array<[string, number[]]>;
  /** Limit usage of the tenant and its users: bucket key and BRL amount. */
  usage: Array<[string, string]>;
  /** The recorded event log, oldest first. */
  events: SandboxEvent[];
  /** State of later layers (webhook endpoints and deliveries, fault plans). */
  extensions: Record<string, unknown>;
}

/** A JSON snapshot of a sandbox. */
export interface SandboxSnapshot {
  /** Marks the data as a sandbox snapshot. */
  format: 'pix-usdt-sandbox';
  /** Version of the snapshot format. */
  version: 1;
  /** The sandbox's environment. */
  environment: 'sandbox' | 'production';
  /** State of the id and secret generator (`null` when not seeded). */
  random: RandomState;
  /** The secret that signs pagination cursors. */
  cursorSecret: string;
  /** The pricing in force. */
  pricing: PricingSettings;
  /** The volume limits in force. */
  limits: LimitSettings;
  /** Platform-level limit usage: bucket key and BRL amount. */
  platformUsage: Array<[string, string]>;
  /** Id of the default tenant. */
  defaultTenantId: string;
  /** Id of the default tenant's API key (the sandbox's `apiKey`). */
  defaultKeyId: string;
  /** Every tenant. */
  tenants: TenantSnapshot[];
}

/** One tenant's part of a snapshot (not yet a deep copy: the records are the live ones). */
function tenantPart(platform: Platform, t: TenantState): TenantSnapshot {
  return {
    id: t.id,
    now: new Date(t.clock.nowMs()).toISOString(),
    users: [...t.users.all()],
    quotes: [...t.quotes.all()],
    conversions: [...t.conversions.all()],
    transactions: [...t.transactions.all()],
    keys: t.keys,
    idempotency: [...t.idempotency.values()].filter((r) => r.status !== 0).map(idempotencyOut),
    rateWindows: [...t.rateWindows.entries()],
    usage: [...t.usage.entries()],
    events: platform.eventsOf(t),
    extensions: t.extensions,
  };
}

/**
 * The parts of a snapshot: every platform-level field and the tenants named (all without
 * `tenantIds`). A server's journal writes these per change; `JSON.stringify` of the result
 * is the copy (the objects are the live ones until then).
 */
export function snapshotParts(platform: Platform, tenantIds?: Iterable<string>): SandboxSnapshot {
  const chosen: TenantState[] = [];
  if (tenantIds === undefined) chosen.push(...platform.tenants.values());
  else {
    for (const id of tenantIds) {
      const t = platform.tenants.get(id);
      if (t) chosen.push(t);
    }
  }
  return {
    format: 'pix-usdt-sandbox',
    version: 1,
    environment: platform.settings.environment,
    random: platform.random.state,
    cursorSecret: platform.cursorSecret,
    pricing: platform.pricing,
    limits: platform.limits,
    platformUsage: [...platform.platformUsage.entries()],
    defaultTenantId: platform.defaultTenantId,
    defaultKeyId: platform.defaultKeyId,
    tenants: chosen.map((t) => tenantPart(platform, t)),
  };
}

/** Where a tenant's journal stands: the last event and idempotency entry written. */
export interface TenantTracker {
  lastEvent: LoggedEvent | null;
  lastIdempotency: IdempotencyRec | null;
}

/**
 * A tenant's change since the previous journal line (`delta: true`): the records touched (see
 * `Collection.touched`), the idempotency records and events added, and the small parts (clock,
 * keys, rate windows, usage, extensions) whole. Compose it over the tenant's last state by id.
 */
export type TenantChange = TenantSnapshot & { delta?: true };

function startTracking(t: TenantState): TenantTracker {
  t.users.touched = new Set();
  t.quotes.touched = new Set();
  t.conversions.touched = new Set();
  t.transactions.touched = new Set();
  // A whole tenant leaves out the records still running: the next change starts before the first.
  const order = t.idempotencyOrder;
  let from = order.length;
  for (let i = order.length - 1; i >= t.idempotencyHead; i--) {
    const rec = order[i] as IdempotencyRec;
    if (t.idempotency.get(rec.key) === rec && rec.status === 0) from = i;
  }
  return { lastEvent: t.events.at(-1) ?? null, lastIdempotency: order[from - 1] ?? null };
}

// The items after `last` (all of them when it is gone: trimmed, or never set).
function after<X>(list: X[], last: X | null): X[] {
  return list.slice((last === null ? -1 : list.lastIndexOf(last)) + 1);
}

function drain<T>(touched: Set<T> | null): T[] {
  if (touched === null) return [];
  const out = [...touched];
  touched.clear();
  return out;
}

function tenantChange(t: TenantState, tracker: TenantTracker): TenantChange {
  const idempotency: IdempotencySnapshot[] = [];
  let last = tracker.lastIdempotency;
  for (const rec of after(t.idempotencyOrder, last)) {
    if (t.idempotency.get(rec.key) === rec) {
      // Still running: its answer is not known; the next line starts from it.
      if (rec.status === 0) break;
      idempotency.push(idempotencyOut(rec));
    }
    last = rec;
  }
  tracker.lastIdempotency = last;
  const events = after(t.events, tracker.lastEvent).map((e) => e.envelope());
  tracker.lastEvent = t.events.at(-1) ?? tracker.lastEvent;
  return {
    id: t.id,
    delta: true,
    now: new Date(t.clock.nowMs()).toISOString(),
    users: drain(t.users.touched),
    quotes: drain(t.quotes.touched),
    conversions: drain(t.conversions.touched),
    transactions: drain(t.transactions.touched),
    keys: t.keys,
    idempotency,
    rateWindows: [...t.rateWindows.entries()],
    usage: [...t.usage.entries()],
    events,
    extensions: t.extensions,
  };
}

/**
 * One journal line (live objects: serialize at once): the platform fields, and for each tenant
 * named its change since the previous line, or its whole state when it is not tracked yet or
 * `full` is set (a snapshot); tracking starts or restarts then.
 */
export function journalParts(platform: Platform, trackers: WeakMap<TenantState, TenantTracker>, tenantIds: Iterable<string>, full: boolean): SandboxSnapshot {
  const parts = snapshotParts(platform, []);
  for (const id of tenantIds) {
    const t = platform.tenants.get(id);
    if (!t) continue;
    const tracker = full ? undefined : trackers.get(t);
    if (tracker !== undefined) parts.tenants.push(tenantChange(t, tracker));
    else {
      parts.tenants.push(tenantPart(platform, t));
      trackers.set(t, startTracking(t));
    }
  }
  return parts;
}

/** Takes a snapshot (a deep copy: later changes do not affect it). */
export function takeSnapshot(platform: Platform): SandboxSnapshot {
  return JSON.parse(JSON.stringify(snapshotParts(platform))) as SandboxSnapshot;
}

/**
 * Replaces the platform's state with a snapshot. Each tenant's clock is set to the snapshot's
 * time, or to `notBefore` when that is later (reset never moves a clock backwards).
 */
export function loadSnapshot(platform: Platform, input: SandboxSnapshot | string, notBefore?: number): void {
  const snap = (typeof input === 'string' ? JSON.parse(input) : JSON.parse(JSON.stringify(input))) as SandboxSnapshot;
  if (snap?.format !== 'pix-usdt-sandbox' || snap.version !== 1) throw new TypeError('Not a pix-usdt sandbox snapshot (format version 1).');
  if (snap.environment !== platform.settings.environment) {
    throw new TypeError(`The snapshot is of a ${snap.environment} sandbox; this one is ${platform.settings.environment}.`);
  }
  platform.random.state = snap.random;
  platform.cursorSecret = snap.cursorSecret;
  platform.pricing = snap.pricing;
  platform.limits = snap.limits;
  platform.platformUsage = new Map(snap.platformUsage);
  platform.defaultTenantId = snap.defaultTenantId;
  platform.defaultKeyId = snap.defaultKeyId;
  platform.tenants = new Map();
  platform.keys = new Map();
  for (const t of snap.tenants) {
    const clock = platform.newClock(t.id);
    clock.set(Math.max(Date.parse(t.now), notBefore ?? -Infinity));
    const tenant = createTenantState(t.id, clock);
    for (const u of t.users) {
      tenant.users.insert(u);
      tenant.cpfIndex.set(u.cpf, u.id);
      tenant.externalIdIndex.set(u.externalId, u.id);
    }
    for (const q of t.quotes) tenant.quotes.insert(q);
    for (const c of t.conversions) tenant.conversions.insert(c);
    // Snapshots from before standalone transactions held limits: nothing held.
    for (const x of t.transactions) tenant.transactions.insert({ ...x, reservedBrl: x.reservedBrl ?? '0', reservedAt: x.reservedAt ?? x.createdAt });
    tenant.keys = t.keys;
    for (const k of t.keys) platform.keys.set(k.secret, k);
    for (const stored of [...t.idempotency].sort((a, b) => a.startedAt - b.startedAt)) {
      const r = idempotencyIn(stored);
      tenant.idempotency.set(r.key, r);
      tenant.idempotencyOrder.push(r);
    }
    tenant.rateWindows = new Map(t.rateWindows);
    tenant.usage = new Map(t.usage);
    tenant.events = t.events.map((e) => new RestoredEvent(e));
    tenant.extensions = t.extensions;
    platform.tenants.set(t.id, tenant);
    platform.reschedule(tenant);
  }
}
