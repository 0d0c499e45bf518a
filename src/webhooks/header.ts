import { fail } from './errors.js';
import { NODE_CRYPTO } from './node-crypto.js';

/** @internal A parsed `t=<unix>,v1=<hex>[,v1=<hex>...]` header. */
export interface SignatureHeader {
  /** The timestamp exactly as written: the signed text is `{t}.{raw_body}`. */
  t: string;
  /** Every `v1=` value: 64 hex digits (either case), checked, not decoded (see {@link hexMatches}). */
  v1: string[];
}

const UNIX_SECONDS = /^\d{1,15}$/;
const HEX64 = /^[0-9a-f]{64}$/i;

/**
 * @internal Parses the signature header. Unknown schemes (`v0=`, a future `v2=`) are ignored
 * so that the platform can add one without breaking receivers; anything else out of shape is
 * `malformed_header`. Node joins repeated headers with `", "`, hence the spaces allowed around
 * items. A hand-written scanner (no split, no decoding): it runs on every delivery.
 */
export function parseSignatureHeader(header: string): SignatureHeader {
  let t: string | undefined;
  const v1: string[] = [];
  for (let start = 0; start <= header.length; ) {
    let end = header.indexOf(',', start);
    if (end < 0) end = header.length;
    let from = start;
    let to = end;
    while (from < to && header.charCodeAt(from) === 32) from++;
    while (to > from && header.charCodeAt(to - 1) === 32) to--;
    const eq = header.indexOf('=', from);
    if (eq <= from || eq >= to) malformed('an item is not key=value');
    const key = header.slice(from, eq);
    if (key === 't') {
      const value = header.slice(eq + 1, to);
      if (!UNIX_SECONDS.test(value)) malformed('t= is not unix seconds');
      if (t !== undefined && t !== value) malformed('two different t=');
      t = value;
    } else if (key === 'v1') {
      const value = header.slice(eq + 1, to);
      if (!HEX64.test(value)) malformed('a v1= is not 64 hex digits');
      v1.push(value);
    }
    start = end + 1;
  }
  if (t === undefined) malformed('no t=');
  if (v1.length === 0) malformed('no v1=');
  return { t, v1 };
}

function malformed(detail: string): never {
  return fail('malformed_header', `Malformed signature header (${detail}); expected t=<unix seconds>,v1=<hex>`);
}

/**
 * @internal Whether `digest` (32 raw bytes from WebCrypto, or 64 lower-case hex digits from
 * node:crypto) equals `hex` (a checked `v1=` value, either case), in constant time: every
 * position is read and folded into one difference, with no branch and no early exit on what it
 * holds. Reading the hex in place saves decoding each `v1=` into a fresh buffer (an allocation
 * per delivery; allocations are slow in browsers). test/webhooks/constant-time.test.ts counts the reads.
 */
export function hexMatches(digest: Uint8Array | string, hex: string): boolean {
  let diff = 0;
  if (NODE_CRYPTO && typeof digest === 'string') {
    if (digest.length !== 64) return false;
    // `| 32` lower-cases A-F and leaves 0-9 as they are.
    for (let i = 0; i < 64; i++) diff |= digest.charCodeAt(i) ^ (hex.charCodeAt(i) | 32);
  } else {
    if (digest.length !== 32) return false;
    for (let i = 0; i < 32; i++) {
      // A hex digit's value without a branch: (c & 15) is 0-9 for digits and 1-6 for a-f, which
      // `c >> 6` (1 for letters only) moves up by 9.
      const hi = hex.charCodeAt(2 * i) | 32;
      const lo = hex.charCodeAt(2 * i + 1) | 32;
      diff |= (digest[i] as number) ^ ((((hi & 15) + 9 * (hi >> 6)) << 4) | ((lo & 15) + 9 * (lo >> 6)));
    }
  }
  return diff === 0;
}

/** @internal Bytes to lowercase hex. */
export function bytesToHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += (byte | 256).toString(16).slice(1); // 0x1XY: always two digits
  return hex;
}
