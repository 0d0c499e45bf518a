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
  | {
      valid: false;
      /** What is wrong. */
      reason: EndToEndIdReason;
      /** The reason in words, for a developer's log. */
      message: string;
    };

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
  const iso = id.slice(9, 21).replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)$/, '$1-$2-$3T$4:$5:00.000Z');
  const ms = Date.parse(iso);
  // A real date and time reads back the same: Date.parse accepts 30 February and rolls it over.
  const reason: EndToEndIdReason | null =
    id.length !== 32 ? 'invalid_length'
    : !/^[ED]/.test(id) ? 'invalid_prefix'
    : !/^.[0-9A-Z]{8}/.test(id) ? 'invalid_ispb'
    : !(ms === ms && new Date(ms).toISOString() === iso) ? 'invalid_timestamp'
    : !/[0-9A-Za-z]{11}$/.test(id) ? 'invalid_sequence'
    : null;
  if (reason !== null) return { valid: false, reason, message: `end-to-end id: ${reason.replace(/_/g, ' ')}` };
  return { valid: true, kind: id[0] === 'E' ? 'payment' : 'refund', ispb: id.slice(1, 9), createdAt: iso, sequence: id.slice(21) };
}

/**
 * True when `txid` is a valid txid for a charge: `[a-zA-Z0-9]{26,35}` for a dynamic charge (the
 * `txid` of a cob), `[a-zA-Z0-9]{1,25}` for a static BR Code's field 62-05.
 */
export function isValidTxid(txid: string, kind: 'static' | 'dynamic'): boolean {
  return kind === 'dynamic' ? /^[0-9A-Za-z]{26,35}$/.test(txid) : /^[0-9A-Za-z]{1,25}$/.test(txid);
}
