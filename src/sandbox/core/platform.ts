/**
 * The platform behind a sandbox: tenants, keys, the default settings (each tenant's own are on
 * its state, core/settings.ts), shared usage, the event log and emitter, and
 * the timers of every tenant (dispatched through the timer table, core/timers.ts). It implements
 * the `World` services read and holds no router, stage or plugin: the HTTP app (../http) and the
 * plugins (../plugins) are built on top of it and subscribe to its events. No module state.
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import type { EventType } from '../../models/index.js';
import { Alarm } from './alarm.js';
import { keyPrefix } from './api-keys.js';
import { type Capability, defaultCapabilities } from './capabilities.js';
import { Clock, type Timer } from './clock.js';
import { Usage } from './limits.js';
import { LINEAGE_EXTENSION, claimTenant } from './lineage.js';
import { Random } from './random.js';
import { PackedEvent, emittedEnvelope } from './event-log.js';
import { type OwnSettings, type PlatformScope, type SettingsKind, type SettingsScope, type TenantSettings, resolveSettings, withChange } from './settings.js';
import { type KeyRec, type LoggedEvent, type SandboxEvent, type StateChange, type TenantState, createTenantState } from './state.js';
import { CORE_TIMERS, type TimerTable, fireTimer, rescheduleAll } from './timers.js';
import { type ExtensionSchema, Lineage } from './tenant-schema.js';
import { type Stamped, Version, type VersionKind, keptValues, packedValues, samePrimitives } from './versions.js';
import { iso } from './wire.js';
import type { PlatformSettings, World } from './world.js';

export type { PlatformSettings } from './world.js';

/** Events of the platform's emitter. */
export interface PlatformEvents {
  /** A state change: the event envelope and the id of the tenant it belongs to. */
  event: [event: SandboxEvent, tenantId: string];
  /** A conversion moved on its machine (every move, also those that emit no event), with its tenant id. */
  transition: [change: StateChange, tenantId: string];
  /** A listener threw; the platform carried on. */
  error: [error: unknown];
}


/**
 * Where tenants that are not in memory come from: a stored sandbox's storage (core/persist.ts
 * and the wiring's src/sandbox/stored.ts). Without one, every tenant is in memory.
 */
export interface TenantSource {
  /** Loads a tenant into memory (`platform.tenants`); `undefined` when there is none. */
  load(id: string): TenantState | undefined;
  /** The API key with this secret, its tenant loaded; `undefined` when unknown. */
  keyOf(secret: string): KeyRec | undefined;
  /** The tenant holding the API key with this id, or `null`. */
  keyTenant(keyId: string): string | null;
  /** A tenant's API keys, without loading it. */
  keys(tenantId: string): KeyRec[];
  /** A tenant in memory was used (idle tenants leave memory). */
  used(tenant: TenantState): void;
  /** A tenant was created in memory. */
  created(tenant: TenantState): void;
  /** A real-time tenant has a timer due at `realAt` (ms since the epoch): the source wakes it. */
  wake(tenantId: string, realAt: number): void;
  /** A tenant's clock was advanced: its time changed (and maybe its records), with or without an event. */
  moved(tenantId: string): void;
}

/** The sandbox platform: state, emitter and timers. */
export class Platform extends EventEmitter<PlatformEvents> implements World, SettingsScope {
  readonly settings: PlatformSettings;
  readonly random: Random;
  /** What every tenant starts from (the sandbox's options): validated, frozen, shared until a tenant changes its own. */
  readonly defaults: TenantSettings;
  platformUsage = new Usage();
  /** The tenants in memory: every tenant, unless a {@link TenantSource} keeps the others. */
  tenants = new Map<string, TenantState>();
  /** API keys of the tenants in memory, by secret. */
  keys = new Map<string, KeyRec>();
  #source: TenantSource | null = null;
  cursorSecret: string;
  defaultTenantId = '';
  defaultKeyId = '';
  readonly #timers: TimerTable = { ...CORE_TIMERS };
  /** The schemas of the plugins' parts of a tenant's `extensions`, by name (a tenant document is checked with them). */
  // Core's own part (the lineage of tenants made over the API, core/lineage.ts); plugins add theirs.
  readonly extensions = new Map<string, ExtensionSchema>([[LINEAGE_EXTENSION, Lineage]]);
  /** Asynchronous effects in progress (webhook attempts), by tenant id ('' for none). */
  readonly #pending = new Map<string, Set<Promise<unknown>>>();
  #closed = false;
  #strings = new Map<string, string>();
  // The last version taken of each kind, with the values it packs: an answer is mostly the version its event just took.
  readonly #lastVersions = new Map<string, { version: Version; values: unknown[] }>();
  // One real timer for the due timers of every real-time tenant (core/alarm.ts).
  readonly #alarm = new Alarm((tenantId) => {
    const tenant = this.tenants.get(tenantId);
    if (!tenant?.clock.realTime) return null;
    tenant.clock.runDue();
    return this.#realDue(tenant);
  });

  constructor(settings: PlatformSettings, defaults: TenantSettings) {
    super();
    this.settings = settings;
    this.random = new Random(settings.seed);
    this.defaults = defaults;
    this.cursorSecret = this.random.base62(32);
  }

  /** Each tenant its own platform limit (`tenant`), or one across every tenant (`shared`): the operator's. */
  get platformScope(): PlatformScope {
    return this.defaults.limits.platformScope;
  }

  /** Applies a validated change of a tenant's own settings (core/settings.ts); other tenants are untouched. */
  changeSettings<K extends SettingsKind>(tenant: TenantState, kind: K, patch: NonNullable<OwnSettings[K]>): void {
    this.adoptSettings(tenant, withChange(tenant.ownSettings, kind, patch));
  }

  /** Sets what a tenant set itself (a restore) and what is then in force. */
  adoptSettings(tenant: TenantState, own: OwnSettings | null): void {
    tenant.ownSettings = own;
    tenant.settings = resolveSettings(this, own);
  }

  /** Takes tenants that are not in memory from `source` (a stored sandbox); it wakes them too. */
  attach(source: TenantSource): void {
    this.#source = source;
    this.#alarm.clear();
  }

  /** Whether tenants come from a {@link TenantSource}. */
  get stored(): boolean {
    return this.#source !== null;
  }

  /** A tenant, loaded from the source when it is not in memory; `undefined` when there is none. */
  tenant(id: string): TenantState | undefined {
    const tenant = this.tenants.get(id);
    if (tenant === undefined) return this.#source?.load(id);
    this.#source?.used(tenant);
    return tenant;
  }

  /** A tenant's API keys, without loading it when it is not in memory. */
  keysOf(tenantId: string): readonly KeyRec[] {
    return this.tenants.get(tenantId)?.keys ?? this.#source?.keys(tenantId) ?? [];
  }

  /** The API key with this secret (its tenant then in memory), or `undefined`. */
  keyOf(secret: string): KeyRec | undefined {
    return this.keys.get(secret) ?? this.#source?.keyOf(secret);
  }

  /** The tenant holding the API key with this id, or `null`. */
  keyTenant(keyId: string): string | null {
    for (const t of this.tenants.values()) if (t.keys.some((k) => k.id === keyId)) return t.id;
    return this.#source?.keyTenant(keyId) ?? null;
  }

  /** Takes a tenant out of memory (a stored one leaves when idle, or is dropped after a failed write). */
  evict(tenant: TenantState): void {
    if (this.tenants.get(tenant.id) !== tenant) return;
    this.tenants.delete(tenant.id);
    for (const key of tenant.keys) if (this.keys.get(key.secret) === key) this.keys.delete(key.secret);
  }

  /** Adds the schema of a plugin's part of a tenant's `extensions`; a name already known is refused. */
  addExtension(name: string, schema: ExtensionSchema): void {
    if (this.extensions.has(name)) throw new TypeError(`Extension ${name} is already defined.`);
    this.extensions.set(name, schema);
  }

  /** Adds timer kinds (a plugin's); a kind already known is refused. */
  addTimers(table: TimerTable): void {
    for (const kind of Object.keys(table)) {
      if (kind in this.#timers) throw new TypeError(`Timer kind ${kind} is already defined.`);
    }
    Object.assign(this.#timers, table);
  }

  /** A new clock for a tenant, at the current time of the default tenant (or the start). */
  newClock(tenantId: string): Clock {
    const clock = new Clock(
      this.settings.start === null ? null : this.settings.start,
      (timer) => this.fire(tenantId, timer),
      // An advance waits for its own tenant's effects only: a neighbour's slow receiver is not its business.
      () => this.settle(tenantId),
      // An advance changed the tenant (a stored one writes it), and brings its remaining timers closer in real time.
      () => {
        this.#source?.moved(tenantId);
        this.#wakeLater(tenantId);
      },
    );
    const reference = this.tenants.get(this.defaultTenantId);
    if (reference) clock.set(reference.clock.nowMs());
    return clock;
  }

  /** Creates a tenant with one API key. */
  createTenant(capabilities?: readonly string[], name = 'default'): { tenant: TenantState; key: KeyRec } {
    const id = this.random.uuid();
    const tenant = createTenantState(id, this.newClock(id), this.defaults, this.settings.eventLogSize);
    this.tenants.set(id, tenant);
    const key = this.issueKey(tenant, name, capabilities ?? defaultCapabilities(this.settings.environment), tenant.clock.nowMs());
    this.#source?.created(tenant);
    return { tenant, key };
  }

  /**
   * Checks that the caller's tree may make one more tenant over the API (core/lineage.ts),
   * changing nothing; answers the function that records the new tenant against its root. Throws
   * 403 `tenant_limit_exceeded` at `maxTenantsPerRoot`.
   */
  claimTenant(caller: TenantState): (child: TenantState) => void {
    return claimTenant(this, caller, this.settings.maxTenantsPerRoot);
  }

  /** A tenant other than the one a request is about changed (a root's count): a stored sandbox writes it with the answer. */
  touched(tenant: TenantState): void {
    this.#source?.moved(tenant.id);
  }

  /** A tenant was put in memory from a snapshot as a new one (a fork, core/transfer.ts): a stored sandbox writes it. */
  adopted(tenant: TenantState): void {
    this.#source?.created(tenant);
  }

  /** Issues an API key for a tenant. */
  issueKey(tenant: TenantState, name: string, capabilities: readonly string[], at: number): KeyRec {
    const prefix = keyPrefix(this.settings.environment);
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

  /**
   * Records an event on the tenant's log and emits it: its object is the wire form of `record`
   * now. Listeners get the envelope; the log keeps it compact (core/event-log.ts).
   */
  record<R extends Stamped>(tenant: TenantState, type: EventType, kind: VersionKind<R>, record: R, at: number): SandboxEvent {
    const version = this.version(kind, record);
    // `data` is built from the version (the record as it was now) when a listener first reads it.
    const event = emittedEnvelope(this.random.uuid(), type, iso(at), version);
    // The log keeps a version of the record (in memory, or until written: core/logs.ts), not the envelope.
    const logged = new PackedEvent(event.id, type, at, version);
    tenant.events.add(logged);
    this.lastLogged = logged;
    try {
      super.emit('event', event, tenant.id);
    } catch (error) {
      this.#failed(error);
    }
    return event;
  }

  /**
   * A version of `record` as it is now (core/versions.ts): the last one taken of its kind again
   * when it is of the same record and packs the same, so that an event and the answer that
   * follows it share one.
   */
  version<R extends Stamped>(kind: VersionKind<R>, record: R): Version {
    const values = packedValues(kind, record);
    const last = this.#lastVersions.get(kind.name);
    if (last !== undefined && last.version.record === record) {
      // Unchanged (an answer after its event, a read after the answer): the same version, without its JSON written again.
      if (samePrimitives(values, last.values)) return last.version;
      const packed = JSON.stringify(values);
      if (last.version.packed === packed) return last.version;
      return this.#keep(kind, record, values, packed);
    }
    return this.#keep(kind, record, values, JSON.stringify(values));
  }

  #keep<R extends Stamped>(kind: VersionKind<R>, record: R, values: unknown[], packed: string): Version {
    const version = new Version(kind as unknown as VersionKind<never>, record, packed);
    this.#lastVersions.set(kind.name, { version, values: keptValues(values) });
    return version;
  }

  // The JSON of the last version of each kind whose JSON was asked for (see textOf).
  readonly #texts = new Map<string, { version: Version; text: string }>();

  /**
   * The JSON of a version (an answer's body, byte for byte). The last one asked of each kind is
   * kept, so that the answer of a mutation, the read that follows it and a replay of it share one
   * serialization. `live`: the version was just taken of its record as it is now (its wire form
   * is the record's, with nothing to unpack).
   */
  textOf(version: Version, live = false): string {
    const name = version.kind.name;
    const kept = this.#texts.get(name);
    if (kept !== undefined && kept.version === version) return kept.text;
    const json = version.kind.json as ((record: Stamped) => string) | undefined;
    const text = !live ? version.text() : json !== undefined ? json(version.record) : JSON.stringify((version.kind.out as (record: Stamped) => object)(version.record));
    this.#texts.set(name, { version, text });
    return text;
  }

  /** The log entry of the event being emitted (a listener of `event` may keep it instead of a copy). */
  lastLogged: LoggedEvent | null = null;

  /** Internal observers of conversion moves (the inspector): out of reach of a public `off('transition')`. */
  readonly moves = new Set<(change: StateChange, tenantId: string) => void>();

  get watchingMoves(): boolean {
    return this.moves.size > 0 || this.listenerCount('transition') > 0;
  }

  /** Tells the observers, then emits `transition`, for a conversion's move; a listener's error goes to `error`. */
  changed(tenant: TenantState, change: StateChange): void {
    try {
      for (const observer of this.moves) observer(change, tenant.id);
      if (this.listenerCount('transition') > 0) super.emit('transition', change, tenant.id);
    } catch (error) {
      this.#failed(error);
    }
  }

  /** Recorded events of a tenant, oldest first: the latest `eventLogSize`, as emitted. */
  eventsOf(tenant: TenantState): SandboxEvent[] {
    return tenant.events.recent(this.settings.eventLogSize).map((e) => e.envelope());
  }

  /** Schedules a timer on a tenant's clock; a clock that follows real time is woken when it falls due. */
  schedule(tenant: TenantState, at: number, kind: string, id: string): void {
    tenant.clock.schedule({ at, kind, id });
    if (tenant.clock.realTime) this.#wake(tenant.id, Date.now() + Math.max(0, at - tenant.clock.nowMs()));
  }

  /** When, in real time, the next timer of a tenant falls due (`null`: none waiting). */
  #realDue(tenant: TenantState): number | null {
    const next = tenant.clock.nextDueMs();
    return next === null ? null : Date.now() + Math.max(0, next - tenant.clock.nowMs());
  }

  #wakeLater(tenantId: string): void {
    const tenant = this.tenants.get(tenantId);
    if (!tenant?.clock.realTime) return;
    const at = this.#realDue(tenant);
    if (at !== null) this.#wake(tenantId, at);
  }

  #wake(tenantId: string, realAt: number): void {
    if (this.#closed) return;
    if (this.#source === null) this.#alarm.note(tenantId, realAt);
    else this.#source.wake(tenantId, realAt);
  }



  /** How many real-time tenants have a timer waiting for the alarm (diagnostics and tests). */
  get tenantsAwaitingAlarm(): number {
    return this.#alarm.size;
  }

  /** Re-creates every timer of a tenant from its records (restore), every kind included. */
  reschedule(tenant: TenantState): void {
    rescheduleAll(this.#timers, tenant, (at, kind, id) => this.schedule(tenant, at, kind, id));
  }

  /** Fires one timer of a tenant through the timer table; a listener's error goes to `error`. */
  fire(tenantId: string, timer: Timer): void {
    const tenant = this.tenants.get(tenantId);
    if (!tenant) return;
    try {
      fireTimer(this.#timers, { world: this, tenant, at: timer.at }, timer);
    } catch (error) {
      this.#failed(error);
    }
  }

  /** The earliest instant at which a timer of any tenant falls due, or `null` without one. */
  nextDue(): number | null {
    let next: number | null = null;
    for (const tenant of this.tenants.values()) {
      const at = tenant.clock.nextDueMs();
      if (at !== null && (next === null || at < next)) next = at;
    }
    return next;
  }

  /** Fires, tenant by tenant, every timer due by each tenant's own clock. */
  runDue(): void {
    for (const tenant of this.tenants.values()) tenant.clock.runDue();
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

  /** Keeps track of an asynchronous effect of a tenant so that `clock.advance` and `flush` can wait for it. */
  waitUntil(promise: Promise<unknown>, tenantId = ''): void {
    let set = this.#pending.get(tenantId);
    if (!set) this.#pending.set(tenantId, (set = new Set()));
    const owner = set;
    const tracked: Promise<unknown> = promise
      .catch(() => undefined)
      .finally(() => {
        owner.delete(tracked);
        if (owner.size === 0 && this.#pending.get(tenantId) === owner) this.#pending.delete(tenantId);
      });
    owner.add(tracked);
  }

  /** Resolves once every tracked effect of a tenant (of every tenant without one) has settled, those added meanwhile included. */
  async settle(tenantId?: string): Promise<void> {
    for (;;) {
      const sets = tenantId === undefined ? [...this.#pending.values()] : [this.#pending.get(tenantId), this.#pending.get('')];
      const waiting: Array<Promise<unknown>> = [];
      for (const set of sets) if (set) waiting.push(...set);
      if (waiting.length === 0) return;
      await Promise.all(waiting);
    }
  }

  /** True once {@link Platform.close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Stops the platform's real timer for good: no tenant's timer fires on its own after this. */
  close(): void {
    this.#closed = true;
    this.#alarm.close();
  }

  /** Reports an error of a listener or an effect on `error` (dropped without a listener). */
  reportError(error: unknown): void {
    this.#failed(error);
  }

  #failed(error: unknown): void {
    if (this.listenerCount('error') > 0) super.emit('error', error);
  }

  /** Every capability name, for validation of tenant creation. */
  knownCapability(value: string): value is Capability {
    return defaultCapabilities('sandbox').includes(value as Capability);
  }
}
