/**
 * HMAC-SHA256 in JavaScript, synchronous, for the small bodies of the WebCrypto path (issue 34;
 * measured, not shipped: ./hmac.ts).
 * Chromium schedules a task for every `subtle.sign` (w3c/webcrypto issue 389): for a body of a
 * few kB, hashing on the calling thread is faster than that task (docs/decisions.md, "HMAC in
 * JavaScript for small bodies"). Written for size (a receiver's bundle has a 3 kB budget) and
 * checked against node:crypto (test/webhooks/sync-hmac.test.ts). Nothing here branches on the
 * bytes hashed, only on their length.
 * @module
 */

// Round constants and initial state: the first 32 bits of the fractional parts of the cube and
// square roots of the first 64 primes (FIPS 180-4), computed rather than written out (bytes).
const K = /* @__PURE__ */ new Int32Array(64);
const H = /* @__PURE__ */ new Int32Array(8);
for (let n = 0, p = 2; n < 64; p++) {
  let d = 2;
  while (p % d) d++;
  if (d < p) continue;
  if (n < 8) H[n] = (Math.sqrt(p) % 1) * 2 ** 32;
  K[n++] = (Math.cbrt(p) % 1) * 2 ** 32;
}
const W = /* @__PURE__ */ new Int32Array(64);

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

// Compresses the 64-byte blocks of v[0..end) into the state h.
function compress(h: Int32Array, v: DataView, end: number): void {
  for (let at = 0; at < end; at += 64) {
    for (let i = 0; i < 16; i++) W[i] = v.getInt32(at + 4 * i);
    for (let i = 16; i < 64; i++) {
      const x = W[i - 15]!;
      const y = W[i - 2]!;
      W[i] = (rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)) + W[i - 7]! + (rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10)) + W[i - 16]!;
    }
    let a = h[0]!, b = h[1]!, c = h[2]!, d = h[3]!, e = h[4]!, f = h[5]!, g = h[6]!, k = h[7]!;
    for (let i = 0; i < 64; i++) {
      const t = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t) | 0;
      d = c;
      c = b;
      b = a;
      a = (t + (rotr(b, 2) ^ rotr(b, 13) ^ rotr(b, 22)) + ((b & c) ^ (b & d) ^ (c & d))) | 0;
    }
    h[0] = h[0]! + a;
    h[1] = h[1]! + b;
    h[2] = h[2]! + c;
    h[3] = h[3]! + d;
    h[4] = h[4]! + e;
    h[5] = h[5]! + f;
    h[6] = h[6]! + g;
    h[7] = h[7]! + k;
  }
}

/**
 * The state after `buf[0..length)`, continued from `from` after `done` bytes (a multiple of 64):
 * pads in `buf`, which must have room for it (`length + 72` bytes).
 */
function hash(from: Int32Array, done: number, buf: Uint8Array, length: number): Int32Array {
  const h = from.slice();
  const end = (length + 72) & ~63;
  buf.fill(0, length, end);
  buf[length] = 0x80;
  const v = new DataView(buf.buffer, buf.byteOffset, end);
  v.setUint32(end - 4, (done + length) * 8); // under 512 MB: the high word stays 0
  compress(h, v, end);
  return h;
}

// A state as 32 bytes, into `v` from offset 0.
function put(h: Int32Array, v: DataView): void {
  for (let i = 0; i < 8; i++) v.setInt32(4 * i, h[i]!);
}

/** @internal An HMAC-SHA256 key: the states after its inner and outer padded blocks. */
export type JsKey = readonly [inner: Int32Array, outer: Int32Array];

/** @internal Prepares a key once (per secret): two blocks hashed, the key hashed first past 64 bytes. */
export function jsKey(secret: Uint8Array): JsKey {
  const block = new Uint8Array(Math.max(secret.length + 72, 64));
  block.set(secret);
  if (secret.length > 64) put(hash(H, 0, block, secret.length), new DataView(block.buffer));
  const key = block.slice(0, secret.length > 64 ? 32 : secret.length);
  const state = (pad: number): Int32Array => {
    for (let i = 0; i < 64; i++) block[i] = (key[i] ?? 0) ^ pad;
    const h = H.slice();
    compress(h, new DataView(block.buffer), 64);
    return h;
  };
  return [state(0x36), state(0x5c)];
}

const outer = /* @__PURE__ */ new DataView(new ArrayBuffer(64));

const outerBytes = /* @__PURE__ */ new Uint8Array(outer.buffer);

/** The final state of the HMAC of `buf[0..length)` (`buf` with room for the padding: 72 bytes after). */
function mac(key: JsKey, buf: Uint8Array, length: number): Int32Array {
  put(hash(key[0], 64, buf, length), outer);
  return hash(key[1], 64, outerBytes, 32);
}

/** @internal HMAC-SHA256 of `buf[0..length)` (which `buf` follows with room for the padding: 72 bytes), as 32 bytes. */
export function jsHmac(key: JsKey, buf: Uint8Array, length: number): Uint8Array {
  const digest = new Uint8Array(32);
  put(mac(key, buf, length), new DataView(digest.buffer));
  return digest;
}

/** @internal The same in lower-case hex, as node:crypto's `digest('hex')`. */
export function jsHex(key: JsKey, buf: Uint8Array, length: number): string {
  let hex = '';
  for (const word of mac(key, buf, length)) hex += (word >>> 0).toString(16).padStart(8, '0');
  return hex;
}
