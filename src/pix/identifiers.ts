/**
 * Pix identifiers: the end-to-end id of a payment or refund (`pix_e2e_id`) and the txid a
 * receiver gives a charge.
 * @module
 */

/** Why {@link parseEndToEndId} refused an id. */
export type EndToEndIdReason =
  /** Not 32 characters. */
  | 'invalid_length'
  /** Does not start with `E` (payment) or `D` (refund, devolução). */
  | 'invalid_prefix'
  /** The 8-character ISPB of the paying institution is not [0-9A-Z]. */
  | 'invalid_ispb'
  /** The `yyyyMMddHHmm` part is not a real UTC date and time. */
  | 'invalid_timestamp'
  /** The last 11 characters are not alphanumeric. */
  | 'invalid_sequence';

/** The parts of an end-to-end id. */
export interface EndToEndId {
  /** `payment` for an `E` id, `refund` for a `D` id. */
  kind: 'payment' | 'refund';
  /** ISPB of the institution that created the id (8 characters). */
  ispb: string;
  /** When it was created, to the minute, as an ISO 8601 UTC timestamp (`2026-11-23T11:30:00.000Z`). */
  createdAt: string;
  /** The 11 alphanumeric characters that make the id unique. */
  sequence: string;
}

/** The answer of {@link parseEndToEndId}. */
export type EndToEndIdResult =
  | ({ valid: true } & EndToEndId)
  | { valid: false; reason: EndToEndIdReason; message: string };

/**
 * Reads an end-to-end id: `E` (or `D` for a refund), the 8-character ISPB, `yyyyMMddHHmm` in UTC
 * and 11 alphanumerics, 32 characters in all.
 *
 * @example
 * ```ts
 * const e2e = parseEndToEndId(conversion.pix_e2e_id);
 * if (e2e.valid) console.log(e2e.ispb, e2e.createdAt);
 * ```
 */
export function parseEndToEndId(id: string): EndToEndIdResult {
  const fail = (reason: EndToEndIdReason, message: string): EndToEndIdResult => ({ valid: false, reason, message });
  if (id.length !== 32) return fail('invalid_length', 'An end-to-end id has 32 characters.');
  const prefix = id[0];
  if (prefix !== 'E' && prefix !== 'D') return fail('invalid_prefix', 'An end-to-end id starts with E (payment) or D (refund).');
  const ispb = id.slice(1, 9);
  if (!/^[0-9A-Z]{8}$/.test(ispb)) return fail('invalid_ispb', 'Characters 2 to 9 (the ISPB) are digits or A-Z.');
  const stamp = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(id.slice(9, 21));
  const [year, month, day, hour, minute] = (stamp ?? []).slice(1).map(Number) as number[];
  const at = new Date(Date.UTC(year ?? NaN, (month ?? 0) - 1, day, hour, minute));
  // Date.UTC rolls 31 February over to March: a real date reads back the same fields.
  if (stamp === null || at.getUTCMonth() !== (month as number) - 1 || at.getUTCDate() !== day || at.getUTCHours() !== hour || at.getUTCMinutes() !== minute) {
    return fail('invalid_timestamp', 'Characters 10 to 21 are a UTC date and time, yyyyMMddHHmm.');
  }
  const sequence = id.slice(21);
  if (!/^[0-9A-Za-z]{11}$/.test(sequence)) return fail('invalid_sequence', 'The last 11 characters are letters or digits.');
  return { valid: true, kind: prefix === 'E' ? 'payment' : 'refund', ispb, createdAt: at.toISOString(), sequence };
}

/**
 * True when `txid` is a valid txid for a charge: `[a-zA-Z0-9]{26,35}` for a dynamic charge (the
 * `txid` of a cob), `[a-zA-Z0-9]{1,25}` for a static BR Code's field 62-05.
 */
export function isValidTxid(txid: string, kind: 'static' | 'dynamic'): boolean {
  return kind === 'dynamic' ? /^[a-zA-Z0-9]{26,35}$/.test(txid) : /^[a-zA-Z0-9]{1,25}$/.test(txid);
}
