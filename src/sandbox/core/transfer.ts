/**
 * Tenants that move: one tenant as a versioned document (export), and a new tenant made from one
 * (a fork: the same data under a new tenant id and new API keys, its timers re-created on its own
 * clock). The document's `tenant` holds the same records as a tenant of a whole-sandbox snapshot
 * and as a stored tenant's export (core/persist.ts), one format for a tenant: `TenantRecords`
 * here, the opaque {@link TenantSnapshot} in the public declarations.
 *
 * A fork renames by text: every occurrence of the source's tenant id, key ids and key secrets in
 * the tenant's JSON (key records, rate windows, stored answers of idempotent requests, events)
 * becomes the new one's, so that the fork's own document equals its source's but for those ids.
 * Documents hold API key and webhook secrets: treat them as test fixtures only.
 * @module
 */
import * as z from 'zod/mini';
import { API_KEY_FORMAT, keyEnvironment, keyPrefix } from './api-keys.js';
import { LINEAGE_EXTENSION } from './lineage.js';
import type { Platform } from './platform.js';
import { type TenantRecords, type TenantSnapshot, restoreTenant, snapshotParts } from './snapshot.js';
import type { KeyRec, TenantState } from './state.js';

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

/** Why a tenant document was refused. */
export type TenantDocumentProblem = 'too_large' | 'damaged' | 'format' | 'version' | 'environment';

/** A tenant document refused: nothing changed. Over HTTP, a 400 `validation_error` with the same issues. */
export class TenantDocumentError extends TypeError {
  override readonly name = 'TenantDocumentError';
  constructor(
    /** `too_large`, `damaged` (not JSON, or not the shape), `format` (not a tenant document), `version` (another version), `environment`. */
    readonly problem: TenantDocumentProblem,
    /** Where and what, as the envelope's `details.issues` (paths from the document's root). */
    readonly issues: Array<{ path: string; message: string }>,
  ) {
    super(`The tenant snapshot is refused (${problem}): ${issues.map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`)).join('; ')}.`);
  }
}

const Id = z.string().check(z.minLength(1), z.maxLength(200));
const Ms = z.number().check(z.refine((n) => Number.isFinite(n), 'Must be a finite number'));
const Decimal = z.string().check(z.regex(/^-?(0|[1-9]\d*)(\.\d+)?$/, 'Must be a decimal string'));
const IsoDate = z.string().check(z.refine((s) => Number.isFinite(Date.parse(s)), 'Must be an ISO 8601 date'));
const Rec = z.looseObject({ id: Id });
const Key = z.looseObject({
  id: Id,
  tenantId: Id,
  secret: z.string().check(z.regex(API_KEY_FORMAT, 'Must be an API key secret')),
  name: z.string(),
  capabilities: z.array(z.string()),
  createdAt: Ms,
  revokedAt: z.nullable(Ms),
});
const Idem = z.looseObject({
  key: z.string(),
  fingerprint: z.string(),
  running: z.literal(false),
  startedAt: Ms,
  status: z.number(),
  body: z.nullable(z.string()),
  headers: z.record(z.string(), z.string()),
});
const Tenant = z.looseObject({
  id: Id,
  now: IsoDate,
  users: z.array(z.looseObject({ id: Id, cpf: z.string(), externalId: z.string() })),
  quotes: z.array(Rec),
  conversions: z.array(Rec),
  transactions: z.array(Rec),
  keys: z.array(Key).check(z.minLength(1, 'A tenant has at least one API key')),
  idempotency: z.array(Idem),
  rateWindows: z.array(z.tuple([z.string(), z.array(Ms)])),
  usage: z.array(z.tuple([z.string(), Decimal])),
  events: z.array(z.looseObject({ id: Id, type: z.string(), created_at: z.string() })),
  extensions: z.record(z.string(), z.unknown()),
  settings: z.optional(z.record(z.string(), z.unknown())),
});
const Document = z.looseObject({
  format: z.string(),
  version: z.unknown(),
  environment: z.enum(['sandbox', 'production']),
  exported_at: z.optional(z.string()),
  tenant: Tenant,
});

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

function pathOf(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

function damaged(...issues: Array<{ path: string; message: string }>): TenantDocumentError {
  return new TenantDocumentError('damaged', issues);
}

/**
 * Reads a tenant document (object or JSON text) and checks it whole: size, JSON, format mark,
 * version, environment, shape, and the consistency of its records (ids unique per kind, keys
 * of this tenant). Answers its own copy; throws {@link TenantDocumentError}.
 */
export function readTenantDocument(platform: Platform, input: unknown): TenantDocumentRecords {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = JSON.stringify(input) ?? '';
    } catch {
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
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw damaged({ path: '', message: 'Must be a JSON object' });
  const head = raw as Record<string, unknown>;
  if (head['format'] !== TENANT_DOCUMENT_FORMAT) {
    throw new TenantDocumentError('format', [{ path: 'format', message: `Must be "${TENANT_DOCUMENT_FORMAT}" (a tenant snapshot; a whole-sandbox snapshot is restored with sandbox.restore)` }]);
  }
  if (head['version'] !== TENANT_DOCUMENT_VERSION) {
    throw new TenantDocumentError('version', [{ path: 'version', message: `This sandbox reads version ${TENANT_DOCUMENT_VERSION}; the snapshot is version ${JSON.stringify(head['version'])}` }]);
  }
  const parsed = Document.safeParse(raw);
  if (!parsed.success) throw damaged(...parsed.error.issues.slice(0, 20).map((i) => ({ path: pathOf(i.path), message: i.message })));
  const doc = parsed.data as unknown as TenantDocumentRecords;
  if (doc.environment !== platform.settings.environment) {
    throw new TenantDocumentError('environment', [{ path: 'environment', message: `The snapshot is of a ${doc.environment} sandbox; this one is ${platform.settings.environment}` }]);
  }
  const t = doc.tenant;
  for (const field of ['users', 'quotes', 'conversions', 'transactions', 'keys'] as const) {
    const seen = new Set<string>();
    (t[field] as Array<{ id: string }>).forEach((r, i) => {
      if (seen.has(r.id)) throw damaged({ path: `tenant.${field}.${i}.id`, message: `Duplicate id ${r.id}` });
      seen.add(r.id);
    });
  }
  t.keys.forEach((k, i) => {
    if (k.tenantId !== t.id) throw damaged({ path: `tenant.keys.${i}.tenantId`, message: 'Must be the id of the tenant' });
    if (keyEnvironment(k.secret) !== platform.settings.environment) throw damaged({ path: `tenant.keys.${i}.secret`, message: 'A key of the other environment' });
  });
  return doc;
}

function replaceAll(text: string, from: string, to: string): string {
  return from === to || from.length === 0 ? text : text.split(from).join(to);
}

/** What a fork made: the new tenant and its keys (with secrets), in the order of the document's keys. */
export interface Fork {
  tenant: TenantState;
  keys: KeyRec[];
  /** The key a caller is handed: the first one not revoked, else the first. */
  key: KeyRec;
}

/**
 * Makes a new tenant from a checked document: a new id and new keys (same names, capabilities,
 * dates and revocations), every reference renamed; its clock at the document's time; its timers
 * re-created from its records. On any failure nothing stays in the platform.
 */
export function forkTenant(platform: Platform, doc: TenantDocumentRecords): Fork {
  const source = doc.tenant;
  const prefix = keyPrefix(platform.settings.environment);
  let text = JSON.stringify(source);
  // A new id never occurs in the document already (a seeded sandbox replays the sequence of another one with the same seed).
  const fresh = (make: () => string): string => {
    let value = make();
    while (text.includes(value)) value = make();
    return value;
  };
  const id = fresh(() => platform.random.uuid());
  const renames: Array<[string, string]> = [[source.id, id]];
  for (const key of source.keys) {
    renames.push([key.id, fresh(() => platform.random.uuid())]);
    renames.push([key.secret, fresh(() => prefix + platform.random.base62(32))]);
  }
  for (const [from, to] of renames) text = replaceAll(text, from, to);
  const snapshot = JSON.parse(text) as TenantRecords;
  let tenant: TenantState | undefined;
  try {
    tenant = restoreTenant(platform, snapshot);
    platform.adopted(tenant);
  } catch (error) {
    if (tenant !== undefined) platform.evict(tenant);
    else {
      // restoreTenant failed part way: take out what it put in.
      const partial = platform.tenants.get(id);
      if (partial !== undefined) platform.evict(partial);
      for (const key of snapshot.keys) if (platform.keys.get(key.secret)?.tenantId === id) platform.keys.delete(key.secret);
    }
    throw damaged({ path: 'tenant', message: `Its records cannot be restored (${error instanceof Error ? error.message : String(error)})` });
  }
  return { tenant, keys: tenant.keys, key: tenant.keys.find((k) => k.revokedAt === null) ?? (tenant.keys[0] as KeyRec) };
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

/** The {@link TenantTransfer} of a platform. */
export function tenantTransfer(platform: Platform): TenantTransfer {
  return {
    export: (tenant) => tenantDocument(platform, withoutLineage(snapshotParts(platform, [tenant.id]).tenants[0] as TenantRecords)),
    fork: (document) => forkTenant(platform, readTenantDocument(platform, document)),
  };
}
