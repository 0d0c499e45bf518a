/**
 * The storage port: what a sandbox whose state outlives its process asks of its storage. Two
 * implementations share it: the data folder of `serve --data` (SQLite on Node,
 * src/server/data/) and the Durable Objects deployment (`ctx.storage.sql`), both through
 * {@link SqlStorage} (./sql.ts) over a small SQL driver. The port speaks rows (strings and
 * numbers), never users or conversions: core/persist.ts turns a tenant into rows and back.
 *
 * It is synchronous on purpose: SQLite on Node and a Durable Object's SQL API both are, so core
 * can read through it in the middle of a request (an idempotent replay reads its stored answer)
 * and every answered mutation is one transaction committed before the answer leaves.
 * @module
 */

/** A tenant's own row: what is small and changes as a whole. */
export interface TenantRow {
  /** The tenant's id. */
  id: string;
  /** Creation order (1, 2, ...): the order of listings. */
  created: number;
  /**
   * JSON of the tenant's small parts: clock, rate windows, extension state, settings. What every
   * request changes (the event log's position, the record counts) is not in it (schema 2): those
   * are read from the rows themselves, so a request that only adds records and events leaves this
   * row, and its page, alone.
   */
  state: string;
  /** Real time (ms since the epoch) at which its earliest timer falls due; `null` when none waits for real time. */
  wakeAt: number | null;
}

/** An API key: looked up by its secret, without loading the tenant. */
export interface KeyRow {
  /** The key's secret (the lookup key). */
  secret: string;
  /** The key's id. */
  id: string;
  /** JSON of the key record. */
  data: string;
}

/** One record of a collection (a user, a quote, a webhook delivery...). */
export interface RecordRow {
  /** The kind of record (`user`, `quote`, `webhook_delivery`...). */
  kind: string;
  /** Its position in its collection, from 0: a tenant loads its records in this order. */
  seq: number;
  /** The record's id. */
  id: string;
  /** JSON of the record. */
  data: string;
}

/** One limit-usage counter. */
export interface UsageRow {
  /** The bucket (`d20782`, `u<user id>m24322`...). */
  bucket: string;
  /** BRL used (a decimal string); `null` in a change set deletes the counter. */
  amount: string | null;
}

/** An answered idempotency record. */
export interface IdempotencyRow {
  /** The Idempotency-Key. */
  key: string;
  /** When the first request started, on the tenant's clock (ms): records expire by it. */
  startedAt: number;
  /** JSON of the record (fingerprint, status, headers, body). */
  data: string;
}

/** A key storage holds for a tenant, and when its record started (which finds its row). */
export interface IdempotencyKey {
  key: string;
  startedAt: number;
}

/** One event of a tenant's log. */
export interface EventRow {
  /** Position in the tenant's log, from 1. */
  seq: number;
  /** JSON of the event envelope. */
  data: string;
}

/** Everything a tenant loads with: its row, keys, records (by kind, then `seq`) and usage. */
export interface TenantRows {
  tenant: TenantRow;
  /** The `seq` of its last event written (0: none): its log goes on from there. */
  eventSeq: number;
  keys: KeyRow[];
  records: RecordRow[];
  usage: UsageRow[];
}

/** What changed in one tenant. Absent fields changed nothing. */
export interface TenantChanges {
  id: string;
  /** The tenant row, written whole (insert or replace). */
  tenant?: TenantRow;
  /** Keys written whole (insert or replace). */
  keys?: KeyRow[];
  /** Records written whole (insert or replace by kind and `seq`). */
  records?: RecordRow[];
  /** Records deleted by kind and `seq` (a retention rule dropped them: old webhook deliveries). */
  removed?: Array<{ kind: string; seq: number }>;
  usage?: UsageRow[];
  idempotency?: IdempotencyRow[];
  /** Deletes the idempotency records started at or before this instant (expired). */
  idempotencyUpTo?: number;
  events?: EventRow[];
  /** Deletes the events whose `seq` is at or below this one (the log's retention). */
  eventsUpTo?: number;
}

/** One transaction. */
export interface ChangeSet {
  /** Removes every tenant (and its rows) before writing: a restore of the whole state. */
  replace?: boolean;
  /** Platform values written (name, JSON). */
  meta?: Array<[name: string, value: string]>;
  tenants?: TenantChanges[];
}

/** A tenant in a listing: enough to show it without loading it. */
export interface TenantListing {
  id: string;
  created: number;
  state: string;
}

/**
 * The storage port. Every method is synchronous; a failure throws (see {@link StorageError}): a
 * read that fails throws one with reason `damaged` or `read`.
 */
export interface SandboxStorage {
  /** Platform values (name -> JSON): format marks, settings, generator state, default tenant. */
  meta(): Map<string, string>;
  /** Loads a tenant's rows; `null` when there is no such tenant. */
  tenant(id: string): TenantRows | null;
  /** The tenant of an API key secret, or `null`. */
  tenantOfKey(secret: string): string | null;
  /** The tenant holding the API key with this id, or `null`. */
  tenantOfKeyId(id: string): string | null;
  /** A tenant's API keys, without loading the tenant. */
  keys(tenantId: string): KeyRow[];
  /** Applies a change set in one transaction: all of it, or (throwing) nothing. */
  commit(changes: ChangeSet): void;
  /**
   * An idempotency record started after `after` (older ones are expired), or `null`. `startedAt`:
   * when the record of this key started, if the caller knows (one exact lookup instead of a search
   * of the tenant's unexpired keys).
   */
  idempotency(tenantId: string, key: string, after: number, startedAt?: number): IdempotencyRow | null;
  /** Every idempotency record started after `after`, oldest first. */
  idempotencyAll(tenantId: string, after: number): IdempotencyRow[];
  /** The keys of a tenant's idempotency records with their starts, expired ones included, in no order (a tenant's load: see core/persist.ts). */
  idempotencyKeys(tenantId: string): IdempotencyKey[];
  /** The last `limit` events of a tenant, oldest first. */
  events(tenantId: string, limit: number): EventRow[];
  /** A tenant's records per kind (`user`, `quote`...), counted without loading it: a listing's figures. */
  recordCounts(tenantId: string): Record<string, number>;
  /** Tenants in creation order after `created`, at most `limit`. */
  tenants(after: number, limit: number): TenantListing[];
  /** The earliest `wakeAt` of any tenant but those in `skip` (tenants that cannot be read), or `null`. */
  nextWake(skip?: readonly string[]): number | null;
  /** Ids of tenants whose `wakeAt` is at or before `at`, earliest first, at most `limit`, none of `skip`. */
  due(at: number, limit: number, skip?: readonly string[]): string[];
}

/**
 * Why storage refused: a file of another program, a newer schema, a write that failed, or a read
 * that failed (`damaged` when the storage says its data is damaged: reading again will not help).
 */
export class StorageError extends Error {
  override readonly name = 'StorageError';
  constructor(
    /**
     * `foreign`: not a sandbox's database; `newer`: written by a newer pix-usdt; `write`: a write
     * failed; `damaged`: a read found the data damaged (a malformed page); `read`: a read failed otherwise.
     */
    readonly reason: 'foreign' | 'newer' | 'write' | 'damaged' | 'read',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
