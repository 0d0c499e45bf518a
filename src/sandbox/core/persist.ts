/**
 * A tenant as rows of the storage port (../storage/port.ts), and back: what a stored sandbox
 * (`serve --data`, a Durable Object) writes and loads.
 *
 * - Loading: a tenant's rows become a {@link TenantRecords} (records parsed, idempotency records
 *   and events left in storage) restored as any snapshot is; its two logs are then the stored
 *   ones below, which keep in memory only what is not written yet.
 * - Capture: what changed since the last capture, as rows: the records `insert`ed, `update`d or
 *   changed after a read by id (core/collection.ts tracks them), those a retention rule removed
 *   (deleted), the usage counters set, the new
 *   idempotency records and events, the keys, and the tenant's own row when its small parts
 *   changed. A read, or an idempotent replay, changes none of them: it writes nothing.
 *
 * Record kinds are a table, like timers: core's four, and those a plugin adds (webhook endpoints
 * and deliveries), each saying where its collection is and where its records sit in a snapshot.
 * @module
 */
import type { EventRow, IdempotencyKey, IdempotencyRow, RecordRow, SandboxStorage, TenantChanges, TenantRows, UsageRow } from '../storage/port.js';
import type { Stored } from './collection.js';
import { PackedEvent, RestoredEvent } from './event-log.js';
import type { EventLog, IdempotencyRec, IdempotencyStore, LoggedEvent, SandboxEvent } from './logs.js';
import type { Platform } from './platform.js';
import { type IdempotencySnapshot, type TenantRecords, idempotencyIn, idempotencyOut, restoreTenant } from './snapshot.js';
import type { KeyRec, TenantState } from './state.js';
import type { OwnSettings } from './settings.js';
import { Version } from './versions.js';
import { iso } from './wire.js';

/** What a stored tenant reads of a collection (core/collection.ts). */
export interface TrackedRecords {
  readonly size: number;
  readonly tracked: boolean;
  all(): readonly Stored[];
  startTracking(): void;
  takeChanges(): Array<[record: Stored, json: string | null]>;
  takeRemoved(): number[];
}

/** Where one kind of record lives: its collection in a tenant, and its place in a snapshot. */
export interface RecordKind {
  /** The tenant's collection of this kind (`undefined`: it has none yet, nothing to write). */
  collection(tenant: TenantState): TrackedRecords | undefined;
  /** Its records in a tenant snapshot: a top-level field, or a field of one extension. */
  at: { field: 'users' | 'quotes' | 'conversions' | 'transactions' } | { extension: string; field: string };
}

/** Record kinds by name (the `kind` of a record row). */
export type RecordTable = Record<string, RecordKind>;

/** The platform's own records. */
export const CORE_RECORDS: RecordTable = {
  user: { collection: (t) => t.users, at: { field: 'users' } },
  quote: { collection: (t) => t.quotes, at: { field: 'quotes' } },
  conversion: { collection: (t) => t.conversions, at: { field: 'conversions' } },
  transaction: { collection: (t) => t.transactions, at: { field: 'transactions' } },
};

/**
 * The tenant row's JSON (`state`): the small parts, written whole when one of them changes. What
 * nearly every request changes (the event log's position, the record counts) is read from the
 * rows instead (schema 2), so that a request adding a user does not rewrite the tenant's row.
 */
export interface StoredTenantState {
  /** The clock: the offset from real time, or the frozen instant (see `Clock.state`). */
  clock: { realTime: boolean; at: number };
  rateWindows: Array<[string, number[]]>;
  /** Extension state other than records (those are rows of their own). */
  extensions: Record<string, unknown>;
  /** The price feed, limits and timings the tenant set itself (absent: none, the defaults apply). */
  settings?: OwnSettings;
}

/** How long answered idempotency records wait between two deletions of the expired ones (tenant time). */
const EXPIRY_EVERY_MS = 60_000;
/** How many events may pass the log's size before the oldest are deleted. */
const TRIM_EVERY = 1_000;
/** Answered idempotency records a stored tenant keeps after they are written, the latest first out last. */
const RECENT_ANSWERS = 64;

/** The tenant's extensions with the records of every kind left out (a shallow copy: the live state is untouched). */
function extensionsWithoutRecords(extensions: Record<string, unknown>, kinds: RecordTable): Record<string, unknown> {
  const out: Record<string, unknown> = { ...extensions };
  for (const kind of Object.values(kinds)) {
    const at = kind.at;
    if (!('extension' in at)) continue;
    const ext = out[at.extension] as Record<string, unknown> | undefined;
    if (ext !== undefined) out[at.extension] = { ...ext, [at.field]: [] };
  }
  return out;
}

/** What a stored tenant's rows say, as a snapshot of it (idempotency records and events are not in it). */
export function snapshotOfRows(rows: TenantRows, kinds: RecordTable, realNow = Date.now()): TenantRecords {
  const state = JSON.parse(rows.tenant.state) as StoredTenantState;
  const snapshot: TenantRecords = {
    id: rows.tenant.id,
    now: new Date(state.clock.realTime ? realNow + state.clock.at : state.clock.at).toISOString(),
    users: [],
    quotes: [],
    conversions: [],
    transactions: [],
    keys: rows.keys.map((k) => JSON.parse(k.data) as KeyRec),
    idempotency: [],
    rateWindows: state.rateWindows,
    usage: rows.usage.map((u) => [u.bucket, u.amount as string]),
    events: [],
    extensions: state.extensions,
    ...(state.settings === undefined ? {} : { settings: state.settings }),
  };
  const byKind = new Map<string, Stored[]>();
  for (const row of rows.records) {
    let list = byKind.get(row.kind);
    if (!list) byKind.set(row.kind, (list = []));
    list.push(JSON.parse(row.data) as Stored);
  }
  for (const [name, kind] of Object.entries(kinds)) {
    const records = byKind.get(name) ?? [];
    const at = kind.at;
    if ('extension' in at) {
      const ext = snapshot.extensions[at.extension] as Record<string, unknown> | undefined;
      if (ext !== undefined) ext[at.field] = records;
    } else {
      (snapshot[at.field] as Stored[]) = records;
    }
  }
  return snapshot;
}

/** A hash in {@link StoredIdempotency}'s known keys that stands for more than one start. */
const SEVERAL = Number.NEGATIVE_INFINITY;

/** A 30-bit hash of a key (FNV-1a; 30 bits stay a small integer in V8's sets). */
function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h & 0x3fffffff;
}

/** Idempotency records of a stored tenant: those not written yet in memory, the rest read from storage. */
export class StoredIdempotency implements IdempotencyStore {
  // Running records, and answered ones not written yet.
  readonly #live = new Map<string, IdempotencyRec>();
  readonly #taken = new Set<IdempotencyRec>();
  /**
   * The last {@link RECENT_ANSWERS} records written, still in memory: a client's retry comes
   * soon after its first try, and is then answered without reading its row (the same answer:
   * the row is the full form of this record, its body the JSON of this version).
   */
  readonly #recent = new Map<string, IdempotencyRec>();
  #cutoff = -Infinity;
  #expiredTo = -Infinity;
  /**
   * The hashes of every key storage may hold for this tenant, each with when its record started:
   * those it held when the tenant was loaded (none for a new tenant), and every key set since
   * (storage has no other writer while the tenant is in memory). A key whose hash is not here is
   * not in storage, so a new key (most mutations carry one) is answered without a `SELECT`; one
   * that is here (a replay, an expired key) is one exact lookup by its start (storage has no index
   * by key: schema 3). {@link SEVERAL}: two keys of one hash, or a key set again (one in 2^30
   * keys, or one reused after it expired): storage searches the tenant's unexpired keys for it.
   */
  readonly #known: Map<number, number>;

  constructor(
    private readonly storage: SandboxStorage,
    private readonly tenantId: string,
    /** The instant at or before which a record has expired (the tenant's time minus the window). */
    private readonly cutoff: () => number,
    /** The keys storage holds for this tenant (`[]`: a tenant storage has no rows of yet). */
    stored: readonly IdempotencyKey[],
    /** The JSON of a version (`Platform.textOf`: the answer's own text when it is still kept). */
    private readonly textOf: (version: Version) => string = (v) => v.text(),
  ) {
    const known = new Map<number, number>();
    for (const { key, startedAt } of stored) StoredIdempotency.#note(known, key, startedAt);
    this.#known = known;
  }

  static #note(known: Map<number, number>, key: string, startedAt: number): void {
    const hash = keyHash(key);
    const at = known.get(hash);
    known.set(hash, at === undefined || at === startedAt ? startedAt : SEVERAL);
  }

  get(key: string): IdempotencyRec | undefined {
    const live = this.#live.get(key);
    if (live !== undefined) return live;
    const recent = this.#recent.get(key);
    // As storage reads it: a record started at or before the cutoff has expired.
    if (recent !== undefined) return recent.startedAt > this.cutoff() ? recent : undefined;
    const at = this.#known.get(keyHash(key));
    if (at === undefined) return undefined;
    const row = this.storage.idempotency(this.tenantId, key, this.cutoff(), at === SEVERAL ? undefined : at);
    return row === null ? undefined : idempotencyIn(JSON.parse(row.data) as IdempotencySnapshot);
  }

  set(key: string, record: IdempotencyRec): void {
    StoredIdempotency.#note(this.#known, key, record.startedAt);
    this.#recent.delete(key);
    this.#live.set(key, record);
  }

  delete(key: string): void {
    this.#live.delete(key);
    this.#recent.delete(key);
  }

  expire(cutoff: number): void {
    if (cutoff > this.#cutoff) this.#cutoff = cutoff;
  }

  answered(): IdempotencyRec[] {
    const out = new Map<string, IdempotencyRec>();
    for (const row of this.storage.idempotencyAll(this.tenantId, this.cutoff())) out.set(row.key, idempotencyIn(JSON.parse(row.data) as IdempotencySnapshot));
    for (const [key, rec] of this.#live) if (rec.status !== 0) out.set(key, rec);
    return [...out.values()].sort((a, b) => a.startedAt - b.startedAt);
  }

  get running(): boolean {
    for (const rec of this.#live.values()) if (rec.status === 0) return true;
    return false;
  }

  /** Takes the answered records not taken yet (they stay readable here until {@link written}). */
  take(): IdempotencyRow[] {
    const rows: IdempotencyRow[] = [];
    for (const rec of this.#live.values()) {
      if (rec.status === 0 || this.#taken.has(rec)) continue;
      this.#taken.add(rec);
      // A row holds the full form (a snapshot's): the compact one's body is a version of a live
      // record, whose text the answer just built (kept by the platform: not serialized again).
      const full = rec.body instanceof Version ? { ...rec, body: this.textOf(rec.body) } : rec;
      rows.push({ key: rec.key, startedAt: rec.startedAt, data: JSON.stringify(idempotencyOut(full)) });
    }
    return rows;
  }

  /** Where expired records can be deleted from, at most once a minute of tenant time (`undefined`: not yet). */
  takeExpiry(): number | undefined {
    if (this.#cutoff - this.#expiredTo < EXPIRY_EVERY_MS) return undefined;
    this.#expiredTo = this.#cutoff;
    return this.#cutoff;
  }

  /** The records taken are written: storage holds them now. */
  written(): void {
    const recent = this.#recent;
    for (const rec of this.#taken) {
      if (this.#live.get(rec.key) !== rec) continue;
      this.#live.delete(rec.key);
      recent.set(rec.key, rec);
      if (recent.size > RECENT_ANSWERS) recent.delete(recent.keys().next().value as string);
    }
    this.#taken.clear();
  }
}

/** The event log of a stored tenant: events not written yet in memory, the rest read from storage. */
export class StoredEventLog implements EventLog {
  // Events not written yet, with their seq; `#taken` of them are taken for a write.
  #pending: Array<[number, LoggedEvent]> = [];
  #taken = 0;
  #trimmedTo: number;

  constructor(
    private readonly storage: SandboxStorage,
    private readonly tenantId: string,
    private readonly size: number,
    /** The seq of the last event written. */
    public seq: number,
    /** The JSON of a version (`Platform.textOf`: the answer's own text when it is still kept). */
    private readonly textOf: (version: Version) => string = (v) => v.text(),
  ) {
    this.#trimmedTo = seq;
  }

  /**
   * An event's row: `JSON.stringify(e.envelope())`, byte for byte, with the object's JSON taken
   * from the platform's kept text of its version (the answer that follows an event shares its
   * version: core/platform.ts) instead of building the wire object again.
   */
  #json(e: LoggedEvent): string {
    if (!(e instanceof PackedEvent)) return JSON.stringify(e.envelope());
    return `{"id":${JSON.stringify(e.id)},"type":${JSON.stringify(e.type)},"created_at":${JSON.stringify(iso(e.at))},"data":{"object":${this.textOf(e.version)}}}`;
  }

  add(event: LoggedEvent): void {
    this.#pending.push([++this.seq, event]);
  }

  recent(limit: number): LoggedEvent[] {
    const pending = this.#pending.map(([, e]) => e);
    if (pending.length >= limit) return pending.slice(pending.length - limit);
    const stored: LoggedEvent[] = this.storage.events(this.tenantId, limit - pending.length).map((r) => new RestoredEvent(JSON.parse(r.data) as SandboxEvent));
    return stored.concat(pending);
  }

  /** Takes the events not taken yet (they stay readable here until {@link written}). */
  take(): EventRow[] {
    const rows = this.#pending.slice(this.#taken).map(([seq, e]) => ({ seq, data: this.#json(e) }));
    this.#taken = this.#pending.length;
    return rows;
  }

  /** The seq at or below which old events can be deleted (the log keeps `size`), when a batch of them is due. */
  takeTrim(): number | undefined {
    if (this.seq - this.size - this.#trimmedTo < TRIM_EVERY) return undefined;
    this.#trimmedTo = this.seq - this.size;
    return this.#trimmedTo;
  }

  /** The events taken are written. */
  written(): void {
    this.#pending = this.#pending.slice(this.#taken);
    this.#taken = 0;
  }
}

/** Where a stored tenant's rows stand: what was written last of its small parts. */
interface Written {
  created: number;
  state: string | null;
  wakeAt: number | null | undefined;
  /** The keys as written: each key object with a copy of its fields (`null`: none written yet). */
  keys: KeysSeen | null;
}

type KeysSeen = Array<[key: KeyRec, fields: unknown[]]>;

/** A copy of every field of every key (arrays copied: a field changed in place is seen too). */
function seeKeys(keys: readonly KeyRec[]): KeysSeen {
  return keys.map((k) => [k, Object.values(k).map((v) => (Array.isArray(v) ? [...(v as unknown[])] : v))]);
}

/**
 * Whether the keys are those written, field for field: asked at every capture, where comparing
 * their JSON cost a `JSON.stringify` of every key each time (keys change rarely).
 */
function sameKeys(keys: readonly KeyRec[], seen: KeysSeen): boolean {
  if (keys.length !== seen.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const [key, fields] = seen[i] as [KeyRec, unknown[]];
    if (keys[i] !== key) return false;
    const now = Object.values(key);
    if (now.length !== fields.length) return false;
    for (let j = 0; j < now.length; j++) {
      const a = now[j];
      const b = fields[j];
      if (a === b) continue;
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length || a.some((x, n) => x !== b[n])) return false;
    }
  }
  return true;
}

/** One capture: the rows, and what to do once they are written. */
export interface Capture {
  changes: TenantChanges;
  /** Call once the rows are written: the logs drop the copies they kept. */
  written(): void;
}

/** Turns tenants into rows and back, over one storage; plugins' record kinds included. */
export class TenantCodec {
  readonly #written = new WeakMap<TenantState, Written>();

  constructor(
    private readonly platform: Platform,
    private readonly storage: SandboxStorage,
    private readonly kinds: RecordTable,
  ) {}

  /** The stored logs of a tenant (replacing those in memory, whose content becomes rows to write). */
  #storeLogs(tenant: TenantState, eventSeq: number, loaded: boolean): void {
    const { platform, storage } = this;
    const memory = { idempotency: tenant.idempotency.answered(), events: tenant.events.recent(platform.settings.eventLogSize) };
    const cutoff = (): number => tenant.clock.nowMs() - platform.settings.idempotencyTtlMs;
    // A tenant adopted (new, or restored over an emptied storage) has no rows in storage yet.
    const textOf = (version: Version): string => platform.textOf(version);
    const idempotency = new StoredIdempotency(storage, tenant.id, cutoff, loaded ? storage.idempotencyKeys(tenant.id) : [], textOf);
    for (const rec of memory.idempotency) idempotency.set(rec.key, rec);
    const events = new StoredEventLog(storage, tenant.id, platform.settings.eventLogSize, eventSeq, textOf);
    for (const e of memory.events) events.add(e);
    tenant.idempotency = idempotency;
    tenant.events = events;
  }

  /**
   * Makes a tenant in memory a stored one (a new tenant, or one restored from a snapshot): its
   * next capture writes all of it.
   */
  adopt(tenant: TenantState, created: number): void {
    this.#storeLogs(tenant, 0, false);
    this.#written.set(tenant, { created, state: null, wakeAt: undefined, keys: null });
  }

  /** Loads a tenant from its rows into the platform (`null`: no such tenant). */
  load(id: string): TenantState | null {
    const rows = this.storage.tenant(id);
    if (rows === null) return null;
    const snapshot = snapshotOfRows(rows, this.kinds);
    const state = JSON.parse(rows.tenant.state) as StoredTenantState;
    const tenant = restoreTenant(this.platform, snapshot);
    if (tenant.clock.realTime === state.clock.realTime) tenant.clock.state = state.clock;
    this.#storeLogs(tenant, rows.eventSeq, true);
    for (const kind of Object.values(this.kinds)) kind.collection(tenant)?.startTracking();
    tenant.usage.changed = new Set();
    this.#written.set(tenant, { created: rows.tenant.created, state: rows.tenant.state, wakeAt: rows.tenant.wakeAt, keys: seeKeys(tenant.keys) });
    return tenant;
  }

  /** Whether a tenant is a stored one (adopted or loaded). */
  knows(tenant: TenantState): boolean {
    return this.#written.has(tenant);
  }

  /**
   * A listing's clock, for a tenant not in memory. A state that cannot be read answers a clock of
   * `NaN` (the listing shows the tenant as one whose data cannot be shown) rather than throwing:
   * one damaged row never hides the other tenants.
   */
  static summary(state: string, realNow = Date.now()): { now: number } {
    try {
      const s = JSON.parse(state) as StoredTenantState;
      const at = s.clock?.at;
      return { now: typeof at === 'number' ? (s.clock.realTime ? realNow + at : at) : Number.NaN };
    } catch {
      return { now: Number.NaN };
    }
  }

  /** What changed in a stored tenant since its last capture, as rows (`null`: nothing). */
  capture(tenant: TenantState): Capture | null {
    const written = this.#written.get(tenant);
    if (written === undefined) throw new TypeError(`Tenant ${tenant.id} is not a stored one.`);
    const changes: TenantChanges = { id: tenant.id };
    let any = false;
    const records: RecordRow[] = [];
    const removed: Array<{ kind: string; seq: number }> = [];
    for (const [name, kind] of Object.entries(this.kinds)) {
      const collection = kind.collection(tenant);
      if (collection === undefined) continue;
      if (!collection.tracked) {
        // A collection that did not exist at the last capture (a new tenant, a first webhook endpoint): all of it is new.
        for (const r of collection.all()) records.push({ kind: name, seq: r.seq, id: r.id, data: JSON.stringify(r) });
        collection.startTracking();
        continue;
      }
      for (const [r, json] of collection.takeChanges()) records.push({ kind: name, seq: r.seq, id: r.id, data: json ?? JSON.stringify(r) });
      for (const seq of collection.takeRemoved()) removed.push({ kind: name, seq });
    }
    if (records.length > 0) changes.records = records;
    if (removed.length > 0) changes.removed = removed;
    const usage = tenant.usage;
    if (usage.changed === null) {
      usage.changed = new Set();
      if (usage.size > 0) changes.usage = [...usage].map(([bucket, amount]) => ({ bucket, amount }));
    } else if (usage.changed.size > 0) {
      changes.usage = [...usage.changed].map((bucket): UsageRow => ({ bucket, amount: usage.get(bucket) ?? null }));
      usage.changed.clear();
    }
    if (written.keys === null || !sameKeys(tenant.keys, written.keys)) {
      changes.keys = tenant.keys.map((k) => ({ secret: k.secret, id: k.id, data: JSON.stringify(k) }));
      written.keys = seeKeys(tenant.keys);
    }
    const idempotency = tenant.idempotency as StoredIdempotency;
    const events = tenant.events as StoredEventLog;
    const idem = idempotency.take();
    if (idem.length > 0) changes.idempotency = idem;
    const evs = events.take();
    if (evs.length > 0) changes.events = evs;
    const stateValue: StoredTenantState = {
      clock: tenant.clock.state,
      rateWindows: [...tenant.rateWindows],
      extensions: extensionsWithoutRecords(tenant.extensions, this.kinds),
      ...(tenant.ownSettings === null ? {} : { settings: tenant.ownSettings }),
    };
    const state = JSON.stringify(stateValue);
    // The real instant of the earliest timer: exact (no `Date.now()`), so that it changes only with the timers.
    const next = tenant.clock.nextDueMs();
    const wakeAt = next === null || !stateValue.clock.realTime ? null : next - stateValue.clock.at;
    if (state !== written.state || wakeAt !== written.wakeAt) {
      changes.tenant = { id: tenant.id, created: written.created, state, wakeAt };
      written.state = state;
      written.wakeAt = wakeAt;
    }
    any = changes.records !== undefined || changes.removed !== undefined || changes.usage !== undefined || changes.keys !== undefined || changes.idempotency !== undefined || changes.events !== undefined || changes.tenant !== undefined;
    if (!any) return null;
    // Housekeeping rides along with a write, never alone: a read or a replay still writes nothing.
    const expiry = idempotency.takeExpiry();
    if (expiry !== undefined) changes.idempotencyUpTo = expiry;
    const trim = events.takeTrim();
    if (trim !== undefined) changes.eventsUpTo = trim;
    return {
      changes,
      written() {
        idempotency.written();
        events.written();
      },
    };
  }

  /** A stored tenant as a whole snapshot, read from storage (idempotency records and events included). */
  export(rows: TenantRows): TenantRecords {
    const snapshot = snapshotOfRows(rows, this.kinds);
    const now = Date.parse(snapshot.now);
    snapshot.idempotency = this.storage.idempotencyAll(rows.tenant.id, now - this.platform.settings.idempotencyTtlMs).map((r) => JSON.parse(r.data) as IdempotencySnapshot);
    snapshot.events = this.storage.events(rows.tenant.id, this.platform.settings.eventLogSize).map((r) => JSON.parse(r.data) as SandboxEvent);
    return snapshot;
  }
}

