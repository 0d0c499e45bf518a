/**
 * `snapshot()` / `restore()`: the whole platform state as JSON (every tenant, its clock time,
 * keys, idempotency records, rate windows, usage, event log, the settings it set), with timers re-created from
 * the state on restore. Snapshots hold API key secrets: treat them as test fixtures only.
 * @module
 */
import * as z from 'zod/mini';
import { lazy } from '../../models/lazy.js';
import { jsonDepth } from './json-depth.js';
import type { Platform } from './platform.js';
import { type LimitSettings, Usage } from './limits.js';
import { MemoryEventLog } from './logs.js';
import type { PricingSettings } from './pricing.js';
import type { RandomState } from './random.js';
import { RestoredEvent } from './event-log.js';
import { type OwnSettings, ownSettingsOf } from './settings.js';
import { Amount, Id, MAX_DOCUMENT_DEPTH, MAX_ISSUES, TenantDocumentError, parseTenantRecords, pathOf } from './tenant-schema.js';
import {
  type ConversionRec,
  type IdempotencyRec,
  type KeyRec,
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

/**
 * One tenant in a {@link SandboxSnapshot} or a tenant document (`sandbox.exportTenant()`): the
 * sandbox's own record format for the document's `version`. Opaque: hand it back to a sandbox
 * (`restore`, `createTenant({ snapshot })`) as it is. Only its id and clock time are named here;
 * the rest (users, keys with their secrets, webhook endpoints, idempotency records, events,
 * settings) is the sandbox's to read and may change shape with the format's version. It holds
 * secrets: keep it to test fixtures.
 */
export interface TenantSnapshot {
  /** The tenant's id. */
  readonly id: string;
  /** The tenant's virtual time when it was taken (ISO 8601). */
  readonly now: string;
}

/**
 * One tenant's records as a snapshot holds them (not public: {@link TenantSnapshot} is what a
 * partner sees). The stored twin is core/persist.ts (`snapshotOfRows`, `TenantCodec.export`).
 */
export interface TenantRecords {
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
  /**
   * The price feed, limits and timings the tenant set itself (only the fields it set; `{}`: none).
   * The rest comes from the restoring sandbox's defaults. Absent in snapshots from before
   * per-tenant settings: the tenant then has the defaults.
   */
  settings?: OwnSettings;
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
  /**
   * The sandbox's default pricing when the snapshot was taken. Informative: a restore keeps the
   * restoring sandbox's own defaults (each tenant's changes are in its `settings`).
   */
  pricing?: PricingSettings;
  /** The sandbox's default limits when the snapshot was taken (informative, as `pricing`). */
  limits?: LimitSettings;
  /** Platform-level limit usage: bucket key and BRL amount. */
  platformUsage: Array<[string, string]>;
  /** Id of the default tenant. */
  defaultTenantId: string;
  /** Id of the default tenant's API key (the sandbox's `apiKey`). */
  defaultKeyId: string;
  /** Every tenant (opaque: the sandbox's own records). */
  tenants: TenantSnapshot[];
}

/** A whole snapshot with its tenants' records, as the sandbox reads and writes it (not public). */
export interface SnapshotRecords extends Omit<SandboxSnapshot, 'tenants'> {
  /** Every tenant, with its records. */
  tenants: TenantRecords[];
}

/** One tenant's part of a snapshot (not yet a deep copy: the records are the live ones). */
function tenantPart(platform: Platform, t: TenantState): TenantRecords {
  return {
    id: t.id,
    now: new Date(t.clock.nowMs()).toISOString(),
    users: [...t.users.all()],
    quotes: [...t.quotes.all()],
    conversions: [...t.conversions.all()],
    transactions: [...t.transactions.all()],
    keys: t.keys,
    idempotency: t.idempotency.answered().map(idempotencyOut),
    rateWindows: [...t.rateWindows.entries()],
    usage: [...t.usage.entries()],
    events: platform.eventsOf(t),
    extensions: t.extensions,
    settings: t.ownSettings ?? {},
  };
}

/**
 * The parts of a snapshot: every platform-level field and the tenants named (all without
 * `tenantIds`). `JSON.stringify` of the result is the copy (the objects are the live ones until then).
 */
export function snapshotParts(platform: Platform, tenantIds?: Iterable<string>): SnapshotRecords {
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
    pricing: platform.defaults.price,
    limits: platform.defaults.limits,
    platformUsage: [...platform.platformUsage.entries()],
    defaultTenantId: platform.defaultTenantId,
    defaultKeyId: platform.defaultKeyId,
    tenants: chosen.map((t) => tenantPart(platform, t)),
  };
}

/** Takes a snapshot (a deep copy: later changes do not affect it). */
export function takeSnapshot(platform: Platform): SnapshotRecords {
  return JSON.parse(JSON.stringify(snapshotParts(platform))) as SnapshotRecords;
}

const Int32 = /* @__PURE__ */ lazy(() => z.number().check(z.int(), z.gte(-(2 ** 31)), z.lt(2 ** 32)));
const SnapshotHead = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    random: z.nullable(z.tuple([Int32, Int32, Int32, Int32])),
    cursorSecret: z.string().check(z.minLength(16), z.maxLength(200)),
    platformUsage: z.array(z.tuple([z.string().check(z.regex(/^[dm]\d{1,7}$/, 'Must be a usage bucket (d<day> or m<month>)')), Amount])),
    defaultTenantId: Id,
    defaultKeyId: Id,
    tenants: z.array(z.unknown()).check(z.minLength(1, 'A snapshot has at least its default tenant')),
  }),
);

/**
 * A whole snapshot checked as a tenant document is: every tenant through the tenant schema
 * (core/tenant-schema.ts), tenant ids, key ids and key secrets unique across tenants (one
 * secret opens one tenant), the default tenant and key among them. Answers its own copy;
 * throws a `TypeError` for another format, version or environment, and a
 * {@link TenantDocumentError} (`damaged`, with paths) for anything else.
 */
export function readSnapshot(platform: Platform, input: SandboxSnapshot | string): SnapshotRecords {
  let text: string;
  try {
    text = typeof input === 'string' ? input : JSON.stringify(input);
  } catch {
    throw new TenantDocumentError('damaged', [{ path: '', message: 'Not serialisable as JSON' }]);
  }
  let snap: SnapshotRecords;
  try {
    snap = JSON.parse(text) as SnapshotRecords;
  } catch {
    throw new TenantDocumentError('damaged', [{ path: '', message: 'Not valid JSON (cut short or altered?)' }]);
  }
  if (snap?.format !== 'pix-usdt-sandbox' || snap.version !== 1) throw new TypeError('Not a pix-usdt sandbox snapshot (format version 1).');
  if (snap.environment !== platform.settings.environment) {
    throw new TypeError(`The snapshot is of a ${snap.environment} sandbox; this one is ${platform.settings.environment}.`);
  }
  const damaged = (issues: Array<{ path: string; message: string }>): TenantDocumentError => new TenantDocumentError('damaged', issues.slice(0, MAX_ISSUES));
  if (jsonDepth(text) > MAX_DOCUMENT_DEPTH) throw damaged([{ path: '', message: `Nested deeper than ${MAX_DOCUMENT_DEPTH} levels of arrays and objects` }]);
  const head = z.safeParse(SnapshotHead, snap);
  if (!head.success) throw damaged(head.error.issues.map((i) => ({ path: pathOf(i.path), message: i.message })));
  const issues: Array<{ path: string; message: string }> = [];
  const tenants: TenantRecords[] = [];
  const tenantIds = new Set<string>();
  const keyIds = new Set<string>();
  const secrets = new Set<string>();
  snap.tenants.forEach((raw, i) => {
    const parsed = parseTenantRecords(platform.extensions, raw, `tenants.${i}.`);
    if (!parsed.ok) {
      issues.push(...parsed.issues);
      return;
    }
    const t = parsed.records as unknown as TenantRecords;
    if (tenantIds.has(t.id)) issues.push({ path: `tenants.${i}.id`, message: `Duplicate tenant ${t.id}` });
    tenantIds.add(t.id);
    t.keys.forEach((k, j) => {
      if (keyIds.has(k.id)) issues.push({ path: `tenants.${i}.keys.${j}.id`, message: `The id of a key of another tenant` });
      if (secrets.has(k.secret)) issues.push({ path: `tenants.${i}.keys.${j}.secret`, message: 'The secret of a key of another tenant: one secret opens one tenant' });
      keyIds.add(k.id);
      secrets.add(k.secret);
    });
    tenants.push(t);
  });
  if (issues.length === 0) {
    const first = tenants.find((t) => t.id === snap.defaultTenantId);
    if (first === undefined) issues.push({ path: 'defaultTenantId', message: 'No such tenant in the snapshot' });
    else if (!first.keys.some((k) => k.id === snap.defaultKeyId)) issues.push({ path: 'defaultKeyId', message: 'No such key of the default tenant' });
  }
  if (issues.length > 0) throw damaged(issues);
  return { ...snap, tenants };
}

/**
 * Replaces the platform's state with a snapshot, checked whole first ({@link readSnapshot}): a
 * snapshot refused leaves the sandbox as it was. Each tenant's clock is set to the snapshot's
 * time, or to `notBefore` when that is later (reset never moves a clock backwards).
 */
export function loadSnapshot(platform: Platform, input: SandboxSnapshot | string, notBefore?: number): void {
  const snap = readSnapshot(platform, input);
  const own = new Map(snap.tenants.map((t) => [t.id, ownSettingsOf(t.settings, t.id)]));
  platform.random.state = snap.random;
  platform.cursorSecret = snap.cursorSecret;
  platform.platformUsage = new Usage(snap.platformUsage);
  platform.defaultTenantId = snap.defaultTenantId;
  platform.defaultKeyId = snap.defaultKeyId;
  platform.tenants = new Map();
  platform.keys = new Map();
  for (const t of snap.tenants) restoreTenant(platform, t, notBefore, own.get(t.id) ?? null);
}

/**
 * Puts one tenant of a snapshot (its own copy: the records are taken as they are) into the
 * platform, keys and own settings included, and re-creates its timers. Its clock is set to the
 * snapshot's time, or to `notBefore` when that is later. `own` is the tenant's settings, already
 * checked (`ownSettingsOf`).
 */
export function restoreTenant(platform: Platform, t: TenantRecords, notBefore?: number, own: OwnSettings | null = ownSettingsOf(t.settings, t.id)): TenantState {
  const clock = platform.newClock(t.id);
  clock.set(Math.max(Date.parse(t.now), notBefore ?? -Infinity));
  const tenant = createTenantState(t.id, clock, platform.defaults, platform.settings.eventLogSize);
  platform.adoptSettings(tenant, own);
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
  }
  tenant.rateWindows = new Map(t.rateWindows);
  tenant.usage = new Usage(t.usage);
  tenant.events = new MemoryEventLog(platform.settings.eventLogSize, t.events.map((e) => new RestoredEvent(e)));
  tenant.extensions = t.extensions;
  platform.tenants.set(t.id, tenant);
  platform.reschedule(tenant);
  return tenant;
}
