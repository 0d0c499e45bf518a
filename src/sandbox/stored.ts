/**
 * A sandbox whose state lives in storage (the port of ./storage/port.ts): `serve --data` and the
 * Durable Objects deployment. The storage is the truth; memory holds the tenants in use.
 *
 * - Tenants load on first use (a request with one of their keys, a timer falling due, the
 *   inspector) and leave memory when idle for `idleMs` (or, past `maxTenants` in memory, the
 *   least recently used first). Key lookups go through storage.
 * - Every answered request commits what changed in its tenant (and any other tenant changed
 *   meanwhile) before its answer leaves: one transaction, of the rows that changed. With `defer`,
 *   the answers of one turn of the event loop share one transaction (a group commit).
 * - Changes without a request (a timer firing, a delivery attempt's outcome) are committed on the
 *   next turn.
 * - Timers: each tenant row carries the real instant of its earliest timer; one real timer is armed
 *   for the earliest of all, and wakes the tenants due (loading them if needed).
 * - A write that fails answers 503 `storage_unavailable`, and every tenant in memory is dropped
 *   (storage still holds what was answered before): nothing of the failed change stays in memory.
 * - A read that fails answers 503 `storage_unavailable` too, for the request that needed it and
 *   no other: a tenant whose data is damaged (a malformed page, rows that do not decode) is marked
 *   and answers so at once from then on, without reading again, until a restart; every other
 *   tenant is served, and its timers fire. The host is told once per tenant (`onReadError`).
 * @module
 */
import type { KeyRec, TenantState } from './core/state.js';
import { ApiError } from './core/errors.js';
import { CORE_RECORDS, type Capture, type RecordTable, TenantCodec } from './core/persist.js';
import type { Platform, TenantSource } from './core/platform.js';
import { realClearTimeout, realSetTimeout } from './core/real-time.js';
import { type SandboxSnapshot, type TenantSnapshot, loadSnapshot } from './core/snapshot.js';
import { Usage } from './core/limits.js';
import type { App } from './http/app.js';
import { type SandboxStorage, StorageError, type TenantChanges } from './storage/port.js';

/** Options of a stored sandbox. */
export interface StoredOptions {
  /** The storage (src/server/data/ opens a data folder's). */
  storage: SandboxStorage;
  /**
   * Runs `fn` after the other callbacks of this turn of the event loop (`setImmediate` on Node):
   * the answers of one turn then share one transaction. Without it, each answer commits at once.
   */
  defer?: (fn: () => void) => void;
  /** A tenant unused this long (ms) leaves memory; 0 keeps every tenant (default 60,000). */
  idleMs?: number;
  /** At most this many tenants in memory: past it, the least recently used idle one leaves (default 1,000). */
  maxTenants?: number;
  /** When the storage is empty, start from this state (an import), written with `initialMeta` in the first transaction. */
  initial?: SandboxSnapshot;
  /** Platform values written with the first transaction of an empty storage (an import's mark). */
  initialMeta?: Array<[name: string, value: string]>;
  /** Told when writes start failing (once, until one succeeds again). */
  onWriteError?: (error: unknown) => void;
  /** Told when a write succeeds after failures. */
  onWriteRecovered?: () => void;
  /**
   * Told when a read fails: once for each tenant whose data cannot be read (`tenantId`), and
   * once for reads of no one tenant (a key lookup, a listing: `null`). A `StorageError` with
   * reason `damaged` says the data is damaged; the tenant then answers 503 until a restart.
   */
  onReadError?: (error: unknown, tenantId: string | null) => void;
  /**
   * Arms the host's own alarm for the earliest timer of any tenant (a Durable Object's
   * `ctx.storage.setAlarm`), which then calls {@link Persistence.wakeUp}. Without it, one real
   * timer of this process does.
   */
  arm?: (at: number) => void;
}

/** What the stored wiring needs of the built sandbox. */
export interface StoredParts {
  platform: Platform;
  app: App;
  /** Record kinds of the plugins (webhook endpoints and deliveries); core's are added. */
  recordKinds: RecordTable;
  /** Tells of changes made without a request (delivery records). */
  subscribe(listener: (tenantId: string) => void): void;
}

/** Platform values kept in the `meta` table (JSON each). */
const META = ['environment', 'random', 'cursor_secret', 'pricing', 'limits', 'platform_usage', 'default_tenant', 'default_key', 'tenants'] as const;
type MetaName = (typeof META)[number];

/** The longest wait `setTimeout` takes; a later instant is re-armed on waking. */
const MAX_WAIT_MS = 2_147_000_000;
/** Tenants woken per storage query. */
const WAKE_BATCH = 64;

function unavailable(): ApiError {
  return new ApiError(
    'storage_unavailable',
    'The sandbox could not write its data, so this request changed nothing. Retry later; the server log says why.',
    undefined,
    { 'retry-after': '1' },
  );
}

/** A read that failed: this request changed nothing; the tenant's data may be damaged. */
function unreadable(damaged: boolean): ApiError {
  return damaged
    ? new ApiError(
        'storage_unavailable',
        "The sandbox cannot read this tenant's data: its storage is damaged, so this request changed nothing. Other tenants are served; the server log says what to repair.",
        { reason: 'storage_damaged' },
      )
    : new ApiError('storage_unavailable', 'The sandbox could not read its data, so this request changed nothing. Retry later; the server log says why.', { reason: 'storage_read_failed' }, { 'retry-after': '1' });
}

/**
 * The storage as Persistence reads it: a read that fails becomes the answer of the request that
 * needed it (503, {@link unreadable}), and the owner hears of it (a damaged tenant is marked).
 * Writes go through as they are (their failure is the commit's).
 */
class GuardedStorage implements SandboxStorage {
  constructor(
    private readonly storage: SandboxStorage,
    private readonly failed: (error: unknown, tenantId: string | null) => ApiError,
  ) {}

  #read<T>(tenantId: string | null, read: () => T): T {
    try {
      return read();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw this.failed(error, tenantId);
    }
  }

  meta(): Map<string, string> {
    return this.#read(null, () => this.storage.meta());
  }
  tenant(id: string): ReturnType<SandboxStorage['tenant']> {
    return this.#read(id, () => this.storage.tenant(id));
  }
  tenantOfKey(secret: string): string | null {
    return this.#read(null, () => this.storage.tenantOfKey(secret));
  }
  tenantOfKeyId(id: string): string | null {
    return this.#read(null, () => this.storage.tenantOfKeyId(id));
  }
  keys(tenantId: string): ReturnType<SandboxStorage['keys']> {
    return this.#read(tenantId, () => this.storage.keys(tenantId));
  }
  commit(changes: Parameters<SandboxStorage['commit']>[0]): void {
    this.storage.commit(changes);
  }
  idempotency(tenantId: string, key: string, after: number, startedAt?: number): ReturnType<SandboxStorage['idempotency']> {
    return this.#read(tenantId, () => this.storage.idempotency(tenantId, key, after, startedAt));
  }
  idempotencyAll(tenantId: string, after: number): ReturnType<SandboxStorage['idempotencyAll']> {
    return this.#read(tenantId, () => this.storage.idempotencyAll(tenantId, after));
  }
  idempotencyKeys(tenantId: string): ReturnType<SandboxStorage['idempotencyKeys']> {
    return this.#read(tenantId, () => this.storage.idempotencyKeys(tenantId));
  }
  events(tenantId: string, limit: number): ReturnType<SandboxStorage['events']> {
    return this.#read(tenantId, () => this.storage.events(tenantId, limit));
  }
  recordCounts(tenantId: string): Record<string, number> {
    return this.#read(tenantId, () => this.storage.recordCounts(tenantId));
  }
  tenants(after: number, limit: number): ReturnType<SandboxStorage['tenants']> {
    return this.#read(null, () => this.storage.tenants(after, limit));
  }
  nextWake(skip?: readonly string[]): number | null {
    return this.#read(null, () => this.storage.nextWake(skip));
  }
  due(at: number, limit: number, skip?: readonly string[]): string[] {
    return this.#read(null, () => this.storage.due(at, limit, skip));
  }
}

interface Batch {
  captures: Capture[];
  tenants: Set<TenantState>;
  waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
}

/** The stored state of one sandbox: its {@link TenantSource}, commits, eviction and wake-ups. */
export class Persistence implements TenantSource {
  readonly #platform: Platform;
  readonly #storage: SandboxStorage;
  readonly #codec: TenantCodec;
  readonly #options: StoredOptions;
  readonly #idleMs: number;
  readonly #maxTenants: number;
  /** Tenants changed since their last capture. */
  readonly #dirty = new Set<TenantState>();
  #batch: Batch = { captures: [], tenants: new Set(), waiters: [] };
  #scheduled = false;
  /** What was last written of each platform value. */
  readonly #meta = new Map<string, string>();
  #tenantCount = 0;
  readonly #lastUsed = new Map<string, number>();
  readonly #busy = new Map<TenantState, number>();
  #failing = false;
  #alarm: ReturnType<typeof realSetTimeout> | null = null;
  #alarmAt = Infinity;
  #sweep: ReturnType<typeof realSetTimeout> | null = null;
  #closed = false;
  /** Tenants whose data cannot be read: they answer 503 without reading again, until a restart. */
  readonly #damaged = new Set<string>();
  /** Who the host was told about (`onReadError`): tenant ids, and `null` for reads of no one tenant. */
  readonly #told = new Set<string | null>();

  constructor(parts: StoredParts, options: StoredOptions) {
    const { platform, app } = parts;
    this.#platform = platform;
    this.#storage = new GuardedStorage(options.storage, (error, tenantId) => this.#readFailed(error, tenantId));
    this.#options = options;
    this.#idleMs = options.idleMs ?? 60_000;
    this.#maxTenants = Math.max(1, options.maxTenants ?? 1_000);
    this.#codec = new TenantCodec(platform, this.#storage, { ...CORE_RECORDS, ...parts.recordKinds });
    // At the start a failed read is the host's to report: it stops the start.
    const meta = options.storage.meta();
    if (meta.has('environment')) this.#adoptStorage(meta);
    else {
      if (options.initial !== undefined) loadSnapshot(platform, options.initial);
      this.#adoptMemory(options.initialMeta ?? []);
      // An import of many tenants must not stay in memory: they load again on use.
      if (options.initial !== undefined) for (const tenant of [...platform.tenants.values()]) platform.evict(tenant);
    }
    platform.attach(this);
    platform.on('event', (_event, tenantId) => this.#changed(tenantId));
    parts.subscribe((tenantId) => this.#changed(tenantId));
    app.onCommit = (tenant) => this.#answered(tenant);
    // Requests in flight keep their tenant in memory.
    app.use('storage', (call, next) => {
      const tenant = call.tenantId === null ? undefined : platform.tenants.get(call.tenantId);
      if (tenant === undefined) return next();
      this.#busy.set(tenant, (this.#busy.get(tenant) ?? 0) + 1);
      return next().finally(() => {
        const n = (this.#busy.get(tenant) ?? 1) - 1;
        if (n > 0) this.#busy.set(tenant, n);
        else this.#busy.delete(tenant);
        this.#lastUsed.set(tenant.id, Date.now());
      });
    });
    this.#rearm();
    this.#scheduleSweep();
  }

  // --- start ------------------------------------------------------------------------------

  /** An existing storage: the platform takes its values; tenants load on first use. */
  #adoptStorage(meta: Map<string, string>): void {
    const platform = this.#platform;
    const value = <T>(name: MetaName): T => JSON.parse(meta.get(name) as string) as T;
    const environment = value<string>('environment');
    if (environment !== platform.settings.environment) {
      throw new TypeError(`The stored sandbox is a ${environment} one; this one is ${platform.settings.environment}.`);
    }
    for (const name of META) if (meta.has(name)) this.#meta.set(name, meta.get(name) as string);
    this.#applyMeta();
    platform.tenants = new Map();
    platform.keys = new Map();
  }

  #applyMeta(): void {
    const platform = this.#platform;
    const value = <T>(name: MetaName): T => JSON.parse(this.#meta.get(name) as string) as T;
    platform.random.state = value('random');
    platform.cursorSecret = value('cursor_secret');
    // 'pricing' and 'limits' are informative: the defaults are this start's options, and each
    // tenant's own settings are in its row.
    platform.platformUsage = new Usage(value<Array<[string, string]>>('platform_usage'));
    platform.defaultTenantId = value('default_tenant');
    platform.defaultKeyId = value('default_key');
    this.#tenantCount = value('tenants');
  }

  /** A new storage: the tenants in memory (the default one, or an import) are written, with the platform's values, in one transaction. */
  #adoptMemory(extraMeta: Array<[string, string]>): void {
    const tenants: TenantChanges[] = [];
    const captures: Capture[] = [];
    for (const tenant of this.#platform.tenants.values()) {
      this.#codec.adopt(tenant, ++this.#tenantCount);
      const capture = this.#codec.capture(tenant);
      if (capture) {
        captures.push(capture);
        tenants.push(capture.changes);
      }
    }
    const meta = this.#metaChanges(true);
    this.#storage.commit({ meta: [...meta, ...extraMeta], tenants });
    for (const c of captures) c.written();
    for (const [name, v] of meta) this.#meta.set(name, v);
  }

  /**
   * The JSON of a platform value, kept while the value is the same object: the start's pricing and
   * limits never change in place (`Platform.defaults` is set once), and the platform's usage
   * counters say which buckets changed (`Usage.changed`). Every answered request asks
   * ({@link #metaChanges}); most change none of them.
   */
  readonly #metaJson = new Map<MetaName, { value: unknown; json: string }>();

  #jsonOf(name: MetaName, value: unknown): string {
    const kept = this.#metaJson.get(name);
    const usage = value instanceof Usage ? value : null;
    if (kept !== undefined && kept.value === value && (usage === null || usage.changed?.size === 0)) return kept.json;
    if (usage !== null) usage.changed = new Set();
    const json = JSON.stringify(usage === null ? value : [...usage]);
    this.#metaJson.set(name, { value, json });
    return json;
  }

  /** Platform values that changed since they were written (all of them with `all`). */
  #metaChanges(all = false): Array<[string, string]> {
    const platform = this.#platform;
    const values: Record<MetaName, unknown> = {
      environment: platform.settings.environment,
      random: platform.random.state,
      cursor_secret: platform.cursorSecret,
      pricing: platform.defaults.price,
      limits: platform.defaults.limits,
      platform_usage: platform.platformUsage,
      default_tenant: platform.defaultTenantId,
      default_key: platform.defaultKeyId,
      tenants: this.#tenantCount,
    };
    const out: Array<[string, string]> = [];
    for (const name of META) {
      // The generator's state changes with every id (request ids of reads too): it rides along
      // with other writes, and alone never makes one.
      if (name === 'random' && !all) continue;
      const value = values[name];
      const json = name === 'pricing' || name === 'limits' || name === 'platform_usage' ? this.#jsonOf(name, value) : JSON.stringify(value);
      if (all || this.#meta.get(name) !== json) out.push([name, json]);
    }
    return out;
  }

  // --- the tenant source ------------------------------------------------------------------

  load(id: string): TenantState | undefined {
    if (this.#closed) return undefined;
    if (this.#damaged.has(id)) throw unreadable(true);
    this.#makeRoom();
    let tenant: TenantState | null;
    try {
      tenant = this.#codec.load(id);
    } catch (error) {
      // Rows that do not decode are damaged data too; nothing of a half-loaded tenant stays.
      const partial = this.#platform.tenants.get(id);
      if (partial !== undefined) this.#platform.evict(partial);
      if (error instanceof ApiError) throw error;
      throw this.#readFailed(new StorageError('damaged', `tenant ${id} cannot be loaded (${error instanceof Error ? error.message : String(error)})`, { cause: error }), id);
    }
    if (tenant === null) return undefined;
    this.#lastUsed.set(id, Date.now());
    return tenant;
  }

  /**
   * A read failed: the host hears of it once per tenant; a tenant whose data is damaged is marked
   * (and leaves memory), so that its requests answer at once. Answers the error for the request.
   */
  #readFailed(error: unknown, tenantId: string | null): ApiError {
    const damaged = error instanceof StorageError && error.reason === 'damaged';
    if (damaged && tenantId !== null) {
      this.#damaged.add(tenantId);
      const tenant = this.#platform.tenants.get(tenantId);
      if (tenant !== undefined) {
        this.#platform.evict(tenant);
        this.#dirty.delete(tenant);
      }
    }
    if (!this.#told.has(tenantId)) {
      this.#told.add(tenantId);
      this.#options.onReadError?.(error, tenantId);
    }
    return unreadable(damaged);
  }

  /** The tenants found damaged since the start, in the order found. */
  get damaged(): readonly string[] {
    return [...this.#damaged];
  }

  keyOf(secret: string): KeyRec | undefined {
    const tenantId = this.#storage.tenantOfKey(secret);
    if (tenantId === null) return undefined;
    return this.#platform.tenant(tenantId)?.keys.find((k) => k.secret === secret);
  }

  keyTenant(keyId: string): string | null {
    return this.#storage.tenantOfKeyId(keyId);
  }

  keys(tenantId: string): KeyRec[] {
    return this.#storage.keys(tenantId).map((k) => JSON.parse(k.data) as KeyRec);
  }

  used(tenant: TenantState): void {
    this.#lastUsed.set(tenant.id, Date.now());
  }

  created(tenant: TenantState): void {
    this.#codec.adopt(tenant, ++this.#tenantCount);
    this.#lastUsed.set(tenant.id, Date.now());
    this.#dirty.add(tenant);
    this.#makeRoom(tenant);
  }

  moved(tenantId: string): void {
    // An advance in process (the HTTP advance is a request, committed with its answer).
    this.#changed(tenantId);
  }

  wake(tenantId: string, realAt: number): void {
    // A timer scheduled: its tenant changed (an advance without a request, in process, included).
    const tenant = this.#platform.tenants.get(tenantId);
    if (tenant !== undefined) {
      this.#dirty.add(tenant);
      this.#schedule();
    }
    this.#armAt(realAt);
  }

  // --- commits ----------------------------------------------------------------------------

  #changed(tenantId: string): void {
    const tenant = this.#platform.tenants.get(tenantId);
    if (tenant === undefined) return;
    this.#dirty.add(tenant);
    this.#lastUsed.set(tenantId, Date.now());
    this.#schedule();
  }

  /** Captures every changed tenant into the batch to write. */
  #capture(): void {
    for (const tenant of this.#dirty) {
      // A tenant dropped or evicted meanwhile (its object is no longer the state), or not adopted yet (a restore under way).
      if (this.#platform.tenants.get(tenant.id) !== tenant || !this.#codec.knows(tenant)) continue;
      const capture = this.#codec.capture(tenant);
      if (capture === null) continue;
      this.#batch.captures.push(capture);
      this.#batch.tenants.add(tenant);
    }
    this.#dirty.clear();
  }

  /** The answer of a request of `tenant` is ready: its changes are written before it leaves. */
  #answered(tenant: TenantState): Promise<void> | undefined {
    // Gone from memory meanwhile: a failed write dropped it, or a read found its data damaged (its own answer).
    if (this.#platform.tenants.get(tenant.id) !== tenant) throw this.#damaged.has(tenant.id) ? unreadable(true) : unavailable();
    this.#dirty.add(tenant);
    this.#capture();
    const meta = this.#metaChanges();
    const batch = this.#batch;
    if (!batch.tenants.has(tenant) && meta.length === 0) return undefined;
    if (this.#options.defer === undefined) {
      this.#flush();
      if (this.#failing) throw unavailable();
      return undefined;
    }
    const done = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    this.#schedule();
    return done;
  }

  // Never now: a change without a request may come in the middle of a handler (an event it records).
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    const run = (): void => {
      this.#scheduled = false;
      this.#flush();
    };
    if (this.#options.defer) this.#options.defer(run);
    else realSetTimeout(run, 0);
  }

  /** Writes the batch (and the platform values that changed) in one transaction. */
  #flush(): void {
    this.#capture();
    const batch = this.#batch;
    this.#batch = { captures: [], tenants: new Set(), waiters: [] };
    const meta = this.#metaChanges();
    if (batch.captures.length === 0 && meta.length === 0) {
      for (const w of batch.waiters) w.resolve();
      return;
    }
    const random = JSON.stringify(this.#platform.random.state);
    if (random !== this.#meta.get('random')) meta.push(['random', random]);
    try {
      this.#storage.commit({ meta, tenants: batch.captures.map((c) => c.changes) });
    } catch (error) {
      this.#failed(error);
      for (const w of batch.waiters) w.reject(unavailable());
      return;
    }
    for (const c of batch.captures) c.written();
    for (const [name, value] of meta) this.#meta.set(name, value);
    if (this.#failing) {
      this.#failing = false;
      this.#options.onWriteRecovered?.();
    }
    for (const w of batch.waiters) w.resolve();
    // The alarm only moves earlier for the timers just written (a later or removed one wakes it
    // early, and the wake reads storage again): no query of storage per commit.
    for (const c of batch.captures) {
      const wakeAt = c.changes.tenant?.wakeAt;
      if (wakeAt !== undefined && wakeAt !== null) this.#armAt(wakeAt);
    }
  }

  /** A write failed: nothing of it may stay in memory. Storage holds what was answered before. */
  #failed(error: unknown): void {
    if (!this.#failing) {
      this.#failing = true;
      this.#options.onWriteError?.(error);
    }
    this.#dropAll();
  }

  /** Drops every tenant from memory and takes the platform values back from storage. */
  #dropAll(): void {
    const platform = this.#platform;
    for (const tenant of [...platform.tenants.values()]) platform.evict(tenant);
    this.#dirty.clear();
    this.#lastUsed.clear();
    try {
      for (const [name, value] of this.#storage.meta()) this.#meta.set(name, value);
      this.#applyMeta();
    } catch {
      // Unreadable too: the values in memory stay; the next start reads storage.
    }
  }

  /** Writes what is waiting now (closing, waking, evicting). */
  flushNow(): void {
    this.#flush();
  }

  // --- memory -----------------------------------------------------------------------------

  /** How many tenants are in memory. */
  get loaded(): number {
    return this.#platform.tenants.size;
  }

  #evictable(tenant: TenantState): boolean {
    return !this.#busy.has(tenant) && !tenant.idempotency.running && !this.#batch.tenants.has(tenant);
  }

  /** Writes a tenant's changes and takes it out of memory; false when it cannot leave now. */
  #evict(tenant: TenantState): boolean {
    if (!this.#evictable(tenant)) return false;
    this.#dirty.add(tenant);
    this.#flush();
    if (this.#failing || this.#platform.tenants.get(tenant.id) !== tenant) return false;
    this.#platform.evict(tenant);
    this.#lastUsed.delete(tenant.id);
    return true;
  }

  /** Past `maxTenants` in memory (counting one to come, or `keep` just added), the least recently used idle tenants leave. */
  #makeRoom(keep?: TenantState): void {
    const tenants = this.#platform.tenants;
    while (tenants.size + (keep === undefined ? 1 : 0) > this.#maxTenants) {
      let oldest: TenantState | undefined;
      let at = Infinity;
      for (const t of tenants.values()) {
        const used = this.#lastUsed.get(t.id) ?? 0;
        if (t !== keep && used < at && this.#evictable(t)) {
          at = used;
          oldest = t;
        }
      }
      if (oldest === undefined || !this.#evict(oldest)) return;
    }
  }

  #scheduleSweep(): void {
    if (this.#idleMs <= 0 || this.#closed) return;
    const every = Math.max(1_000, Math.floor(this.#idleMs / 2));
    const handle = realSetTimeout(() => {
      this.#sweep = null;
      this.sweep();
      this.#scheduleSweep();
    }, every);
    (handle as { unref?: () => void }).unref?.();
    this.#sweep = handle;
  }

  /** Takes the tenants idle for `idleMs` out of memory (run every `idleMs / 2`). */
  sweep(now = Date.now()): number {
    let evicted = 0;
    for (const tenant of [...this.#platform.tenants.values()]) {
      if (now - (this.#lastUsed.get(tenant.id) ?? 0) < this.#idleMs) continue;
      if (this.#evict(tenant)) evicted++;
    }
    return evicted;
  }

  // --- timers -----------------------------------------------------------------------------

  #armAt(at: number): void {
    if (this.#closed || at >= this.#alarmAt) return;
    this.#alarmAt = at;
    if (this.#options.arm) {
      this.#options.arm(at);
      return;
    }
    if (this.#alarm !== null) realClearTimeout(this.#alarm);
    const handle = realSetTimeout(() => this.wakeUp(), Math.min(MAX_WAIT_MS, Math.max(0, at - Date.now())));
    (handle as { unref?: () => void }).unref?.();
    this.#alarm = handle;
  }

  #rearm(floor = 0): void {
    let next: number | null;
    try {
      // A damaged tenant's timers cannot fire: they must not keep the alarm ringing for the others.
      next = this.#storage.nextWake([...this.#damaged]);
    } catch {
      // Not known (the read failed, the host was told): ask again in a second, or no timer would fire again.
      this.#armAt(Math.max(Date.now() + 1_000, floor));
      return;
    }
    if (next !== null) this.#armAt(Math.max(next, floor));
  }

  /** Fires the due timers of every tenant whose earliest one has come (loading it when needed); the alarm's handler. */
  wakeUp(): void {
    this.#alarm = null;
    this.#alarmAt = Infinity;
    if (this.#closed) return;
    let progress = true;
    try {
      this.#flush();
      const seen = new Set<string>();
      for (;;) {
        const ids = this.#storage.due(Date.now(), WAKE_BATCH, [...this.#damaged]).filter((id) => !seen.has(id));
        if (ids.length === 0) break;
        for (const id of ids) {
          seen.add(id);
          let tenant: TenantState | undefined;
          try {
            tenant = this.#platform.tenant(id);
          } catch (error) {
            // This tenant cannot be read (marked damaged, told): the others still wake.
            if (error instanceof ApiError) continue;
            throw error;
          }
          if (tenant === undefined) continue;
          tenant.clock.runDue();
          this.#dirty.add(tenant);
        }
        this.#flush();
        if (this.#failing) {
          progress = false;
          break;
        }
      }
    } catch (error) {
      progress = false;
      this.#platform.reportError(error);
    }
    // A tenant still due after its wake (it cannot load, writes fail): try again in a second, not in a loop.
    this.#rearm(progress ? 0 : Date.now() + 1_000);
  }

  // --- whole state ------------------------------------------------------------------------

  /** Every tenant, in creation order, read from storage (after writing what waits). */
  *listing(): Generator<{ id: string; tenant: TenantState | undefined; counts: Record<string, number>; now: number }> {
    this.#flush();
    let after = 0;
    for (;;) {
      const page = this.#storage.tenants(after, 500);
      for (const row of page) {
        const tenant = this.#platform.tenants.get(row.id);
        // Counted from its rows (schema 2): a tenant in memory is shown from memory, a damaged one is not read again.
        let counts: Record<string, number> = {};
        let { now } = TenantCodec.summary(row.state);
        if (tenant === undefined) {
          try {
            if (this.#damaged.has(row.id)) throw unreadable(true);
            counts = this.#storage.recordCounts(row.id);
          } catch {
            // Its records cannot be read (the host was told once): listed as a tenant whose data cannot be shown.
            now = Number.NaN;
          }
        }
        yield { id: row.id, tenant, counts, now };
        after = row.created;
      }
      if (page.length < 500) return;
    }
  }

  /** The whole state as a snapshot, read from storage. */
  snapshot(platformPart: Omit<SandboxSnapshot, 'tenants'>): SandboxSnapshot {
    this.#flush();
    const tenants: TenantSnapshot[] = [];
    for (const { id } of this.listing()) {
      if (this.#damaged.has(id)) throw unreadable(true);
      const rows = this.#storage.tenant(id);
      if (rows === null) continue;
      try {
        tenants.push(this.#codec.export(rows));
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw this.#readFailed(new StorageError('damaged', `tenant ${id} cannot be read (${error instanceof Error ? error.message : String(error)})`, { cause: error }), id);
      }
    }
    return JSON.parse(JSON.stringify({ ...platformPart, tenants })) as SandboxSnapshot;
  }

  /** Replaces the whole stored state with a snapshot (one transaction); tenants then load on use. */
  restore(snapshot: SandboxSnapshot | string, notBefore?: number): void {
    this.#flush();
    const platform = this.#platform;
    loadSnapshot(platform, snapshot, notBefore);
    this.#tenantCount = 0;
    const captures: Capture[] = [];
    for (const tenant of platform.tenants.values()) {
      this.#codec.adopt(tenant, ++this.#tenantCount);
      const capture = this.#codec.capture(tenant);
      if (capture) captures.push(capture);
    }
    const meta = this.#metaChanges(true);
    try {
      this.#storage.commit({ replace: true, meta, tenants: captures.map((c) => c.changes) });
    } catch (error) {
      this.#failed(error);
      throw error;
    }
    for (const [name, value] of meta) this.#meta.set(name, value);
    for (const tenant of [...platform.tenants.values()]) platform.evict(tenant);
    this.#lastUsed.clear();
    this.#rearm();
  }

  /** Writes what waits, stops the timers; the storage is the caller's to close. */
  close(): void {
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
    if (this.#alarm !== null) realClearTimeout(this.#alarm);
    if (this.#sweep !== null) realClearTimeout(this.#sweep);
    this.#alarm = null;
    this.#sweep = null;
  }
}
