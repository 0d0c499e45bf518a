/**
 * The candidate of issue 34, not shipped: src/webhooks/hmac.ts with a synchronous HMAC-SHA256 in
 * JavaScript (./sha256.ts) for `{t}.{body}` up to `JS_MAX` bytes, `subtle.sign` past that.
 * ./plugin.ts puts it in the place of src/webhooks/hmac.ts when a bench bundles the sources, so
 * that the rest of `constructEvent` is the shipped code. It answers hex, as node:crypto does,
 * so the shipped synchronous path (`typeof digest === 'string'`) takes it; the bundle keeps
 * `NODE_CRYPTO` true for that, and in a browser `getNodeCrypto()` is `null`.
 * Not shipped: it costs a receiver's bundle about 0.8 kB gzipped, past the 3 kB budget
 * (docs/decisions.md, "A synchronous HMAC for small bodies").
 * @module
 */
import type { Body } from '../../src/webhooks/body.js';
import { NODE_CRYPTO, getNodeCrypto } from '../../src/webhooks/node-crypto.js';
import { jsHex, jsKey, type JsKey } from './sha256.js';

/**
 * Which HMAC implementation to use. `'auto'` (default) takes Node's synchronous `node:crypto`
 * where it exists and WebCrypto (`crypto.subtle`) elsewhere; `'webcrypto'` forces WebCrypto
 * (for tests and benchmarks of the path that browsers, Deno, Bun and Workers take).
 */
export type CryptoEngine = 'auto' | 'webcrypto';

const encoder = /* @__PURE__ */ new TextEncoder();
const MAX_KEYS = 16;
const nodeKeys = new Map<string, unknown>();

/** A WebCrypto key being imported (`ready`), then imported (`key`, set once `ready` resolves). */
interface WebKey {
  key?: CryptoKey;
  ready: Promise<CryptoKey>;
}
const webKeys = new Map<string, WebKey>();
const jsKeys = new Map<string, JsKey>();

/** The largest `{t}.{body}` hashed in JavaScript; `globalThis.__JS_MAX` overrides it (the crossover bench). */
const JS_MAX: number = (globalThis as { __JS_MAX?: number }).__JS_MAX ?? 4096;
// `{t}.{body}` and its padding (72 bytes), reused: no allocation per delivery.
const scratch = new Uint8Array(Math.min(JS_MAX, 1 << 20) + 72);
const room = scratch.subarray(0, scratch.length - 72);

/**
 * Keys prepared once per secret: a WebCrypto import costs as much as signing a small body, and
 * a node:crypto KeyObject saves a tenth of each HMAC. Bounded, oldest out first.
 */
function cachedKey<T>(keys: Map<string, T>, secret: string, make: (bytes: Uint8Array) => T): T {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value as string);
    key = make(encoder.encode(secret));
    keys.set(secret, key);
  }
  return key;
}

function importKey(secret: string, bytes: Uint8Array): WebKey {
  const entry: WebKey = {
    ready: crypto.subtle.importKey('raw', bytes as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
  };
  entry.ready.then(
    (key) => (entry.key = key),
    () => webKeys.get(secret) === entry && webKeys.delete(secret), // a failed import must not stay cached
  );
  return entry;
}

/**
 * Raw HMAC-SHA256 of `{t}.{body}` with WebCrypto. Once the key is imported,
 * `subtle.sign` is called before this returns: the caller can work while it runs (on Node, on
 * a worker thread).
 */
function webHmac(secret: string, t: string, body: Body): string | Promise<ArrayBuffer> {
  const size = t.length + 1 + body.length;
  if (size <= JS_MAX) {
    let length = size;
    if (typeof body === 'string') {
      // Text may take more bytes than characters: what does not fit goes to WebCrypto.
      const { read, written } = encoder.encodeInto(`${t}.${body}`, room);
      length = read === size ? written : -1;
    } else {
      encoder.encodeInto(`${t}.`, scratch);
      scratch.set(body, t.length + 1);
    }
    if (length >= 0) return jsHex(cachedKey(jsKeys, secret, jsKey), scratch, length);
  }
  let data: Uint8Array;
  if (typeof body === 'string') {
    data = encoder.encode(`${t}.${body}`);
  } else {
    data = new Uint8Array(t.length + 1 + body.length);
    encoder.encodeInto(`${t}.`, data);
    data.set(body, t.length + 1);
  }
  const { key, ready } = cachedKey(webKeys, secret, (bytes) => importKey(secret, bytes));
  return key ? crypto.subtle.sign('HMAC', key, data as Uint8Array<ArrayBuffer>) : ready.then((k) => crypto.subtle.sign('HMAC', k, data as Uint8Array<ArrayBuffer>));
}

/**
 * @internal HMAC-SHA256 of `{t}.{body}`, keyed by the UTF-8 bytes of the whole secret string;
 * the signer and the verifier both come through here. With node:crypto, synchronous and in
 * hex (`digest('hex')` measured faster than `digest()`: no Buffer from the pool); with
 * WebCrypto, the raw bytes.
 */
export const hmac: (secret: string, t: string, body: Body, engine: CryptoEngine | undefined) => string | Promise<ArrayBuffer> = NODE_CRYPTO ? nodeOrWebHmac : webHmac;

function nodeOrWebHmac(secret: string, t: string, body: Body, engine: CryptoEngine | undefined): string | Promise<ArrayBuffer> {
  if (engine !== 'webcrypto') {
    const node = getNodeCrypto();
    if (node) {
      const h = node.createHmac('sha256', cachedKey(nodeKeys, secret, node.createSecretKey));
      // One update for text (one call into C++), two for bytes (no copy).
      return (typeof body === 'string' ? h.update(`${t}.${body}`) : h.update(`${t}.`).update(body)).digest('hex');
    }
  }
  return webHmac(secret, t, body);
}
