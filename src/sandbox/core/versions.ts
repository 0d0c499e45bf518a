/**
 * Versions: a record as it was at one moment, kept compact. The event log holds one per event
 * (the snapshot of its `data.object`) and an idempotency record one per stored answer, for as
 * long as they are kept (events by count, answers 24 hours): as wire objects or JSON they were
 * most of the sandbox's memory (docs/performance.md, "Memory"). A version is the live record plus
 * the fields that can still change, packed in one short string; its wire form is rebuilt on read,
 * the same bytes as at the moment it was taken. Each kind below lists every field of its record
 * once: `packed` (read by a wire form and changed after creation), `fixed` (never changed once
 * the record is stored) or `internal` (read by no wire form); test/sandbox/core/versions.test.ts holds
 * the lists to the records and the rebuilt forms to the ones answered at the time.
 * @module
 */
import type { CompactBody, ConversionRec, QuoteRec, SubmissionRec, TransactionRec, UserRec } from './state.js';
import { conversionOut, kycViewOut, quoteOut, transactionOut, userJson, userOut } from './wire.js';

type Field<R> = keyof R & string;

/** What every versioned record has. */
export interface Stamped {
  id: string;
  createdAt: number;
}

/** A kind of record that versions can hold. */
export interface VersionKind<R extends Stamped = Stamped> {
  readonly name: 'user' | 'quote' | 'conversion' | 'transaction';
  /** The wire form of its events and answers. */
  readonly out: (record: R) => object;
  /** `JSON.stringify(out(record))`, written without the object where a kind has a writer of its own (users). */
  readonly json?: (record: R) => string;
  /** Read by a wire form and changed after creation: packed in each version. */
  readonly packed: readonly Field<R>[];
  /** Never changed once the record is stored: read from the live record. */
  readonly fixed: readonly Field<R>[];
  /** Read by no wire form: not kept (a version's record has their current values). */
  readonly internal: readonly Field<R>[];
  /** Packed fields holding an instant: kept as milliseconds after `createdAt` (shorter). */
  readonly instants: ReadonlySet<string>;
  /**
   * {@link valuesOf}, written out field by field: a version is taken for every event, answer and
   * read of a record, and the loop's keyed reads of `record[field]` cost ten times these.
   */
  readonly values?: (record: R) => unknown[];
}

/** A record as it was when the version was taken (see the module comment). */
export class Version implements CompactBody {
  constructor(
    /** The kind of the record (its name, fields and wire form). */
    readonly kind: VersionKind<never>,
    /** The live record (its fixed fields are the version's). */
    readonly record: Stamped,
    /** The packed fields as JSON (see {@link pack}). */
    readonly packed: string,
  ) {}

  /** The record as it was: the live one with the version's packed fields. */
  get(): Stamped {
    return unpack(this.kind as unknown as VersionKind<Stamped>, this.record, this.packed);
  }

  /** The wire object of the record as it was (the same fields and values as then). */
  object(): Record<string, unknown> {
    return (this.kind.out as (record: Stamped) => Record<string, unknown>)(this.get());
  }

  /** The JSON of {@link object}: an answer's body, byte for byte. */
  text(): string {
    const json = this.kind.json as ((record: Stamped) => string) | undefined;
    return json === undefined ? JSON.stringify(this.object()) : json(this.get());
  }
}

/** A version under another wire form of its kind (the KYC view of a user). */
export class ViewedVersion implements CompactBody {
  constructor(
    readonly out: (record: never) => object,
    readonly version: Version,
  ) {}

  text(): string {
    return JSON.stringify((this.out as (record: Stamped) => object)(this.version.get()));
  }
}

/** A version of `record` now. */
export function versionOf<R extends Stamped>(kind: VersionKind<R>, record: R): Version {
  return new Version(kind as unknown as VersionKind<never>, record, pack(kind, record));
}

// A submission is replaced, or changed in place: packed whole, its instants after the user's creation.
function packSubmission(s: SubmissionRec | null, base: number): unknown {
  if (s === null) return null;
  return [s.id, s.status, s.createdAt - base, after(s.submittedAt, base), after(s.resultAt, base), s.rejectionReason];
}

// Not a closure made per call: packing runs on every read of a record (the bin's `keepNames` wraps each closure made).
function after(ms: number | null, base: number): number | null {
  return ms === null ? null : ms - base;
}

function unpackSubmission(value: unknown, base: number): SubmissionRec | null {
  if (value === null) return null;
  const [id, status, createdAt, submittedAt, resultAt, rejectionReason] = value as [string, SubmissionRec['status'], number, number | null, number | null, string | null];
  const t = (ms: number | null): number | null => (ms === null ? null : ms + base);
  return { id, status, createdAt: createdAt + base, submittedAt: t(submittedAt), resultAt: t(resultAt), rejectionReason };
}

/** The packed fields of a record, as JSON: one array, instants as offsets from `createdAt`. */
export function pack<R extends Stamped>(kind: VersionKind<R>, record: R): string {
  return JSON.stringify(packedValues(kind, record));
}

/** The values {@link pack} writes, in its order. */
export function packedValues<R extends Stamped>(kind: VersionKind<R>, record: R): unknown[] {
  return kind.values === undefined ? valuesOf(kind, record) : kind.values(record);
}

/**
 * {@link packedValues} read field by field from the kind's lists: what each kind's own `values`
 * answers (test/sandbox/core/versions.test.ts holds the two to each other).
 */
export function valuesOf<R extends Stamped>(kind: VersionKind<R>, record: R): unknown[] {
  const base = record.createdAt;
  const fields = kind.packed;
  const values: unknown[] = new Array(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as Field<R>;
    const value = record[field] as unknown;
    if (field === 'submission') values[i] = packSubmission(value as SubmissionRec | null, base);
    else values[i] = value !== null && kind.instants.has(field) ? (value as number) - base : value;
  }
  return values;
}

/**
 * Whether the {@link packedValues} of a record now (`now`) are the ones kept (`kept`, from
 * {@link keptValues}) without writing them: each a string, number, boolean or null equal to the
 * other (`===`, under which JSON writes the same), or an array or a plain object (a user's
 * `metadata`, its `submission`) of such values, the same keys in the same order (JSON's order).
 * Anything else (a nested object, NaN) answers false, and the caller packs and compares the JSON
 * instead.
 */
export function samePrimitives(now: readonly unknown[], kept: readonly unknown[]): boolean {
  if (now.length !== kept.length) return false;
  for (let i = 0; i < now.length; i++) {
    const value = now[i];
    const other = kept[i];
    if (typeof value === 'object' && value !== null) {
      if (typeof other !== 'object' || other === null || !sameFlat(value, other)) return false;
    } else if (value !== other) return false;
  }
  return true;
}

// Two arrays, or two plain objects, of primitives, equal as JSON writes them (keys in order).
function sameFlat(a: object, b: object): boolean {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const value = a[i] as unknown;
      if (value !== b[i] || (typeof value === 'object' && value !== null)) return false;
    }
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.prototype || Object.getPrototypeOf(b) !== Object.prototype) return false;
  const keys = Object.keys(a);
  const others = Object.keys(b);
  if (keys.length !== others.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key !== others[i]) return false;
    const value = (a as Record<string, unknown>)[key];
    if (value !== (b as Record<string, unknown>)[key] || (typeof value === 'object' && value !== null)) return false;
  }
  return true;
}

/**
 * The values of a version as {@link samePrimitives} compares them later: an object among them
 * (a user's `metadata`, which is the live record's) copied, so that a change made in place to
 * the record's object still shows. A packed submission is a new array already.
 */
export function keptValues(values: unknown[]): unknown[] {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    // A frozen object (a user's `NO_METADATA`) cannot change in place: kept as it is.
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && !Object.isFrozen(value) && Object.getPrototypeOf(value) === Object.prototype) values[i] = { ...value };
  }
  return values;
}

function unpack<R extends Stamped>(kind: VersionKind<R>, record: R, packed: string): R {
  const values = JSON.parse(packed) as unknown[];
  const base = record.createdAt;
  const out = { ...record };
  kind.packed.forEach((field, i) => {
    const value = values[i];
    let restored: unknown = value;
    if (field === 'submission') restored = unpackSubmission(value, base);
    else if (kind.instants.has(field) && value !== null) restored = (value as number) + base;
    (out as Record<string, unknown>)[field] = restored;
  });
  return out;
}

// Each kind's `values`: its `packed` list in order, instants as offsets (`after`), as `valuesOf` reads them.
function userValues(u: UserRec): unknown[] {
  const base = u.createdAt;
  return [u.externalId, u.name, u.email, u.dateOfBirth, u.kycStatus, after(u.kycApprovedAt, base), after(u.kycExpiresAt, base), u.metadata, after(u.updatedAt, base), packSubmission(u.submission, base)];
}

function quoteValues(q: QuoteRec): unknown[] {
  return [q.status, after(q.consumedAt, q.createdAt), q.consumedBy];
}

function conversionValues(c: ConversionRec): unknown[] {
  const base = c.createdAt;
  return [c.liquidationQuoteId, c.status, c.received, c.targetAmount, after(c.standbyAt, base), c.standbyReason, after(c.pixAt, base), after(c.usdtAt, base), after(c.completedAt, base), c.failureReason, after(c.updatedAt, base)];
}

function transactionValues(t: TransactionRec): unknown[] {
  const base = t.createdAt;
  return [t.status, after(t.pixPaidAt, base), after(t.usdtSentAt, base), t.failureReason, after(t.updatedAt, base), after(t.completedAt, base)];
}

/** Users: `userOut` (and `kycViewOut`, which reads no other field). */
export const USER: VersionKind<UserRec> = {
  name: 'user',
  out: userOut,
  json: userJson,
  packed: ['externalId', 'name', 'email', 'dateOfBirth', 'kycStatus', 'kycApprovedAt', 'kycExpiresAt', 'metadata', 'updatedAt', 'submission'],
  fixed: ['id', 'cpf', 'createdAt'],
  internal: ['seq', 'deletedAt', 'walletId', 'balance', 'walletUpdatedAt'],
  instants: new Set(['kycApprovedAt', 'kycExpiresAt', 'updatedAt']),
  values: userValues,
};

/** Quotes: `quoteOut`. */
export const QUOTE: VersionKind<QuoteRec> = {
  name: 'quote',
  out: quoteOut,
  packed: ['status', 'consumedAt', 'consumedBy'],
  fixed: [
    'id',
    'userId',
    'direction',
    'sourceAmount',
    'targetAmount',
    'exchangeRate',
    'spreadBps',
    'feeUsdt',
    'netTargetAmount',
    'walletAddress',
    'pixKey',
    'pixKeyType',
    'holderName',
    'holderDocument',
    'pixVerifiedAt',
    'expiresAt',
    'createdAt',
  ],
  internal: ['seq'],
  instants: new Set(['consumedAt']),
  values: quoteValues,
};

/** Conversions: `conversionOut`. */
export const CONVERSION: VersionKind<ConversionRec> = {
  name: 'conversion',
  out: conversionOut,
  packed: ['liquidationQuoteId', 'status', 'received', 'targetAmount', 'standbyAt', 'standbyReason', 'pixAt', 'usdtAt', 'completedAt', 'failureReason', 'updatedAt'],
  fixed: ['id', 'userId', 'quoteId', 'direction', 'expected', 'windowExpiresAt', 'createdAt'],
  internal: ['seq', 'settleAt', 'reservedBrl', 'reservedAt', 'transactionId'],
  instants: new Set(['standbyAt', 'pixAt', 'usdtAt', 'completedAt', 'updatedAt']),
  values: conversionValues,
};

/** Transactions: `transactionOut`. */
export const TRANSACTION: VersionKind<TransactionRec> = {
  name: 'transaction',
  out: transactionOut,
  packed: ['status', 'pixPaidAt', 'usdtSentAt', 'failureReason', 'updatedAt', 'completedAt'],
  fixed: ['id', 'userId', 'quoteId', 'sourceAmount', 'targetAmount', 'exchangeRate', 'walletAddress', 'createdAt'],
  internal: ['seq', 'conversionId', 'settleAt', 'expiresAt', 'reservedBrl', 'reservedAt'],
  instants: new Set(['pixPaidAt', 'usdtSentAt', 'updatedAt', 'completedAt']),
  values: transactionValues,
};

/** The KYC status view of a user (`POST /v1/test_helpers/users/{id}/kyc` answers it). */
export const KYC_VIEW: (user: UserRec) => object = kycViewOut;
