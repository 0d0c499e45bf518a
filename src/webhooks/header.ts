import { fail } from './errors.js';

/** @internal A parsed `t=<unix>,v1=<hex>[,v1=<hex>...]` header. */
export interface SignatureHeader {
  /** The timestamp exactly as written: the signed text is `{t}.{raw_body}`. */
  t: string;
  /** Every `v1=` value, decoded to 32 bytes. */
  v1: Uint8Array[];
}

const UNIX_SECONDS = /^\d{1,15}$/;

/**
 * @internal Parses the signature header. Unknown schemes (`v0=`, a future `v2=`) are ignored
 * so that the platform can add one without breaking receivers; anything else out of shape is
 * `malformed_header`. Node joins repeated headers with `", "`, hence the spaces allowed around
 * items. A hand-written scanner (no split): it runs on every delivery.
 */
export function parseSignatureHeader(header: string): SignatureHeader {
  let t: string | undefined;
  const v1: Uint8Array[] = [];
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
      const bytes = to - eq - 1 === 64 ? hexToBytes(header, eq + 1, 32) : null;
      if (!bytes) malformed('a v1= is not 64 hex digits');
      v1.push(bytes);
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

function nibble(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  code |= 32; // lowercase
  return code >= 97 && code <= 102 ? code - 87 : -1; // a-f
}

/** @internal `length` bytes of hex read from `hex` at `offset`, or null on a non-hex character. No slices. */
export function hexToBytes(hex: string, offset = 0, length = hex.length >> 1): Uint8Array | null {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const hi = nibble(hex.charCodeAt(offset + i * 2));
    const lo = nibble(hex.charCodeAt(offset + i * 2 + 1));
    if (hi < 0 || lo < 0) return null;
    bytes[i] = (hi << 4) | lo;
  }
  return bytes;
}

/** @internal Bytes to lowercase hex. */
export function bytesToHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += (byte < 16 ? '0' : '') + byte.toString(16);
  return hex;
}
