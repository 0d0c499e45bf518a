/**
 * The comparison rules shared by the conformance scenarios and `diffCassette`: ids and
 * timestamps are compared by their form (a UUID is a UUID, whatever its value), amounts and
 * other strings by type, while statuses, error codes and state fields are compared by value.
 * @module
 */
import type { FieldSet, ValueKind } from './reference.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The kind of a JSON value (see {@link ValueKind}). */
export function kindOf(value: unknown): ValueKind {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      if (UUID.test(value)) return 'uuid';
      if (TIMESTAMP.test(value)) return 'timestamp';
      return 'string';
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'object';
  }
}

/** Whether an observed kind satisfies the expected one (a uuid or a timestamp is also a string). */
export function kindMatches(expected: ValueKind, observed: ValueKind): boolean {
  if (expected === observed) return true;
  if (expected === 'string') return observed === 'uuid' || observed === 'timestamp';
  if (expected === 'number') return observed === 'integer';
  return false;
}

/** One difference between what was expected and what was observed, at a JSON path. */
export interface Difference {
  /** Dotted path (`status`, `body.code`, `body.data.0.id`). */
  path: string;
  /** What was expected (a value, a kind, or `absent`). */
  expected: string;
  /** What was observed. */
  observed: string;
}

/** Renders differences as `path: expected X, observed Y` lines. */
export function formatDifferences(differences: readonly Difference[]): string {
  return differences.map((d) => `${d.path}: expected ${d.expected}, observed ${d.observed}`).join('\n');
}

/** The result of checking an object against a reference field set. */
export interface FieldSetCheck {
  /** Fields of the reference that are absent. */
  missing: string[];
  /** Fields whose kind differs (null is not a difference: nullability is "not shown"). */
  wrongKind: Difference[];
  /** Fields the answer has beyond the reference's (a finding). */
  extra: string[];
}

/** Checks `value` against a reference field set. */
export function checkFieldSet(value: unknown, fields: FieldSet): FieldSetCheck {
  const out: FieldSetCheck = { missing: [], wrongKind: [], extra: [] };
  if (kindOf(value) !== 'object') {
    out.wrongKind.push({ path: '', expected: 'object', observed: kindOf(value) });
    return out;
  }
  const record = value as Record<string, unknown>;
  for (const [name, expected] of Object.entries(fields)) {
    if (!(name in record)) {
      out.missing.push(name);
      continue;
    }
    const observed = kindOf(record[name]);
    if (observed !== 'null' && !kindMatches(expected, observed)) out.wrongKind.push({ path: name, expected, observed });
  }
  out.extra = Object.keys(record).filter((k) => !(k in fields)).sort();
  return out;
}

/** Fields whose string values are compared by value: states, codes, reasons, kinds. */
export const VALUE_FIELDS: ReadonlySet<string> = new Set([
  'code', 'status', 'kyc_status', 'standby_reason', 'failure_reason', 'transaction_type', 'type', 'object',
  'source_currency', 'target_currency', 'document_type', 'user_type', 'pix_key_type', 'asset', 'network',
  'deposit_network', 'destination_wallet_network', 'deposit_address_network', 'custody_status', 'risk_profile',
]);

/**
 * Every difference between two JSON values under the shared rules: object key sets, kinds,
 * array lengths, and the values of {@link VALUE_FIELDS}.
 */
export function diffJson(expected: unknown, observed: unknown, path = 'body'): Difference[] {
  const ek = kindOf(expected);
  const ok = kindOf(observed);
  if (!kindMatches(ek, ok) && !kindMatches(ok, ek)) return [{ path, expected: ek, observed: ok }];
  const out: Difference[] = [];
  if (ek === 'object') {
    const e = expected as Record<string, unknown>;
    const o = observed as Record<string, unknown>;
    for (const key of new Set([...Object.keys(e), ...Object.keys(o)])) {
      const p = `${path}.${key}`;
      if (!(key in o)) out.push({ path: p, expected: describe(e[key]), observed: 'absent' });
      else if (!(key in e)) out.push({ path: p, expected: 'absent', observed: describe(o[key]) });
      else if (VALUE_FIELDS.has(key) && typeof e[key] === 'string' && e[key] !== o[key]) out.push({ path: p, expected: JSON.stringify(e[key]), observed: JSON.stringify(o[key]) });
      else out.push(...diffJson(e[key], o[key], p));
    }
  } else if (ek === 'array') {
    const e = expected as unknown[];
    const o = observed as unknown[];
    if (e.length !== o.length) out.push({ path: `${path}.length`, expected: String(e.length), observed: String(o.length) });
    for (let i = 0; i < Math.min(e.length, o.length); i++) out.push(...diffJson(e[i], o[i], `${path}.${i}`));
  }
  return out;
}

function describe(value: unknown): string {
  const kind = kindOf(value);
  return kind === 'string' && typeof value === 'string' && value.length <= 40 ? `${kind} ${JSON.stringify(value)}` : kind;
}

/** An HTTP answer reduced to what the comparison reads. */
export interface ComparableAnswer {
  /** HTTP status. */
  status: number;
  /** Body text ('' for none). */
  body: string;
}

/** The differences between two HTTP answers: status, then the JSON bodies under {@link diffJson}. */
export function diffAnswers(expected: ComparableAnswer, observed: ComparableAnswer): Difference[] {
  const out: Difference[] = [];
  if (expected.status !== observed.status) out.push({ path: 'status', expected: String(expected.status), observed: String(observed.status) });
  const e = parse(expected.body);
  const o = parse(observed.body);
  out.push(...diffJson(e, o));
  return out;
}

function parse(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
