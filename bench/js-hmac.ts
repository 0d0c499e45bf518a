/**
 * A verifier with a synchronous HMAC-SHA256 written in JavaScript (issue 34): Chromium schedules
 * a task for every `subtle.sign` and `subtle.verify` (w3c/webcrypto issue 389), so for a small
 * body a hash computed on the main thread may beat the floor of a WebCrypto verifier
 * (bench/minimal-verify.ts). The key's inner and outer states are computed once per secret; each
 * delivery hashes `{t}.{body}` (about 17 blocks for 1 kB) and two more blocks, then compares in
 * constant time. Measured beside ours in bench/webhooks-browser.ts; not shipped (its code is
 * about 0.9 kB gzipped, past the receiver's 3 kB budget: docs/decisions.md).
 * @module
 */

// The round constants and the initial state: the fractional parts of the cube and square roots
// of the first primes (FIPS 180-4). bench/webhooks-browser.ts checks that this verifier accepts
// the delivery it times (a wrong digest would refuse it).
const K = new Int32Array(64);
const H0 = new Int32Array(8);
for (let n = 0, p = 2; n < 64; p++) {
  let prime = true;
  for (let d = 2; d * d <= p; d++) if (p % d === 0) prime = false;
  if (!prime) continue;
  if (n < 8) H0[n] = ((Math.sqrt(p) % 1) * 2 ** 32) | 0;
  K[n++] = ((Math.cbrt(p) % 1) * 2 ** 32) | 0;
}
const W = new Int32Array(64);

// Compresses the 64-byte blocks of data[at..end) into the state h.
function blocks(h: Int32Array, data: Uint8Array, at: number, end: number): void {
  let a0 = h[0]!, b0 = h[1]!, c0 = h[2]!, d0 = h[3]!, e0 = h[4]!, f0 = h[5]!, g0 = h[6]!, h0 = h[7]!;
  for (; at < end; at += 64) {
    for (let i = 0; i < 16; i++) {
      const j = at + i * 4;
      W[i] = (data[j]! << 24) | (data[j + 1]! << 16) | (data[j + 2]! << 8) | data[j + 3]!;
    }
    for (let i = 16; i < 64; i++) {
      const x = W[i - 15]!;
      const y = W[i - 2]!;
      W[i] = (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) + W[i - 7]! + (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) + W[i - 16]!;
    }
    let a = a0, b = b0, c = c0, d = d0, e = e0, f = f0, g = g0, hh = h0;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
      const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    a0 = (a0 + a) | 0;
    b0 = (b0 + b) | 0;
    c0 = (c0 + c) | 0;
    d0 = (d0 + d) | 0;
    e0 = (e0 + e) | 0;
    f0 = (f0 + f) | 0;
    g0 = (g0 + g) | 0;
    h0 = (h0 + hh) | 0;
  }
  h[0] = a0; h[1] = b0; h[2] = c0; h[3] = d0; h[4] = e0; h[5] = f0; h[6] = g0; h[7] = h0;
}

// SHA-256 of `data`, continued from the state `from` after `done` bytes: 32 bytes.
function finish(from: Int32Array, done: number, data: Uint8Array): Uint8Array {
  const h = from.slice();
  const full = data.length & ~63;
  blocks(h, data, 0, full);
  const tail = new Uint8Array(data.length - full < 56 ? 64 : 128);
  tail.set(data.subarray(full));
  tail[data.length - full] = 0x80;
  const bits = (done + data.length) * 8;
  const view = new DataView(tail.buffer);
  view.setUint32(tail.length - 4, bits >>> 0);
  view.setUint32(tail.length - 8, Math.floor(bits / 2 ** 32));
  blocks(h, tail, 0, tail.length);
  const out = new Uint8Array(32);
  const digest = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) digest.setInt32(i * 4, h[i]!);
  return out;
}

/** An HMAC-SHA256 key: the states after the inner and the outer padded key. */
export interface JsHmacKey {
  inner: Int32Array;
  outer: Int32Array;
}

/** Prepares the key once. */
export function jsHmacKey(secret: Uint8Array): JsHmacKey {
  const pad = new Uint8Array(64);
  pad.set(secret.length > 64 ? finish(H0, 0, secret) : secret);
  const inner = H0.slice();
  const outer = H0.slice();
  blocks(inner, pad.map((b) => b ^ 0x36), 0, 64);
  blocks(outer, pad.map((b) => b ^ 0x5c), 0, 64);
  return { inner, outer };
}

/** HMAC-SHA256 of `data`, synchronously. */
export function jsHmac(key: JsHmacKey, data: Uint8Array): Uint8Array {
  return finish(key.outer, 64, finish(key.inner, 64, data));
}

/**
 * The minimal verifier's work (bench/minimal-verify.ts) with the HMAC in JavaScript: parse the
 * header, HMAC `{t}.{body}`, `JSON.parse`, compare in constant time. A promise, as a verifier's
 * caller awaits one.
 */
export function jsHmacVerifier(secret: string): { verify(body: string, header: string): Promise<unknown> } {
  const encoder = new TextEncoder();
  const key = jsHmacKey(encoder.encode(secret));
  return {
    verify(body, header) {
      try {
        const comma = header.indexOf(',');
        const hex = header.slice(comma + 4, comma + 68);
        const mac = jsHmac(key, encoder.encode(`${header.slice(2, comma)}.${body}`));
        const event: unknown = JSON.parse(body);
        let diff = 0;
        for (let i = 0; i < 32; i++) diff |= (mac[i] as number) ^ parseInt(hex.slice(2 * i, 2 * i + 2), 16);
        if (diff !== 0) throw new Error('no matching signature');
        return Promise.resolve(event);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}
