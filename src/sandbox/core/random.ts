/**
 * Randomness and hashing: a seeded PRNG (sfc32) for deterministic ids and secrets, the
 * platform's CSPRNG otherwise, and small non-cryptographic hashes for fingerprints,
 * cursor checksums and derived identifiers. No module state: every sandbox owns its own.
 * @module
 */
import { v4 } from 'uuid';

/** 53-bit string hash (cyrb53), stable across runtimes. */
export function hash53(text: string, seed = 0): number {
  const [high, low] = hash53Parts(text, seed);
  return 4294967296 * high + low;
}

/**
 * {@link hash53} of the pieces joined, without joining them: the joined string would be a tree
 * of its pieces that the first read of a character copies flat (an idempotency fingerprint
 * hashes a request's method, path and body on every mutation and replay).
 */
export function hash53Of(pieces: readonly string[], seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (const text of pieces) {
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

// The 21 high bits and the 32 low bits of cyrb53.
function hash53Parts(text: string, seed: number): [number, number] {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [2097151 & h2, h1 >>> 0];
}

const BYTE_HEX = /* @__PURE__ */ Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

const FLAT_MAX = 256;
// Decodes ASCII codes into one flat string (flat, and UUIDs below).
const ASCII = /* @__PURE__ */ new TextDecoder();
let flatScratch: Uint8Array | null = null;

/**
 * The same text as a string of its own, one flat run of characters, for strings that are kept.
 * V8 keeps a string built by `+` or a template (or by `crypto.randomUUID()`) as a tree of its
 * pieces, about 32 bytes a node (a UUID built that way costs 490 bytes instead of 64), and a
 * substring of 13 characters or more (`slice`, a regular expression's group) as a view that keeps
 * the whole text it was cut from alive (docs/performance.md, "Memory"). A JSON round trip copies
 * any string exactly, lone surrogates included.
 */
export function flat(text: string): string {
  // ASCII up to 256 characters (an Idempotency-Key, kept on every mutation): its codes decoded in
  // one call, about 0.6 of the round trip's cost.
  const n = text.length;
  if (n <= FLAT_MAX) {
    const out = (flatScratch ??= new Uint8Array(FLAT_MAX));
    let i = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 127) break;
      out[i] = c;
    }
    if (i === n) return ASCII.decode(out.subarray(0, n));
  }
  return JSON.parse(JSON.stringify(text)) as string;
}

// The 14 hex digits of a cyrb53 hash: 6 of the high bits, 8 of the low (`Number#toString(16)`
// costs about 1 us for a 53-bit number).
function pushHex53(out: string[], text: string, seed: number): void {
  const [high, low] = hash53Parts(text, seed);
  pushHex(out, high, low);
}

function pushHex(out: string[], high: number, low: number): void {
  out.push(
    BYTE_HEX[high >>> 16] as string,
    BYTE_HEX[(high >>> 8) & 255] as string,
    BYTE_HEX[high & 255] as string,
    BYTE_HEX[low >>> 24] as string,
    BYTE_HEX[(low >>> 16) & 255] as string,
    BYTE_HEX[(low >>> 8) & 255] as string,
    BYTE_HEX[low & 255] as string,
  );
}

/**
 * A 106-bit hash as 28 hex digits (two cyrb53 with seeds 1 and 2, the fingerprints of snapshots
 * before 0.2), both in one pass over the text, as one flat string.
 */
export function hashHex(text: string): string {
  let a1 = 0xdeadbeef ^ 1;
  let a2 = 0x41c6ce57 ^ 1;
  let b1 = 0xdeadbeef ^ 2;
  let b2 = 0x41c6ce57 ^ 2;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    a1 = Math.imul(a1 ^ ch, 2654435761);
    a2 = Math.imul(a2 ^ ch, 1597334677);
    b1 = Math.imul(b1 ^ ch, 2654435761);
    b2 = Math.imul(b2 ^ ch, 1597334677);
  }
  const out: string[] = [];
  finish(out, a1, a2);
  finish(out, b1, b2);
  return out.join('');
}

// The finalization of cyrb53 (as hash53Parts), then its 14 hex digits.
function finish(out: string[], h1: number, h2: number): void {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  pushHex(out, 2097151 & h2, h1 >>> 0);
}

/** `prefix` then `length` hex digits derived from `text` (deterministic; for addresses and hashes), one flat string. */
export function derivedHex(text: string, length: number, prefix = ''): string {
  const out: string[] = [prefix];
  for (let i = 0; (out.length - 1) * 2 < length; i++) pushHex53(out, text, 97 + i);
  // Two digits a piece: cut the pieces past `length` (one odd digit at most), then join once.
  out.length = 1 + Math.ceil(length / 2);
  if (length % 2 === 1) out[out.length - 1] = (out[out.length - 1] as string).slice(0, 1);
  return out.join('');
}

/** The state of the seeded generator, kept in snapshots. */
export type RandomState = [number, number, number, number] | null;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Unseeded draws come from one pool of CSPRNG bytes, refilled when spent: a server draws a
// request id for every request, and one `getRandomValues` call per 16 bytes was about 6% of a
// GET's time under load (bench/server.ts --profile). Node's `crypto.randomUUID` keeps such a
// pool too. Each byte is handed out once and zeroed in the pool; large draws go straight to the CSPRNG.
const POOL_BYTES = 4096;
let pool: Uint8Array | null = null;
let poolUsed = POOL_BYTES;

// Where the next `n` bytes of the pool start (at most POOL_BYTES / 16), refilled when spent; the
// caller zeroes them once read.
function poolAt(n: number): number {
  if (pool === null || poolUsed + n > POOL_BYTES) {
    // Filled on first use, not at load: some runtimes refuse random values outside a request.
    pool = globalThis.crypto.getRandomValues(pool ?? new Uint8Array(POOL_BYTES));
    poolUsed = 0;
  }
  const at = poolUsed;
  poolUsed += n;
  return at;
}

function cryptoBytes(n: number): Uint8Array {
  if (n > POOL_BYTES / 16) return globalThis.crypto.getRandomValues(new Uint8Array(n));
  const at = poolAt(n);
  const from = pool as Uint8Array;
  const out = from.slice(at, at + n);
  // Handed out: not left in the pool (a draw may become an API key or a webhook secret).
  from.fill(0, at, at + n);
  return out;
}

// A UUID (or a prefix and 32 hex digits) is written as ASCII codes into a scratch buffer and
// decoded in one call: one flat string, at about a third of the cost of `crypto.randomUUID()`
// flattened by `flat` or of a join of 17 pieces (docs/performance.md, issue 34).
const HEX_CODES = /* @__PURE__ */ Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
// Where each of a UUID's 16 bytes goes in its 36 characters (8-4-4-4-12).
const UUID_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
let uuidScratch: Uint8Array | null = null;
let hexScratch: Uint8Array | null = null;
let hexPrefix = '';

/** The UUID v4 of 16 bytes from `at` (version and variant bits set as uuid's `v4({ random })` sets them). */
function uuidOf(bytes: Uint8Array, at: number): string {
  let out = uuidScratch;
  if (out === null) {
    out = uuidScratch = new Uint8Array(36);
    out[8] = out[13] = out[18] = out[23] = 45; // '-'
  }
  for (let i = 0; i < 16; i++) {
    let v = bytes[at + i] as number;
    if (i === 6) v = (v & 0x0f) | 0x40;
    else if (i === 8) v = (v & 0x3f) | 0x80;
    const p = UUID_AT[i] as number;
    out[p] = HEX_CODES[v >> 4] as number;
    out[p + 1] = HEX_CODES[v & 15] as number;
  }
  return ASCII.decode(out);
}

/** `prefix` (ASCII) and the 32 hex digits of a UUID v4 of 16 bytes from `at`, dashes left out. */
function uuidHexOf(prefix: string, bytes: Uint8Array, at: number): string {
  let out = hexScratch;
  if (out === null || hexPrefix !== prefix) {
    out = hexScratch = new Uint8Array(prefix.length + 32);
    for (let i = 0; i < prefix.length; i++) out[i] = prefix.charCodeAt(i);
    hexPrefix = prefix;
  }
  const p0 = prefix.length;
  for (let i = 0; i < 16; i++) {
    let v = bytes[at + i] as number;
    if (i === 6) v = (v & 0x0f) | 0x40;
    else if (i === 8) v = (v & 0x3f) | 0x80;
    out[p0 + 2 * i] = HEX_CODES[v >> 4] as number;
    out[p0 + 2 * i + 1] = HEX_CODES[v & 15] as number;
  }
  return ASCII.decode(out);
}

/** Ids and secrets for one sandbox. */
export class Random {
  #s: RandomState;

  constructor(seed?: number | string) {
    if (seed === undefined) {
      this.#s = null;
    } else {
      const text = String(seed);
      this.#s = [hash53(text, 11) >>> 0, hash53(text, 12) >>> 0, hash53(text, 13) >>> 0, hash53(text, 14) >>> 0];
      for (let i = 0; i < 15; i++) this.#next();
    }
  }

  get state(): RandomState {
    return this.#s ? [...this.#s] : null;
  }

  set state(value: RandomState) {
    this.#s = value ? [...value] : null;
  }

  #next(): number {
    const s = this.#s as [number, number, number, number];
    let [a, b, c, d] = s;
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    s[0] = a;
    s[1] = b;
    s[2] = c;
    s[3] = d;
    return t >>> 0;
  }

  /** `n` random bytes. */
  bytes(n: number): Uint8Array {
    if (this.#s === null) return cryptoBytes(n);
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const r = this.#next();
      for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (r >>> (j * 8)) & 0xff;
    }
    return out;
  }

  /** A UUID v4 (deterministic when seeded), one flat string (see {@link flat}) when unseeded. */
  uuid(): string {
    if (this.#s !== null) return v4({ random: this.bytes(16) });
    // Straight from the pool: no copy of the bytes, and zeroed once read.
    const at = poolAt(16);
    const text = uuidOf(pool as Uint8Array, at);
    (pool as Uint8Array).fill(0, at, at + 16);
    return text;
  }

  /** The 32 hex digits of a UUID v4: `uuid()` without its dashes, from the same draw, after `prefix`; one flat string. */
  uuidHex(prefix = ''): string {
    // eslint-disable-next-line no-control-regex
    if (prefix !== hexPrefix && !/^[\x00-\x7f]*$/.test(prefix)) return prefix + this.uuidHex();
    if (this.#s !== null) return uuidHexOf(prefix, this.bytes(16), 0);
    const at = poolAt(16);
    const text = uuidHexOf(prefix, pool as Uint8Array, at);
    (pool as Uint8Array).fill(0, at, at + 16);
    return text;
  }

  /** `length` base62 characters. */
  base62(length: number): string {
    const bytes = this.bytes(length);
    const out: string[] = [];
    // 62 * 4 = 248: rejection would be exact, but a slight bias is harmless for sandbox secrets.
    for (let i = 0; i < length; i++) out.push(BASE62[(bytes[i] as number) % 62] as string);
    return out.join('');
  }
}
