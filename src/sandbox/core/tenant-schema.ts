/**
 * The one schema of a tenant's records as a snapshot or a tenant document holds them (a fork's
 * document, a whole-sandbox snapshot, the import of an old data folder): every field of every
 * record kind, core and plugin, checked before anything is restored. A tenant document is
 * untrusted input (DESIGN.md), so the rules bound what a restore costs and what a later read
 * can meet:
 *
 * - ids are UUIDs; amounts are non-negative decimal strings below 10^15; instants are whole
 *   milliseconds from 1970 to the end of year 9999 (four-digit ISO years: every later read and
 *   export can print them); states are those the machines reach; references between records
 *   resolve (a conversion's quote, user and transaction; a delivery's endpoint);
 * - `seq` (a record's position) is a whole number below 2^31, increasing through each kind, and
 *   for the kinds that never remove a record, dense (its index in the list);
 * - a stored answer (an idempotency record) has a status from 200 to 599, headers from an
 *   allow-list ({@link REPLAY_HEADERS}) with printable values, a request id of ours;
 * - key secrets are unique within the document; settings pass the settings' own validation;
 * - the JSON nests at most {@link MAX_DOCUMENT_DEPTH} levels.
 *
 * Plugins add the schema of their part of `extensions` (`Platform.addExtension`), so one parse
 * covers the whole tenant. The choices and their reasons: docs/decisions.md (issue 35).
 * @module
 */
import * as z from 'zod/mini';
import { CONVERSION_STATUSES, EVENT_TYPES, FAILURE_REASONS, KYC_STATUSES, PIX_KEY_TYPES, QUOTE_STATUSES, STANDBY_REASONS, TRANSACTION_STATUSES } from '../../models/index.js';
import { API_KEY_FORMAT } from './api-keys.js';
import { CAPABILITIES } from './capabilities.js';
import { CONVERSION_MACHINE, KYC_MACHINE, type Machine, QUOTE_MACHINE, TRANSACTION_MACHINE } from './machines.js';
import { lazy } from '../../models/lazy.js';
import { jsonDepth } from './json-depth.js';
import { settingsFromOptions } from './settings.js';

/** The earliest instant a document may hold: 1970-01-01T00:00:00.000Z. */
export const MIN_INSTANT = 0;
/** The latest instant a document may hold: 9999-12-31T23:59:59.999Z (a four-digit year). */
export const MAX_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** The largest `seq` (a record's position) a document may hold. */
export const MAX_SEQ = 2 ** 31 - 1;
/** The deepest nesting of arrays and objects in a document (ours need 8; a request body may nest 64). */
export const MAX_DOCUMENT_DEPTH = 32;
/** How many issues a refusal lists at most. */
export const MAX_ISSUES = 20;

/**
 * The headers a stored answer may carry and a replay may answer (names in lower case): its
 * type, a wait (a fault plan's 429-style error stored for its key) and the sandbox's own
 * `x-pix-usdt-` markers. No framing (`content-length`, `transfer-encoding`, `connection`), no
 * `set-cookie` or `location`: a replay can never answer those, whatever a record says.
 */
export const REPLAY_HEADERS: readonly string[] = ['content-type', 'retry-after'];
/** The prefix of the sandbox's own headers, which a replay may answer too. */
export const REPLAY_HEADER_PREFIX = 'x-pix-usdt-';
const HEADER_NAME = /^[a-z0-9-]{1,64}$/;
// Printable ASCII and spaces: no CR, LF or other control characters.
const HEADER_VALUE = /^[\x20-\x7e]{0,256}$/;
const REQUEST_ID = /^req_[0-9A-Za-z]{1,64}$/;

/** Whether a stored answer's header (name in lower case) may be answered by a replay. */
export function replayableHeader(name: string, value: unknown): boolean {
  if (typeof value !== 'string' || !HEADER_VALUE.test(value) || !HEADER_NAME.test(name)) return false;
  return REPLAY_HEADERS.includes(name) || (name.startsWith(REPLAY_HEADER_PREFIX) && name.length > REPLAY_HEADER_PREFIX.length);
}

/** Whether a status may be replayed: 200 to 599. */
export function replayableStatus(status: unknown): status is number {
  return typeof status === 'number' && Number.isInteger(status) && status >= 200 && status <= 599;
}

/** Whether a request id is one of ours (`req_` and letters or digits): a replay answers it in `x-request-id`. */
export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && REQUEST_ID.test(value);
}

/** The states a machine reaches from its creations (or from `initial`, for a machine without one). */
function reachable(machine: Machine<string, string, string>, initial: readonly string[] = []): string[] {
  const seen = new Set<string>(initial);
  for (const row of machine.transitions) if (row.from === null) seen.add(row.to);
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of machine.transitions) {
      if (row.from !== null && seen.has(row.from) && !seen.has(row.to)) {
        seen.add(row.to);
        grew = true;
      }
    }
  }
  return [...seen];
}

function oneOf<T extends string>(all: readonly T[], allowed: readonly string[]): [T, ...T[]] {
  return all.filter((s) => allowed.includes(s)) as [T, ...T[]];
}

const UUID_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/** An id of ours: a UUID. */
export const Id = /* @__PURE__ */ lazy(() =>
  z.string().check(z.regex(UUID_FORMAT, 'Must be a UUID')));
/** A whole number of milliseconds since the epoch, from 1970 to the end of year 9999. */
export const Instant = /* @__PURE__ */ lazy(() =>
  z.number().check(
    z.refine((n) => Number.isInteger(n) && n >= MIN_INSTANT && n <= MAX_INSTANT, 'Must be a whole number of milliseconds from 1970-01-01 to 9999-12-31'),
  ),
);
/** An instant as ISO 8601 text (`2026-03-02T12:00:00.000Z`), in the same range. */
export const IsoInstant = /* @__PURE__ */ lazy(() =>
  z.string().check(
    z.refine((s) => {
      if (!ISO_INSTANT.test(s)) return false;
      const ms = Date.parse(s);
      return Number.isFinite(ms) && ms >= MIN_INSTANT && ms <= MAX_INSTANT;
    }, 'Must be an ISO 8601 instant (2026-03-02T12:00:00.000Z) from 1970 to 9999'),
  ),
);
/** A non-negative decimal string below 10^15, at most 18 decimals. */
export const Amount = /* @__PURE__ */ lazy(() =>
  z.string().check(z.regex(/^(0|[1-9]\d{0,14})(\.\d{1,18})?$/, 'Must be a non-negative decimal string below 10^15')));
/** A record's position in its kind: a whole number from 0 below 2^31. */
export const Seq = /* @__PURE__ */ lazy(() =>
  z.number().check(z.refine((n) => Number.isInteger(n) && n >= 0 && n <= MAX_SEQ, `Must be a whole number from 0 to ${MAX_SEQ}`)));
// Text a partner chose (names, metadata, Pix keys): any string, bounded by the document's size.
const Text = /* @__PURE__ */ lazy(() => z.string());

const Submission = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    id: Id,
    status: z.enum(['initiated', 'in_review', 'approved', 'rejected', 'expired']),
    createdAt: Instant,
    submittedAt: z.nullable(Instant),
    resultAt: z.nullable(Instant),
    rejectionReason: z.nullable(Text),
  }),
);

const User = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    id: Id,
    seq: Seq,
    externalId: Text,
    name: Text,
    email: z.nullable(Text),
    dateOfBirth: z.nullable(z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'Must be a date (YYYY-MM-DD)'))),
    cpf: z.string().check(z.regex(/^\d{11}$/, 'Must be 11 digits')),
    kycStatus: z.enum(oneOf(KYC_STATUSES, reachable(KYC_MACHINE, ['not_started']))),
    kycApprovedAt: z.nullable(Instant),
    kycExpiresAt: z.nullable(Instant),
    metadata: z.record(z.string(), Text),
    createdAt: Instant,
    updatedAt: Instant,
    deletedAt: z.nullable(Instant),
    submission: z.nullable(Submission),
    walletId: Id,
    balance: Amount,
    walletUpdatedAt: Instant,
  }),
);

const Direction = /* @__PURE__ */ lazy(() =>
  z.enum(['onramp', 'offramp']));

const Quote = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    id: Id,
    seq: Seq,
    userId: Id,
    direction: Direction,
    sourceAmount: Amount,
    targetAmount: Amount,
    exchangeRate: Amount,
    spreadBps: z.number().check(z.int(), z.gte(0), z.lte(10_000)),
    feeUsdt: Amount,
    netTargetAmount: Amount,
    walletAddress: z.nullable(Text),
    pixKey: z.nullable(Text),
    pixKeyType: z.nullable(z.enum(PIX_KEY_TYPES)),
    holderName: z.nullable(Text),
    holderDocument: z.nullable(Text),
    pixVerifiedAt: z.nullable(Instant),
    status: z.enum(oneOf(QUOTE_STATUSES, reachable(QUOTE_MACHINE))),
    expiresAt: Instant,
    consumedAt: z.nullable(Instant),
    consumedBy: z.nullable(Id),
    createdAt: Instant,
  }),
);

const Conversion = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    id: Id,
    seq: Seq,
    userId: Id,
    quoteId: Id,
    liquidationQuoteId: z.nullable(Id),
    direction: Direction,
    status: z.enum(oneOf(CONVERSION_STATUSES, reachable(CONVERSION_MACHINE))),
    expected: Amount,
    received: Amount,
    targetAmount: Amount,
    windowExpiresAt: Instant,
    standbyAt: z.nullable(Instant),
    standbyReason: z.nullable(z.enum(STANDBY_REASONS)),
    pixAt: z.nullable(Instant),
    usdtAt: z.nullable(Instant),
    settleAt: z.nullable(Instant),
    completedAt: z.nullable(Instant),
    failureReason: z.nullable(z.enum(FAILURE_REASONS)),
    createdAt: Instant,
    updatedAt: Instant,
    reservedBrl: Amount,
    reservedAt: Instant,
    transactionId: z.nullable(Id),
  }),
);

const Transaction = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    id: Id,
    seq: Seq,
    userId: Id,
    quoteId: Id,
    conversionId: z.nullable(Id),
    status: z.enum(oneOf(TRANSACTION_STATUSES, reachable(TRANSACTION_MACHINE))),
    sourceAmount: Amount,
    targetAmount: Amount,
    exchangeRate: Amount,
    walletAddress: z.nullable(Text),
    pixPaidAt: z.nullable(Instant),
    usdtSentAt: z.nullable(Instant),
    settleAt: z.nullable(Instant),
    failureReason: z.nullable(Text),
    createdAt: Instant,
    updatedAt: Instant,
    completedAt: z.nullable(Instant),
    expiresAt: Instant,
    // Absent in snapshots from before standalone transactions held limits (nothing held).
    reservedBrl: z.optional(Amount),
    reservedAt: z.optional(Instant),
  }),
);

const Key = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    id: Id,
    tenantId: Id,
    secret: z.string().check(z.regex(API_KEY_FORMAT, 'Must be an API key secret')),
    name: Text,
    capabilities: z.array(z.enum(CAPABILITIES)).check(z.maxLength(CAPABILITIES.length)),
    createdAt: Instant,
    revokedAt: z.nullable(Instant),
  }),
);

const StoredHeaders = /* @__PURE__ */ lazy(() =>
  z.record(z.string(), z.string()).check(
    z.superRefine((headers, ctx) => {
      for (const [name, value] of Object.entries(headers)) {
        if (name === 'x-request-id') {
          if (!isRequestId(value)) ctx.issues.push({ code: 'custom', input: value, path: [name], message: 'Must be a request id of the sandbox (req_...)' });
        } else if (!replayableHeader(name, value)) {
          ctx.issues.push({ code: 'custom', input: value, path: [name], message: `Not a header a replay may answer (${[...REPLAY_HEADERS, `${REPLAY_HEADER_PREFIX}*`].join(', ')}, printable values)` });
        }
      }
    }),
  ),
);

const Idempotency = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    key: z.string().check(z.minLength(1), z.maxLength(255)),
    fingerprint: z.string().check(z.regex(/^[0-9a-f]{14}([0-9a-f]{14})?$/, 'Must be 14 or 28 hex digits')),
    running: z.literal(false),
    startedAt: Instant,
    status: z.number().check(z.refine(replayableStatus, 'Must be an HTTP status from 200 to 599')),
    body: z.nullable(z.string().check(z.refine((b) => jsonDepth(b) <= MAX_DOCUMENT_DEPTH, `Must nest at most ${MAX_DOCUMENT_DEPTH} levels`))),
    headers: StoredHeaders,
  }),
);

const UsageBucket = /* @__PURE__ */ lazy(() =>
  z.string().check(z.regex(/^(p|u[0-9a-f-]{36})?[dm]\d{1,7}$/, 'Must be a usage bucket (d<day>, m<month>, with p or u<user id> before)')));

const Event = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    id: Id,
    type: z.enum(EVENT_TYPES),
    created_at: IsoInstant,
    data: z.strictObject({ object: z.looseObject({ id: z.string().check(z.maxLength(200)) }) }),
  }),
);

/**
 * Core's own part of `extensions`: a tenant's lineage (core/lineage.ts), `{ root }` on a tenant made
 * over the API, `{ made }` on a root that made some. A whole-sandbox snapshot and storage carry it; a
 * tenant document never does (its reader drops it before this schema runs).
 */
export const Lineage = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    root: z.optional(Id),
    made: z.optional(z.number().check(z.refine((n) => Number.isInteger(n) && n >= 0 && n <= 2 ** 31 - 1, 'Must be a whole number from 0 to 2^31-1'))),
  }),
);

/**
 * A plugin's part of a tenant's `extensions`: the schema of its value, checked with the rest of
 * the tenant (absent: the tenant never used the plugin).
 */
export type ExtensionSchema = z.ZodMiniType;

/** The schema of one tenant's records, with the plugins' extensions (by name). */
export function tenantSchema(extensions: ReadonlyMap<string, ExtensionSchema>): z.ZodMiniType {
  const shape: Record<string, z.ZodMiniType> = {};
  for (const [name, schema] of extensions) shape[name] = z.optional(schema);
  return z.strictObject({
    id: Id,
    now: IsoInstant,
    users: z.array(User),
    quotes: z.array(Quote),
    conversions: z.array(Conversion),
    transactions: z.array(Transaction),
    keys: z.array(Key).check(z.minLength(1, 'A tenant has at least one API key')),
    idempotency: z.array(Idempotency),
    rateWindows: z.array(z.tuple([Id, z.array(Instant)])),
    usage: z.array(z.tuple([UsageBucket, Amount])),
    events: z.array(Event),
    extensions: z.strictObject(shape),
    settings: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
  });
}

/** Where and what. */
export interface SchemaIssue {
  path: string;
  message: string;
}

/** A path from its parts (`tenant.users.0.id`). */
export function pathOf(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

type Rec = { id: string; seq: number };

/**
 * What a schema cannot say of one tenant's parsed records: ids unique per kind, `seq` dense from 0
 * (users, quotes, conversions, transactions are never removed), references that resolve, keys of
 * this tenant with unique secrets and ids, rate windows of its keys, usage buckets once each,
 * settings the settings' validation takes. `at` prefixes the paths.
 */
export function tenantIssues(t: Record<string, unknown>, at: string): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const add = (path: string, message: string): void => {
    if (issues.length < MAX_ISSUES) issues.push({ path: `${at}${path}`, message });
  };
  const ids: Record<string, Set<string>> = {};
  for (const field of ['users', 'quotes', 'conversions', 'transactions'] as const) {
    const seen = (ids[field] = new Set<string>());
    (t[field] as Rec[]).forEach((r, i) => {
      if (seen.has(r.id)) add(`${field}.${i}.id`, `Duplicate id ${r.id}`);
      seen.add(r.id);
      if (r.seq !== i) add(`${field}.${i}.seq`, `Must be ${i}: the positions of ${field} are dense from 0 in the order listed`);
    });
  }
  const has = (field: string, id: string | null): boolean => id === null || (ids[field] as Set<string>).has(id);
  (t['quotes'] as Array<{ userId: string; consumedBy: string | null }>).forEach((q, i) => {
    if (!has('users', q.userId)) add(`quotes.${i}.userId`, 'No such user in the tenant');
    if (!has('conversions', q.consumedBy)) add(`quotes.${i}.consumedBy`, 'No such conversion in the tenant');
  });
  (t['conversions'] as Array<{ userId: string; quoteId: string; liquidationQuoteId: string | null; transactionId: string | null }>).forEach((c, i) => {
    if (!has('users', c.userId)) add(`conversions.${i}.userId`, 'No such user in the tenant');
    if (!has('quotes', c.quoteId)) add(`conversions.${i}.quoteId`, 'No such quote in the tenant');
    if (!has('quotes', c.liquidationQuoteId)) add(`conversions.${i}.liquidationQuoteId`, 'No such quote in the tenant');
    if (!has('transactions', c.transactionId)) add(`conversions.${i}.transactionId`, 'No such transaction in the tenant');
  });
  (t['transactions'] as Array<{ userId: string; quoteId: string; conversionId: string | null }>).forEach((x, i) => {
    if (!has('users', x.userId)) add(`transactions.${i}.userId`, 'No such user in the tenant');
    if (!has('quotes', x.quoteId)) add(`transactions.${i}.quoteId`, 'No such quote in the tenant');
    if (!has('conversions', x.conversionId)) add(`transactions.${i}.conversionId`, 'No such conversion in the tenant');
  });
  const keyIds = new Set<string>();
  const secrets = new Set<string>();
  (t['keys'] as Array<{ id: string; tenantId: string; secret: string }>).forEach((k, i) => {
    if (k.tenantId !== t['id']) add(`keys.${i}.tenantId`, 'Must be the id of the tenant');
    if (keyIds.has(k.id)) add(`keys.${i}.id`, `Duplicate id ${k.id}`);
    // Never the secret itself in a message.
    if (secrets.has(k.secret)) add(`keys.${i}.secret`, 'The secret of an earlier key: each key has its own');
    keyIds.add(k.id);
    secrets.add(k.secret);
  });
  const windows = new Set<string>();
  (t['rateWindows'] as Array<[string, number[]]>).forEach(([keyId], i) => {
    if (!keyIds.has(keyId)) add(`rateWindows.${i}.0`, 'No such API key in the tenant');
    if (windows.has(keyId)) add(`rateWindows.${i}.0`, 'A second window for the same key');
    windows.add(keyId);
  });
  const buckets = new Set<string>();
  (t['usage'] as Array<[string, string]>).forEach(([bucket], i) => {
    if (buckets.has(bucket)) add(`usage.${i}.0`, 'A second counter for the same bucket');
    buckets.add(bucket);
  });
  const idem = new Set<string>();
  (t['idempotency'] as Array<{ key: string }>).forEach((r, i) => {
    if (idem.has(r.key)) add(`idempotency.${i}.key`, 'A second record for the same Idempotency-Key');
    idem.add(r.key);
  });
  const events = new Set<string>();
  (t['events'] as Array<{ id: string }>).forEach((e, i) => {
    if (events.has(e.id)) add(`events.${i}.id`, `Duplicate id ${e.id}`);
    events.add(e.id);
  });
  const settings = t['settings'] as Record<string, unknown> | null | undefined;
  for (const [kind, part] of Object.entries(settings ?? {})) {
    if (kind !== 'price' && kind !== 'limits' && kind !== 'timings') add(`settings.${kind}`, 'Unknown settings: price, limits or timings');
    else if (part !== undefined) {
      try {
        // The operator's rules: a snapshot's settings were checked when the tenant set them.
        settingsFromOptions(kind, part, '', { operator: true });
      } catch (error) {
        add(`settings.${kind}`, (error instanceof Error ? error.message : String(error)).replace(/^: /, '').replace(/\.$/, ''));
      }
    }
  }
  return issues;
}

/**
 * Positions (`seq`) of a kind that may have gaps (records a retention rule removed): whole
 * numbers increasing through the list. For a plugin's schema.
 */
export function increasingSeqs(records: ReadonlyArray<{ seq: number }>, path: string, ctx: { issues: unknown[] }): void {
  let last = -1;
  records.forEach((r, i) => {
    if (r.seq <= last) (ctx.issues as Array<Record<string, unknown>>).push({ code: 'custom', input: r.seq, path: [path, i, 'seq'], message: 'Must be larger than the seq of the record before it' });
    last = r.seq;
  });
}

/** Ids unique through a list of records. For a plugin's schema. */
export function uniqueIds(records: ReadonlyArray<{ id: string }>, path: string, ctx: { issues: unknown[] }): Set<string> {
  const seen = new Set<string>();
  records.forEach((r, i) => {
    if (seen.has(r.id)) (ctx.issues as Array<Record<string, unknown>>).push({ code: 'custom', input: r.id, path: [path, i, 'id'], message: `Duplicate id ${r.id}` });
    seen.add(r.id);
  });
  return seen;
}

/** Why a tenant document (or a snapshot's tenant) was refused. */
export type TenantDocumentProblem = 'too_large' | 'damaged' | 'format' | 'version' | 'environment' | 'limits';

/**
 * A tenant document refused: nothing changed. Over HTTP, a 400 `validation_error` with the same
 * `problem` and `issues`. `sandbox.restore` throws it too for a snapshot with a damaged tenant.
 */
export class TenantDocumentError extends TypeError {
  override readonly name = 'TenantDocumentError';
  constructor(
    /**
     * `too_large`, `damaged` (not JSON, nested too deep, or a field the schema refuses), `format`
     * (not a tenant document), `version` (another version), `environment`, `limits` (its
     * reservations do not fit the platform limits shared by every tenant).
     */
    readonly problem: TenantDocumentProblem,
    /** Where and what, as the envelope's `details.issues` (paths from the document's root). */
    readonly issues: Array<{ path: string; message: string }>,
  ) {
    super(`The tenant snapshot is refused (${problem}): ${issues.map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`)).join('; ')}.`);
  }
}

const SCHEMAS = new WeakMap<ReadonlyMap<string, ExtensionSchema>, z.ZodMiniType>();

/**
 * One tenant's records (a parsed JSON value) through the schema and the checks it cannot say
 * ({@link tenantIssues}): its own copy of the records, or the issues (at most
 * {@link MAX_ISSUES}, paths prefixed by `at`). Secrets never appear in a message.
 */
export function parseTenantRecords(extensions: ReadonlyMap<string, ExtensionSchema>, raw: unknown, at: string): { ok: true; records: Record<string, unknown> } | { ok: false; issues: SchemaIssue[] } {
  let schema = SCHEMAS.get(extensions);
  if (schema === undefined) SCHEMAS.set(extensions, (schema = tenantSchema(extensions)));
  const parsed = z.safeParse(schema, raw);
  if (!parsed.success) {
    return { ok: false, issues: parsed.error.issues.slice(0, MAX_ISSUES).map((i) => ({ path: `${at}${pathOf(i.path)}`, message: i.message })) };
  }
  const records = parsed.data as Record<string, unknown>;
  const issues = tenantIssues(records, at);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, records };
}

/** What a replay answers. */
export interface Replay {
  status: number;
  body: string | null;
  headers: Record<string, string>;
}

/**
 * The answer a replay of a stored answer gives, written from the allow-list whatever the record
 * says (it may have reached storage some other way than through the schema): its status (`null`
 * when it is not 200 to 599: the record cannot be replayed), its body (none for a 204 or 304),
 * the {@link REPLAY_HEADERS} it holds with printable values, its request id when it is one of
 * ours (else `requestId`), and `idempotent-replayed: true`.
 */
export function replayOf(rec: { status: number; body: string | null; requestId: string; headers: Record<string, string> | null }, requestId: string): Replay | null {
  if (!replayableStatus(rec.status)) return null;
  const empty = rec.status === 204 || rec.status === 304;
  const headers: Record<string, string> = {};
  if (rec.headers === null) {
    if (!empty) headers['content-type'] = 'application/json';
  } else {
    for (const name of Object.keys(rec.headers)) {
      const lower = name.toLowerCase();
      const value = rec.headers[name];
      if (empty && lower === 'content-type') continue;
      if (replayableHeader(lower, value)) headers[lower] = value as string;
    }
  }
  headers['x-request-id'] = isRequestId(rec.requestId) ? rec.requestId : requestId;
  headers['idempotent-replayed'] = 'true';
  return { status: rec.status, body: empty ? null : rec.body, headers };
}
