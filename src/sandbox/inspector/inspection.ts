/**
 * The inspection API over a built sandbox: core state (read through the wire serializers the
 * API uses), the webhook plugin's records and the app's request log. It lives in the wiring
 * layer because it reads all three; it never changes anything.
 * @module
 */
import type { Platform } from '../core/platform.js';
import { CONVERSION_MACHINE } from '../core/machines.js';
import { changedFields, limitsOut, priceOut, timingsOut } from '../core/settings.js';
import type { ConversionRec, LoggedEvent, SandboxEvent, StateChange, TenantState } from '../core/state.js';
import { conversionOut, iso, quoteOut, transactionOut, userOut } from '../core/wire.js';
import type { RequestLog, RequestLogEntry } from '../http/request-log.js';
import type { CircuitView, WebhookRecords } from '../plugins/webhooks/index.js';
import type {
  InspectedCircuit,
  InspectedConversion,
  InspectedDelivery,
  InspectedMatch,
  InspectedRequest,
  InspectedSettings,
  InspectedStep,
  InspectedTenant,
  InspectedTenantSummary,
  MachineRow,
  RequestFilter,
  SandboxInspection,
} from './types.js';

const LIST_MAX = 200;


/** A tenant's settings as its own key reads them, and which fields it set itself (wire names). */
function settingsView(t: TenantState): InspectedSettings {
  return { price: priceOut(t.settings.price), limits: limitsOut(t.settings.limits), timings: timingsOut(t.settings.timings), changed: changedFields(t.ownSettings) };
}

const HISTORY_MAX = 10_000;

/** What the listing says of a tenant whose data cannot be shown. */
const UNSHOWABLE = 'Its data cannot be shown (a damaged record or a clock out of range); the other tenants are not affected.';
const NO_COUNTS: InspectedTenantSummary['counts'] = { users: 0, quotes: 0, conversions: 0, transactions: 0, webhook_endpoints: 0 };

/** A tenant's summary, or the tenant listed as one whose data cannot be shown: one bad tenant never hides the others. */
function listed(id: string, isDefault: boolean, summary: () => InspectedTenantSummary): InspectedTenantSummary {
  try {
    return summary();
  } catch {
    return { id, default: isDefault, counts: { ...NO_COUNTS }, now: null, problem: UNSHOWABLE };
  }
}

/** Thrown by a tenant's page when its data cannot be shown (the handler answers it as an error naming the tenant). */
export class UnshowableTenantError extends Error {
  override readonly name = 'UnshowableTenantError';
  constructor(readonly tenantId: string) {
    super(`Tenant ${tenantId}: ${UNSHOWABLE}`);
  }
}

/** Runs a tenant's page, turning a failure to show its data into an {@link UnshowableTenantError}. */
function page<T>(tenantId: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof RangeError && /^No tenant /.test(error.message)) throw error;
    throw new UnshowableTenantError(tenantId);
  }
}

function circuitOut(c: CircuitView): InspectedCircuit {
  return { state: c.state, consecutive_failures: c.consecutiveFailures, open_until: c.openUntil === null ? null : iso(c.openUntil), deferred: c.deferred };
}

function deferralOut(since: number | null): InspectedDelivery['deferred'] {
  return since === null ? null : { reason: 'circuit_open', scheduled_at: iso(since) };
}

/** A tenant of a stored sandbox's listing: in memory, or its counts and clock as stored. */
export interface ListedTenant {
  id: string;
  tenant: TenantState | undefined;
  counts: Record<string, number>;
  now: number;
}

/** What the inspection reads. */
export interface InspectionParts {
  platform: Platform;
  requests: RequestLog;
  webhooks: WebhookRecords;
  /** Every tenant of a stored sandbox, most of them not in memory (src/sandbox/stored.ts). */
  listing?: () => Iterable<ListedTenant>;
  /** How many conversions' moves are kept at most (default 10,000; tests set fewer). */
  historyMax?: number;
}

/** A request log entry as the inspection hands it out: a copy, so that a reader cannot change the log. */
export function requestOut(e: RequestLogEntry): InspectedRequest {
  return { ...e, object_ids: [...e.object_ids] };
}

function newest<T>(items: readonly T[]): T[] {
  return items.slice(-LIST_MAX).reverse();
}

/** A conversion's move as the inspection keeps it (a `StateChange` without the conversion id, its time as a number). */
interface Move {
  from: string | null;
  to: string;
  trigger: string;
  eventId: string | null;
  eventType: string | null;
  at: number;
}

/** The inspection API; keeps each conversion's moves (seen live) for its path. */
export class Inspection implements Omit<SandboxInspection, 'onRequest'> {
  readonly #parts: InspectionParts;
  /**
   * Moves of the latest conversions that moved (5,000 to 10,000), keyed by their record (not in
   * snapshots: a restore falls back to the event log). Each move holds strings the conversion and
   * its event already hold; its time is a number. Two generations, the older dropped whole when
   * the newer fills: deleting the oldest entry of one full map left a hole at the head of V8's
   * ordered table that each later `keys().next()` walked past (8-12 us a new conversion once
   * full, in every server: `serve` opens the inspector at start).
   */
  #history = new Map<ConversionRec, Move[]>();
  #older = new Map<ConversionRec, Move[]>();

  /** Opens the request log and starts watching moves: built on the inspector's first use (sandbox.ts). */
  constructor(parts: InspectionParts) {
    this.#parts = parts;
    parts.requests.open();
    parts.platform.moves.add((change, tenantId) => this.#observe(change, tenantId));
  }

  #observe(change: StateChange, tenantId: string): void {
    const rec = this.#parts.platform.tenants.get(tenantId)?.conversions.get(change.id);
    if (rec === undefined) return;
    let list = this.#history.get(rec);
    if (!list) {
      // A conversion of the older generation that moves again comes along into the newer one.
      list = this.#older.get(rec);
      if (list !== undefined) this.#older.delete(rec);
      if (this.#history.size >= (this.#parts.historyMax ?? HISTORY_MAX) / 2) {
        this.#older = this.#history;
        this.#history = new Map();
      }
      this.#history.set(rec, (list ??= []));
    }
    list.push({ from: change.from, to: change.to, trigger: change.trigger, eventId: change.eventId, eventType: change.eventType, at: Date.parse(change.at) });
  }

  #movesOf(rec: ConversionRec): Move[] | undefined {
    return this.#history.get(rec) ?? this.#older.get(rec);
  }

  /** How many conversions have their moves kept (at most 10,000). */
  get historySize(): number {
    return this.#history.size + this.#older.size;
  }

  /** Drops the moves seen so far (the state was reset or restored: pages fall back to the event log). */
  forget(): void {
    this.#history.clear();
    this.#older.clear();
  }

  #tenant(id: string): TenantState {
    const tenant = this.#parts.platform.tenant(id);
    if (!tenant) throw new RangeError(`No tenant ${id} in this sandbox.`);
    return tenant;
  }

  // The tenant's log as kept (compact entries: an envelope is built only for what is shown).
  #log(t: TenantState): LoggedEvent[] {
    return t.events.recent(this.#parts.platform.settings.eventLogSize);
  }

  #ordered(): TenantState[] {
    const { platform } = this.#parts;
    const all = [...platform.tenants.values()];
    return [...all.filter((t) => t.id === platform.defaultTenantId), ...all.filter((t) => t.id !== platform.defaultTenantId)];
  }

  #summary(t: TenantState): InspectedTenantSummary {
    return {
      id: t.id,
      default: t.id === this.#parts.platform.defaultTenantId,
      counts: {
        users: t.users.size,
        quotes: t.quotes.size,
        conversions: t.conversions.size,
        transactions: t.transactions.size,
        webhook_endpoints: this.#parts.webhooks.of(t).endpoints.length,
      },
      now: iso(t.clock.nowMs()),
    };
  }

  tenants(): InspectedTenantSummary[] {
    const listing = this.#parts.listing;
    const defaultId = this.#parts.platform.defaultTenantId;
    if (listing === undefined) return this.#ordered().map((t) => listed(t.id, t.id === defaultId, () => this.#summary(t)));
    // A stored sandbox: every tenant, from storage, without loading those that are not in memory.
    const out: InspectedTenantSummary[] = [];
    for (const row of listing()) {
      const tenant = row.tenant;
      if (tenant !== undefined) out.push(listed(row.id, row.id === defaultId, () => this.#summary(tenant)));
      else {
        const c = row.counts;
        out.push(
          listed(row.id, row.id === defaultId, () => ({
            id: row.id,
            default: row.id === defaultId,
            counts: { users: c['user'] ?? 0, quotes: c['quote'] ?? 0, conversions: c['conversion'] ?? 0, transactions: c['transaction'] ?? 0, webhook_endpoints: c['webhook_endpoint'] ?? 0 },
            now: iso(row.now),
          })),
        );
      }
    }
    return [...out.filter((t) => t.default), ...out.filter((t) => !t.default)];
  }

  tenant(id: string): InspectedTenant {
    return page(id, () => this.#tenantPage(id));
  }

  #tenantPage(id: string): InspectedTenant {
    const t = this.#tenant(id);
    const { endpoints, deliveries } = this.#parts.webhooks.of(t);
    return {
      ...this.#summary(t),
      users: newest(t.users.all()).map(userOut),
      quotes: newest(t.quotes.all()).map(quoteOut),
      conversions: newest(t.conversions.all()).map(conversionOut),
      transactions: newest(t.transactions.all()).map(transactionOut),
      webhook_endpoints: endpoints
        .filter((e) => e.deletedAt === null)
        .map((e) => ({
          id: e.id,
          url: e.url,
          status: e.status,
          event_types: [...e.eventTypes],
          secret_prefix: e.secret.slice(0, 10),
          deliveries: deliveries.filter((d) => d.endpointId === e.id).length,
          circuit: circuitOut(this.#parts.webhooks.circuit(t, e)),
        })),
      api_keys: t.keys.map((k) => ({ id: k.id, name: k.name, key_prefix: k.secret.slice(0, 12), capabilities: [...k.capabilities], revoked: k.revokedAt !== null })),
      settings: settingsView(t),
    };
  }

  #deliveriesOf(t: TenantState, eventId: string): InspectedDelivery[] {
    const { endpoints, deliveries } = this.#parts.webhooks.of(t);
    return deliveries
      .filter((d) => d.eventId === eventId)
      .map((d) => ({
        id: d.id,
        endpoint_id: d.endpointId,
        url: endpoints.find((e) => e.id === d.endpointId)?.url ?? '',
        status: d.status,
        attempts: d.attempts.map((a) => ({ at: iso(a.at), status: a.status, latency_ms: a.latencyMs, error: a.error })),
        next_attempt_at: d.nextAttemptAt === null ? null : iso(d.nextAttemptAt),
        deferred: deferralOut(this.#parts.webhooks.deferredSince(t, d)),
        payload: String(d.payload),
      }));
  }

  conversion(tenantId: string, id: string): InspectedConversion | null {
    return page(tenantId, () => this.#conversionPage(tenantId, id));
  }

  #conversionPage(tenantId: string, id: string): InspectedConversion | null {
    const t = this.#tenant(tenantId);
    const rec = t.conversions.get(id);
    if (!rec) return null;
    const events = this.#log(t)
      .filter((e) => e.objectId === id)
      .map((e) => e.envelope());
    const byId = new Map(events.map((e) => [e.id, e]));
    const moves = this.#movesOf(rec);
    let timeline: InspectedStep[];
    let source: InspectedConversion['path_source'];
    if (moves !== undefined && moves[0]?.from === null) {
      source = 'machine';
      timeline = moves.map((m) => ({
        from: m.from,
        to: m.to,
        trigger: m.trigger,
        at: iso(m.at),
        event: m.eventId === null ? null : { id: m.eventId, type: m.eventType ?? byId.get(m.eventId)?.type ?? '' },
        deliveries: m.eventId === null ? [] : this.#deliveriesOf(t, m.eventId),
      }));
    } else {
      source = 'events';
      let from: string | null = null;
      timeline = events.map((e: SandboxEvent) => {
        const to = String((e.data.object as { status?: unknown }).status);
        const step: InspectedStep = { from, to, trigger: null, at: e.created_at, event: { id: e.id, type: e.type }, deliveries: this.#deliveriesOf(t, e.id) };
        from = to;
        return step;
      });
    }
    const path: string[] = [];
    for (const step of timeline) if (path[path.length - 1] !== step.to) path.push(step.to);
    const touched = new Set([id, rec.quoteId]);
    if (rec.liquidationQuoteId !== null) touched.add(rec.liquidationQuoteId);
    const requests = this.#parts.requests
      .recent()
      .filter((r) => r.tenant_id === tenantId && r.object_ids.some((o) => touched.has(o)))
      .map(requestOut);
    return { tenant_id: tenantId, now: iso(t.clock.nowMs()), conversion: conversionOut(rec), path, path_source: source, timeline, requests };
  }

  requests(filter: RequestFilter = {}): InspectedRequest[] {
    const status = filter.status?.trim().toLowerCase();
    const out: InspectedRequest[] = [];
    const all = this.#parts.requests.recent();
    for (let i = all.length - 1; i >= 0; i--) {
      const r = all[i] as RequestLogEntry;
      if (status) {
        if (/^[1-5]xx$/.test(status) ? String(r.status)[0] !== status[0] : String(r.status) !== status) continue;
      }
      if (filter.path && !r.path.includes(filter.path)) continue;
      if (filter.request_id && r.request_id !== filter.request_id.trim()) continue;
      if (filter.tenant_id && r.tenant_id !== filter.tenant_id) continue;
      out.push(requestOut(r));
    }
    return out;
  }

  search(query: string): InspectedMatch[] {
    const q = query.trim();
    if (q.length < 3) return [];
    const out: InspectedMatch[] = [];
    for (const t of this.#ordered()) {
      // A tenant whose data cannot be shown has no match to show; the others are searched.
      try {
        out.push(...this.#searchTenant(t, q));
      } catch {
        continue;
      }
    }
    for (const r of this.#parts.requests.recent()) {
      if (r.request_id !== q) continue;
      const tenant = r.tenant_id === null ? undefined : this.#parts.platform.tenants.get(r.tenant_id);
      let conversionId: string | null = null;
      for (const o of r.object_ids) conversionId ??= tenant?.conversions.get(o)?.id ?? tenant?.quotes.get(o)?.consumedBy ?? null;
      out.push({ kind: 'request', tenant_id: r.tenant_id, id: q, conversion_id: conversionId, field: 'request_id' });
    }
    return out;
  }

  #searchTenant(t: TenantState, q: string): InspectedMatch[] {
    const out: InspectedMatch[] = [];
    const conv = t.conversions.get(q);
    if (conv) out.push({ kind: 'conversion', tenant_id: t.id, id: q, conversion_id: q, field: 'id' });
    const quote = t.quotes.get(q);
    if (quote) out.push({ kind: 'quote', tenant_id: t.id, id: q, conversion_id: quote.consumedBy, field: 'id' });
    if (t.users.get(q)) out.push({ kind: 'user', tenant_id: t.id, id: q, conversion_id: null, field: 'id' });
    const tx = t.transactions.get(q);
    if (tx) out.push({ kind: 'transaction', tenant_id: t.id, id: q, conversion_id: tx.conversionId, field: 'id' });
    for (const c of t.conversions.all()) {
      if (c.pixAt === null && c.usdtAt === null && c.liquidationQuoteId !== q) continue;
      const wire = conversionOut(c);
      if (wire.pix_e2e_id === q) out.push({ kind: 'conversion', tenant_id: t.id, id: c.id, conversion_id: c.id, field: 'pix_e2e_id' });
      if (wire.usdt_tx_hash === q) out.push({ kind: 'conversion', tenant_id: t.id, id: c.id, conversion_id: c.id, field: 'usdt_tx_hash' });
      if (wire.pix_tx_id === q) out.push({ kind: 'conversion', tenant_id: t.id, id: c.id, conversion_id: c.id, field: 'pix_tx_id' });
      if (c.liquidationQuoteId === q) out.push({ kind: 'conversion', tenant_id: t.id, id: c.id, conversion_id: c.id, field: 'liquidation_quote_id' });
    }
    const log = this.#log(t);
    const event = log.find((e) => e.id === q);
    if (event) {
      const objectId = event.objectId;
      out.push({ kind: 'event', tenant_id: t.id, id: q, conversion_id: t.conversions.get(objectId) ? objectId : null, field: 'id' });
    }
    const delivery = this.#parts.webhooks.delivery(t, q);
    if (delivery) {
      const objectId = log.find((e) => e.id === delivery.eventId)?.objectId;
      out.push({ kind: 'delivery', tenant_id: t.id, id: q, conversion_id: objectId !== undefined && t.conversions.get(objectId) ? objectId : null, field: 'id' });
    }
    return out;
  }

  conversionMachine(): MachineRow[] {
    return CONVERSION_MACHINE.transitions.map((r) => ({ from: r.from, trigger: r.trigger, to: r.to, event: r.event }));
  }
}
