/**
 * Tenants that move: one tenant as a versioned document (export), and a new tenant made from one
 * (a fork: the same data under a new tenant id and new API keys, its timers re-created on its own
 * clock). The document's `tenant` holds the same records as a tenant of a whole-sandbox snapshot
 * and as a stored tenant's export (core/persist.ts), one format for a tenant: `TenantRecords`
 * here, the opaque {@link TenantSnapshot} in the public declarations.
 *
 * A document is untrusted input: it is checked whole by one schema (core/tenant-schema.ts) before
 * anything changes. A fork renames structurally: the source's tenant id, key ids and key secrets
 * become the new one's where they are (key records, rate windows, and as whole values in the
 * stored answers of idempotent requests and in events), so that the fork's own document equals
 * its source's but for those ids.
 * Documents hold API key and webhook secrets: treat them as test fixtures only.
 * @module
 */
import * as z from 'zod/mini';
import { lazy } from '../../models/lazy.js';
import { keyEnvironment, keyPrefix } from './api-keys.js';
import { ApiError } from './errors.js';
import { jsonDepth } from './json-depth.js';
import { type Reservation, holdOnPlatform } from './limits.js';
import { LINEAGE_EXTENSION } from './lineage.js';
import type { Platform } from './platform.js';
import { type TenantRecords, type TenantSnapshot, restoreTenant, snapshotParts } from './snapshot.js';
import type { KeyRec, SandboxEvent, TenantState } from './state.js';
import { MAX_DOCUMENT_DEPTH, MAX_ISSUES, TenantDocumentError, type TenantDocumentProblem, parseTenantRecords, pathOf } from './tenant-schema.js';

export { TenantDocumentError, type TenantDocumentProblem };

/** The format mark of a tenant document. */
export const TENANT_DOCUMENT_FORMAT = 'pix-usdt-tenant';
/** The version of the tenant document this code writes and reads. */
export const TENANT_DOCUMENT_VERSION = 1;
/** The largest tenant document a sandbox takes, in characters of JSON (16 MiB). */
export const MAX_TENANT_DOCUMENT_CHARS = 16 * 1024 * 1024;

/** One tenant, as `GET /v1/test_helpers/tenant/snapshot` and `sandbox.exportTenant()` answer it. */
export interface TenantDocument {
  /** Marks the data as a tenant document. */
  format: typeof TENANT_DOCUMENT_FORMAT;
  /** Version of the document format. */
  version: typeof TENANT_DOCUMENT_VERSION;
  /** The environment of the sandbox it was taken from (a fork must be of the same one). */
  environment: 'sandbox' | 'production';
  /** Real time when it was taken (ISO 8601); informative. */
  exported_at: string;
  /**
   * The tenant (opaque: the sandbox's own records, in the format of `version`): data, clock time,
   * timers' records, keys, settings, webhook endpoints and secrets, idempotency records, events.
   */
  tenant: TenantSnapshot;
}

/** A checked document with its tenant's records (not public). */
export interface TenantDocumentRecords extends Omit<TenantDocument, 'tenant'> {
  /** The tenant's records. */
  tenant: TenantRecords;
}

const DocumentHead = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    format: z.literal(TENANT_DOCUMENT_FORMAT),
    version: z.literal(TENANT_DOCUMENT_VERSION),
    environment: z.enum(['sandbox', 'production']),
    exported_at: z.optional(z.string().check(z.maxLength(64))),
    tenant: z.unknown(),
  }),
);

/** A tenant as a document (a deep copy: later changes do not affect it). */
export function tenantDocument(platform: Platform, tenant: TenantRecords, realNow = Date.now()): TenantDocument {
  const doc: TenantDocumentRecords = {
    format: TENANT_DOCUMENT_FORMAT,
    version: TENANT_DOCUMENT_VERSION,
    environment: platform.settings.environment,
    exported_at: new Date(realNow).toISOString(),
    tenant,
  };
  return JSON.parse(JSON.stringify(doc)) as TenantDocument;
}

function damaged(...issues: Array<{ path: string; message: string }>): TenantDocumentError {
  return new TenantDocumentError('damaged', issues);
}

/**
 * Reads a tenant document (object or JSON text) and checks it whole before anything changes:
 * size, depth, JSON, format mark, version, environment, then every record through the tenant
 * schema (core/tenant-schema.ts), and its keys against this sandbox (a secret of another of its
 * tenants is refused). Answers its own copy; throws {@link TenantDocumentError}.
 */
export function readTenantDocument(platform: Platform, input: unknown): TenantDocumentRecords {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = JSON.stringify(input) ?? '';
    } catch {
      // Cycles, BigInts, or nested too deep for a recursive walk.
      throw damaged({ path: '', message: 'Not serialisable as JSON' });
    }
  }
  if (text.length > MAX_TENANT_DOCUMENT_CHARS) {
    throw new TenantDocumentError('too_large', [{ path: '', message: `At most ${MAX_TENANT_DOCUMENT_CHARS} characters of JSON; this one has ${text.length}` }]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw damaged({ path: '', message: 'Not valid JSON (cut short or altered?)' });
  }
  // Before anything walks the value: a recursive walk of JSON nested 50,000 deep overflows the stack.
  if (jsonDepth(text) > MAX_DOCUMENT_DEPTH) throw damaged({ path: '', message: `Nested deeper than ${MAX_DOCUMENT_DEPTH} levels of arrays and objects` });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw damaged({ path: '', message: 'Must be a JSON object' });
  const head = raw as Record<string, unknown>;
  if (head['format'] !== TENANT_DOCUMENT_FORMAT) {
    throw new TenantDocumentError('format', [{ path: 'format', message: `Must be "${TENANT_DOCUMENT_FORMAT}" (a tenant snapshot; a whole-sandbox snapshot is restored with sandbox.restore)` }]);
  }
  if (head['version'] !== TENANT_DOCUMENT_VERSION) {
    throw new TenantDocumentError('version', [{ path: 'version', message: `This sandbox reads version ${TENANT_DOCUMENT_VERSION}; the snapshot is version ${JSON.stringify(head['version'])?.slice(0, 40)}` }]);
  }
  const parsedHead = z.safeParse(DocumentHead, raw);
  if (!parsedHead.success) throw damaged(...parsedHead.error.issues.slice(0, MAX_ISSUES).map((i) => ({ path: pathOf(i.path), message: i.message })));
  if (parsedHead.data.environment !== platform.settings.environment) {
    throw new TenantDocumentError('environment', [{ path: 'environment', message: `The snapshot is of a ${parsedHead.data.environment} sandbox; this one is ${platform.settings.environment}` }]);
  }
  // A document carries no lineage (core/lineage.ts): whatever one says is dropped, never checked.
  const parsed = parseTenantRecords(platform.extensions, withoutLineageRaw(parsedHead.data.tenant), 'tenant.');
  if (!parsed.ok) throw damaged(...parsed.issues);
  const tenant = parsed.records as unknown as TenantRecords;
  tenant.keys.forEach((k, i) => {
    if (keyEnvironment(k.secret) !== platform.settings.environment) throw damaged({ path: `tenant.keys.${i}.secret`, message: 'A key of the other environment' });
    const known = platform.keyOf(k.secret);
    if (known !== undefined && known.tenantId !== tenant.id) throw damaged({ path: `tenant.keys.${i}.secret`, message: 'The secret of a key of another tenant of this sandbox' });
  });
  const doc: TenantDocumentRecords = { format: TENANT_DOCUMENT_FORMAT, version: TENANT_DOCUMENT_VERSION, environment: parsedHead.data.environment, exported_at: parsedHead.data.exported_at ?? '', tenant };
  return doc;
}

/** What a fork made: the new tenant and its keys (with secrets), in the order of the document's keys. */
export interface Fork {
  tenant: TenantState;
  keys: KeyRec[];
  /** The key a caller is handed: the first one not revoked, else the first. */
  key: KeyRec;
}

/**
 * Renames, in a JSON value, every string that is exactly one of `names` (an id or a secret of
 * the source), and a `key_prefix` that is the prefix of a renamed secret: whole values at their
 * place, never text inside other text. Answers the same value when nothing changed.
 */
function renamedValue(value: unknown, names: ReadonlyMap<string, string>, prefixes: ReadonlyMap<string, string>, field = ''): unknown {
  if (typeof value === 'string') return names.get(value) ?? (field === 'key_prefix' ? (prefixes.get(value) ?? value) : value);
  if (typeof value !== 'object' || value === null) return value;
  let changed = false;
  if (Array.isArray(value)) {
    const out = value.map((v) => {
      const r = renamedValue(v, names, prefixes);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const r = renamedValue(v, names, prefixes, k);
    if (r !== v) changed = true;
    out[k] = r;
  }
  return changed ? out : value;
}

/** A stored answer's body with the source's ids and secrets renamed (the same text when none is in it). */
function renamedBody(body: string | null, names: ReadonlyMap<string, string>, prefixes: ReadonlyMap<string, string>): string | null {
  if (body === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return body;
  }
  const renamed = renamedValue(value, names, prefixes);
  return renamed === value ? body : JSON.stringify(renamed);
}

/**
 * Makes a new tenant from a checked document: a new id and new keys (same names, capabilities,
 * dates and revocations), every reference renamed structurally (key records, rate windows, the
 * stored answers' bodies and the events, value by value); its clock at the document's time; its
 * timers re-created from its records. Under limits shared by every tenant, its reservations are
 * held on the platform, all or none (a fork never releases what it did not hold). On any failure
 * nothing stays in the platform.
 */
export function forkTenant(platform: Platform, doc: TenantDocumentRecords): Fork {
  const source = doc.tenant;
  const prefix = keyPrefix(platform.settings.environment);
  // A new id never occurs in the document already (a seeded sandbox replays the sequence of another one with the same seed), nor names a tenant.
  const text = JSON.stringify(source);
  const fresh = (make: () => string): string => {
    let value = make();
    while (text.includes(value) || platform.tenants.has(value)) value = make();
    return value;
  };
  const id = fresh(() => platform.random.uuid());
  const names = new Map<string, string>([[source.id, id]]);
  const prefixes = new Map<string, string>();
  const keys = source.keys.map((key): KeyRec => {
    const renamed: KeyRec = { ...key, id: fresh(() => platform.random.uuid()), tenantId: id, secret: fresh(() => prefix + platform.random.base62(32)) };
    names.set(key.id, renamed.id);
    names.set(key.secret, renamed.secret);
    prefixes.set(key.secret.slice(0, 12), renamed.secret.slice(0, 12));
    return renamed;
  });
  const snapshot: TenantRecords = {
    ...source,
    id,
    keys,
    rateWindows: source.rateWindows.map(([keyId, times]) => [names.get(keyId) ?? keyId, times]),
    idempotency: source.idempotency.map((r) => ({ ...r, body: renamedBody(r.body, names, prefixes) })),
    events: source.events.map((e) => renamedValue(e, names, prefixes) as SandboxEvent),
  };
  let tenant: TenantState | undefined;
  try {
    tenant = restoreTenant(platform, snapshot);
    if (platform.platformScope === 'shared') holdOnPlatform(platform.platformUsage, platform.defaults.limits.platform, reservationsOf(snapshot));
    platform.adopted(tenant);
  } catch (error) {
    if (tenant !== undefined) platform.evict(tenant);
    else {
      // restoreTenant failed part way: take out what it put in.
      const partial = platform.tenants.get(id);
      if (partial !== undefined) platform.evict(partial);
      for (const key of snapshot.keys) if (platform.keys.get(key.secret)?.tenantId === id) platform.keys.delete(key.secret);
    }
    if (error instanceof ApiError && error.code === 'transaction_limit_exceeded') {
      throw new TenantDocumentError('limits', [{ path: 'tenant', message: `Its reservations do not fit the platform limits every tenant shares (${error.message.replace(/\.$/, '')})` }]);
    }
    throw damaged({ path: 'tenant', message: `Its records cannot be restored (${error instanceof Error ? error.message : String(error)})` });
  }
  return { tenant, keys: tenant.keys, key: tenant.keys.find((k) => k.revokedAt === null) ?? (tenant.keys[0] as KeyRec) };
}

/** What a tenant's records hold against the limits: conversions, and transactions of their own. */
function reservationsOf(t: TenantRecords): Reservation[] {
  const out: Reservation[] = [];
  for (const c of t.conversions) out.push({ reservedBrl: c.reservedBrl, reservedAt: c.reservedAt });
  for (const x of t.transactions) if (x.conversionId === null && x.reservedBrl !== undefined) out.push({ reservedBrl: x.reservedBrl, reservedAt: x.reservedAt ?? x.createdAt });
  return out;
}

/** Tenants that move, over one platform: what `sandbox.exportTenant` and `createTenant({ snapshot })` and the tenants helpers do. */
export interface TenantTransfer {
  /** The tenant as a document. */
  export(tenant: TenantState): TenantDocument;
  /** A new tenant from a document (object or JSON text), checked whole first; throws {@link TenantDocumentError}. */
  fork(document: unknown): Fork;
}

/** A document carries no lineage (which tenant made which, core/lineage.ts): a fork takes its forker's. */
function withoutLineage(records: TenantRecords): TenantRecords {
  if (!(LINEAGE_EXTENSION in records.extensions)) return records;
  const { [LINEAGE_EXTENSION]: _lineage, ...extensions } = records.extensions;
  return { ...records, extensions };
}

/** The same for a document as read, before its schema: a forged lineage is dropped, not refused. */
function withoutLineageRaw(tenant: unknown): unknown {
  const extensions = (tenant as { extensions?: unknown } | null)?.extensions;
  if (typeof extensions !== 'object' || extensions === null || !(LINEAGE_EXTENSION in extensions)) return tenant;
  const { [LINEAGE_EXTENSION]: _lineage, ...rest } = extensions as Record<string, unknown>;
  return { ...(tenant as Record<string, unknown>), extensions: rest };
}

/** The {@link TenantTransfer} of a platform. */
export function tenantTransfer(platform: Platform): TenantTransfer {
  return {
    export: (tenant) => tenantDocument(platform, withoutLineage(snapshotParts(platform, [tenant.id]).tenants[0] as TenantRecords)),
    fork: (document) => forkTenant(platform, readTenantDocument(platform, document)),
  };
}
